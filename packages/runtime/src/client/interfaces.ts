import type { KubeList, KubeObject, Watch } from './types.js';

/** Options shared by every call. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface GetOptions extends CallOptions {
  resourceVersion?: string;
}

export interface ListOptions extends CallOptions {
  /** Kubernetes label selector syntax, e.g. `app=nginx,tier in (web,api)`. */
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
}

export interface WatchOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

export interface WriteOptions extends CallOptions {
  /** Server-side dry run: validated and admitted, not persisted. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export type CreateOptions = WriteOptions;
export type UpdateOptions = WriteOptions;

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends CallOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: Preconditions;
}

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

export interface ApplyOptions extends CallOptions {
  /** Required by the apiserver for server-side apply. */
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
}

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
 */
export interface ResourceInterface<T extends KubeObject, L extends KubeList<T> = KubeList<T>> {
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
  /** Server-side apply of a (partial) object; `apiVersion`, `kind` and `metadata.name` are filled in. */
  apply(obj: Partial<T> & KubeObject, opts: ApplyOptions): Promise<T>;
}

/** The status subresource's verbs, present on a typed client only when the CRD declares it. */
export interface StatusInterface<T extends KubeObject> {
  getStatus(name: string, opts?: GetOptions): Promise<T>;
  updateStatus(obj: T, opts?: UpdateOptions): Promise<T>;
  patchStatus(name: string, patch: Patch, opts?: PatchOptions): Promise<T>;
  applyStatus(obj: Partial<T> & KubeObject, opts: ApplyOptions): Promise<T>;
}

/** The scale subresource's verbs, present only when the CRD declares it. */
export interface ScaleInterface {
  getScale(name: string, opts?: GetOptions): Promise<Scale>;
  updateScale(name: string, scale: Scale, opts?: UpdateOptions): Promise<Scale>;
}
