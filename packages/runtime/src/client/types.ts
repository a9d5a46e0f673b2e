/**
 * The contract between typed clients (generated, or the built-in ones in the runtime) and what carries their
 * requests: the real HTTP transport (`HttpTransport`, talks to an apiserver) or the in-memory fake
 * (`FakeTransport` in `runtime/testing`, for users' unit tests). Typed clients build a `ResourceRequest`;
 * transports turn it into a response or throw an `ApiError`.
 */

/** Object metadata as the apiserver returns it (the fields the runtime reads; everything else passes through). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any Kubernetes object. Generated kinds are structurally assignable to it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}

/** meta/v1 Status, the body of every API error. */
export interface Status {
  apiVersion?: string;
  kind?: 'Status';
  metadata?: ListMeta;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { type?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code?: number;
}

/** What a typed client needs to know about its resource to build URLs. */
export interface ResourceInfo {
  /** '' for the core group. */
  group: string;
  version: string;
  /** The plural, lower-case resource name used in URLs, e.g. `foos`. */
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The content types the apiserver expects for each patch type. */
export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export type QueryValue = string | number | boolean | undefined;

export interface ResourceRequest {
  verb: Verb;
  resource: ResourceInfo;
  /** Required for namespaced resources except for list/watch/deletecollection across all namespaces. */
  namespace?: string;
  name?: string;
  /** e.g. `status`, `scale`. */
  subresource?: string;
  /** Query parameters, sent as given; `undefined` values are left out. */
  query?: Record<string, QueryValue>;
  /** Request body: an object for create/update/delete options, a patch document for patch. */
  body?: unknown;
  patchType?: PatchType;
  signal?: AbortSignal;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T> {
  type: WatchEventType;
  /** The object, or a `Status` when `type` is `ERROR`. */
  object: T;
}

/**
 * An open watch. Iterate it for events; the iteration ends when the server closes the stream or `stop()` is called.
 * A network failure ends the iteration with a thrown error. A watch is single-use: iterate it once.
 */
export interface Watch<T> extends AsyncIterable<WatchEvent<T>> {
  /** Ends the watch. A `ConnectionStalledError` as `reason` marks the connection it used as suspect. */
  stop(reason?: unknown): void;
}

export interface Transport {
  /** Sends one request; resolves with the decoded JSON body, rejects with an `ApiError` (or a network error). */
  request<T = unknown>(req: ResourceRequest): Promise<T>;
  /** Opens a watch (`req.verb === 'watch'`). Resolves once the server accepted it. */
  watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>>;
}

/** A value that is either an integer or a string (`x-kubernetes-int-or-string`), e.g. a port or `25%`. */
export type IntOrString = number | string;

/** JSON paths of a resource's scale subresource (as in the CRD). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/**
 * A `ResourceInfo` plus what the fake tracker needs to behave like the apiserver for it: whether it has the status
 * subresource (status changes through the main resource are then ignored) and its scale paths.
 * Generated `register.ts` modules export one per kind.
 */
export interface ResourceDescriptor extends ResourceInfo {
  statusSubresource?: boolean;
  scale?: ScalePaths;
}
