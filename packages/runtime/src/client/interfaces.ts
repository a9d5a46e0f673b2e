import type { ApplyObject } from './apply.js';
import type { KubeList, KubeObject, Watch } from './types.js';

/** Options shared by every call. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of `get` (meta/v1 `GetOptions`); `resourceVersion` is sent as a query parameter (`0`: any version). */
export interface GetOptions extends CallOptions {
  resourceVersion?: string;
}

/**
 * Options of `list` and `listAll` (meta/v1 `ListOptions`), each sent as the query parameter of the same name.
 * `limit` and `continue` page through the collection; `listAll` does that for you.
 */
export interface ListOptions extends CallOptions {
  /** Kubernetes label selector syntax, e.g. `app=nginx,tier in (web,api)`. */
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * KEP-5866 (Kubernetes 1.36, alpha, feature gate `ShardedListAndWatch`): only objects whose hashed field falls in
   * these ranges, e.g. `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || …` (see
   * `shardRangeSelector`). A server without the feature ignores it; one that filters echoes it in the list's
   * `metadata.shardInfo.selector`.
   */
  shardSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
}

/**
 * Options of `watch` (meta/v1 `ListOptions` with `watch=true`), each sent as the query parameter of the same name.
 * `resourceVersion` is where the watch starts; `allowWatchBookmarks` asks for `BOOKMARK` events.
 * A WatchList (streaming list, Kubernetes 1.27+) is `sendInitialEvents: true` with `resourceVersionMatch:
 * 'NotOlderThan'` and `allowWatchBookmarks: true`: ADDED events for the current state, then a BOOKMARK annotated
 * `k8s.io/initial-events-end: "true"`, then changes. Older apiservers answer it with 422 Invalid.
 */
export interface WatchOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** As `ListOptions.shardSelector`: a filtering server sends only the selected objects' events (and initial events). */
  shardSelector?: string;
  resourceVersion?: string;
  /** Only `NotOlderThan`, and only with `sendInitialEvents` (the apiserver refuses it on any other watch). */
  resourceVersionMatch?: 'NotOlderThan';
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

/**
 * Options of the writing verbs (meta/v1 `CreateOptions`, `UpdateOptions`, `PatchOptions`), sent as query parameters.
 * `fieldManager` names the writer in `managedFields`; `fieldValidation` decides how unknown fields are handled.
 */
export interface WriteOptions extends CallOptions {
  /** Server-side dry run: validated and admitted, not persisted. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

/** Options of `create` (meta/v1 `CreateOptions`): the shared {@link WriteOptions}. */
export type CreateOptions = WriteOptions;
/** Options of `update`, `updateStatus`, `updateScale` (meta/v1 `UpdateOptions`): the shared {@link WriteOptions}. */
export type UpdateOptions = WriteOptions;

/** meta/v1 `Preconditions` of a delete: the apiserver refuses it (409 Conflict) unless the object still has these. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * Options of `delete` (meta/v1 `DeleteOptions`), sent as the request body. `propagationPolicy` says what happens to
 * dependents (unset: the kind's default, usually `Background`); `dryRun` is also sent as a query parameter.
 */
export interface DeleteOptions extends CallOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: Preconditions;
}

/** Options of `deleteCollection`: {@link DeleteOptions} plus the selectors (query parameters) of what to delete. */
export interface DeleteCollectionOptions extends DeleteOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/** A JSON patch operation (RFC 6902). */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** A patch: JSON merge patch (RFC 7386), JSON patch (RFC 6902) or strategic merge (built-in kinds only). */
export type Patch =
  | { type: 'merge'; patch: Record<string, unknown> }
  | { type: 'json'; patch: JsonPatchOperation[] }
  | { type: 'strategic'; patch: Record<string, unknown> };

/**
 * Options of server-side apply (`apply`, `applyStatus`; a patch of type `application/apply-patch+yaml`).
 * `force` takes over fields another manager owns instead of failing with an `ApplyConflictError` (409 Conflict).
 */
export interface ApplyOptions extends CallOptions {
  /**
   * The field manager that owns what this apply sets. Default: the transport's `fieldManager`, else
   * `defaultFieldManager()` (the program's name). Keep it stable across runs: a new name is a new owner.
   */
  fieldManager?: string;
  force?: boolean;
  dryRun?: boolean;
}

/** Options of `patch` and `patchStatus` (meta/v1 `PatchOptions`): the shared {@link WriteOptions}. */
export type PatchOptions = WriteOptions;

/** autoscaling/v1 Scale. */
export interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}

/**
 * A typed client for one resource. For a namespaced kind it is bound to one namespace (or to all namespaces for
 * `list`, `watch` when built without one); for a cluster-scoped kind, to none.
 * Objects passed in are not mutated; objects returned are new and owned by the caller.
 *
 * `A` is what `apply` takes: generated clients use the kind's apply configuration (`FooApply`); the default, a
 * partial object, keeps hand-written uses compiling.
 */
export interface ResourceInterface<T extends KubeObject, L extends KubeList<T> = KubeList<T>, A extends ApplyObject = Partial<T> & KubeObject> {
  get(name: string, opts?: GetOptions): Promise<T>;
  list(opts?: ListOptions): Promise<L>;
  /** Walks every page (`limit` per page, default 500) and yields each item. */
  listAll(opts?: ListOptions): AsyncIterable<T>;
  watch(opts?: WatchOptions): Promise<Watch<T>>;
  create(obj: T, opts?: CreateOptions): Promise<T>;
  update(obj: T, opts?: UpdateOptions): Promise<T>;
  delete(name: string, opts?: DeleteOptions): Promise<void>;
  deleteCollection(opts?: DeleteCollectionOptions): Promise<void>;
  patch(name: string, patch: Patch, opts?: PatchOptions): Promise<T>;
  /**
   * Server-side apply of an apply configuration: the fields it names become owned by the field manager, fields
   * that manager applied before and leaves out now are released (and removed if nobody else owns them). Missing
   * `apiVersion`/`kind` are filled in; `metadata.name` is required. A field another manager owns with a different
   * value fails with an `ApplyConflictError` unless `force` is set. Creates the object when it does not exist.
   */
  apply(config: A, opts?: ApplyOptions): Promise<T>;
}

/** The status subresource's verbs, present on a typed client only when the CRD declares it. */
export interface StatusInterface<T extends KubeObject, A extends ApplyObject = Partial<T> & KubeObject> {
  getStatus(name: string, opts?: GetOptions): Promise<T>;
  updateStatus(obj: T, opts?: UpdateOptions): Promise<T>;
  patchStatus(name: string, patch: Patch, opts?: PatchOptions): Promise<T>;
  /** Server-side apply to the status subresource (`apply`'s rules; only `status` of the configuration counts). */
  applyStatus(config: A, opts?: ApplyOptions): Promise<T>;
}

/** The scale subresource's verbs, present only when the CRD declares it. */
export interface ScaleInterface {
  getScale(name: string, opts?: GetOptions): Promise<Scale>;
  updateScale(name: string, scale: Scale, opts?: UpdateOptions): Promise<Scale>;
}
