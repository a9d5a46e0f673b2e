/**
 * The contract between typed clients (generated, or the built-in ones in the runtime) and what carries their
 * requests: the real HTTP transport (`HttpTransport`, talks to an apiserver) or the in-memory fake
 * (`FakeTransport` in `runtime/testing`, for users' unit tests). Typed clients build a `ResourceRequest`;
 * transports turn it into a response or throw an `ApiError`.
 */

/**
 * meta/v1 `ObjectMeta`, `ListMeta` and `OwnerReference`, as generated from Kubernetes' own types
 * (`api/meta/v1`): object metadata as the apiserver returns it, a list's `resourceVersion` and `continue` token, and
 * an owner in the same namespace (or a cluster-scoped one; at most one has `controller: true`).
 */
export type { ListMeta, ObjectMeta, OwnerReference } from '../api/meta/v1/types.js';
import type { ListMeta, ObjectMeta } from '../api/meta/v1/types.js';

/** Any Kubernetes object. Generated kinds are structurally assignable to it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Any Kubernetes list (`FooList`): list metadata plus the `items`. */
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
    /** The JSON key of a cause's type is `reason` (Go's `StatusCause.Type`): `FieldValueInvalid`, `FieldManagerConflict`… */
    causes?: { reason?: string; message?: string; field?: string }[];
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

/** The API verbs a `ResourceRequest` carries (as in RBAC rules and client-go's `rest.Request`). */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** How a patch body is interpreted: JSON merge, JSON patch, strategic merge or server-side apply. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The content types the apiserver expects for each patch type. */
export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** A query parameter's value: sent as a string, left out when `undefined`. */
export type QueryValue = string | number | boolean | undefined;

/**
 * One API request as a typed client builds it and a `Transport` carries it: verb, resource, namespace, name,
 * subresource, query and body. Transports turn it into a URL (or, in the fake, into a tracker call).
 */
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
  /**
   * `'metadata'`: the object's metadata only, as a `PartialObjectMetadata` (get, watch events) or a
   * `PartialObjectMetadataList` (list) — `apiVersion`, `kind` and `metadata`, no spec or status (client-go's metadata
   * client; the apiserver converts, with `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`).
   * Read verbs only. A server that cannot convert may answer with whole objects: callers that rely on the smaller
   * objects reduce them ({@link toPartialObjectMetadata}, as metadata informers do).
   */
  as?: 'metadata';
  signal?: AbortSignal;
}

/** The `Accept` header of a request for metadata only (`ResourceRequest.as`), with JSON as the fallback. */
export function metadataAccept(verb: Verb): string {
  const as = verb === 'list' ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
  return `application/json;as=${as};g=meta.k8s.io;v=v1,application/json`;
}

/** `apps/v1`, or `v1` for the core group: the `apiVersion` a resource is served under. */
export function apiVersionOf(r: Pick<ResourceInfo, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** One key per group, version and resource (`apps/v1/deployments`, `/v1/pods`): caches and the fake tracker keep kinds by it. */
export function resourceKey(r: Pick<ResourceInfo, 'group' | 'version' | 'resource'>): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

/**
 * `obj` as a metadata-only read returns it, in the kind's own `apiVersion`/`kind` (as controller-runtime's metadata
 * informers do; the apiserver itself answers `meta.k8s.io/v1` `PartialObjectMetadata`): `apiVersion`, `kind` and the
 * whole `metadata`, no spec or status. Returns a new object sharing `metadata` with `obj`.
 */
export function toPartialObjectMetadata(obj: KubeObject, info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>): KubeObject {
  return { apiVersion: apiVersionOf(info), kind: info.kind, metadata: obj.metadata ?? {} };
}

/** The `type` of a watch event (meta/v1 `WatchEvent`); `BOOKMARK` carries only a resourceVersion. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One event of a watch stream (meta/v1 `WatchEvent`, client-go's `watch.Event`). */
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

/** A raw response, for paths outside the resource API (`/readyz`, `/version`, discovery). */
export interface RawResponse {
  statusCode: number;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A `raw()` request's options: the `Accept` header (discovery negotiates its format with it), the body and its
 * content type, an abort signal, and a timeout in ms (default: the transport's `timeoutMs`).
 */
export interface RawRequestInit {
  method?: string;
  /** `Accept` header (default `application/json`). */
  accept?: string;
  body?: string | Buffer;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * What carries a typed client's requests (client-go's `rest.Interface`): `HttpTransport` to an apiserver, or
 * `FakeTransport` (in `runtime/testing`) to an in-memory tracker. Failures answered by the server are `ApiError`s.
 */
export interface Transport {
  /** Sends one request; resolves with the decoded JSON body, rejects with an `ApiError` (or a network error). */
  request<T = unknown>(req: ResourceRequest): Promise<T>;
  /**
   * Sends a request to any path on the server (`/api`, `/apis/apps/v1`, `/version`; query included) with the
   * transport's credentials, throttle and timeout; resolves with the status, headers and body whatever the status
   * (client-go's `RESTClient.Get().AbsPath`). Discovery is built on it; the fake serves discovery from its resources.
   */
  raw(method: string, path: string, init?: RawRequestInit): Promise<RawResponse>;
  /** Opens a watch (`req.verb === 'watch'`). Resolves once the server accepted it. */
  watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>>;
  /**
   * True when WatchList requests must not be sent through this transport (client-go's
   * `IsWatchListSemanticsUnSupported`): informers in `'auto'` mode then list and watch. `FakeTransport` says so
   * unless asked otherwise; real transports leave it to the server.
   */
  isWatchListSemanticsUnsupported?(): boolean;
  /** The field manager of server-side applies that name none; unset: `defaultFieldManager()`. */
  readonly fieldManager?: string | undefined;
}

export type { IntOrString } from '../api-types.js';

/** JSON paths of a resource's scale subresource (as in the CRD). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/**
 * A `ResourceInfo` plus what the fake tracker needs to behave like the apiserver for it: whether it has the status
 * subresource (status changes through the main resource are then ignored) and its scale paths; and the names
 * discovery gives it (singular, short names, categories), which the fake serves in its discovery documents.
 * Generated `register.ts` modules export one per kind.
 */
export interface ResourceDescriptor extends ResourceInfo {
  statusSubresource?: boolean;
  scale?: ScalePaths;
  /** The singular name discovery gives (default: the lower-cased kind). */
  singular?: string;
  /** Short names (`deploy`, `po`), as in a CRD's `spec.names.shortNames`. */
  shortNames?: string[];
  /** Categories (`all`), as in a CRD's `spec.names.categories`. */
  categories?: string[];
  /**
   * The object's associative lists (`x-kubernetes-list-type: map` or `set`), for the fake tracker's server-side
   * apply, which merges them by key (or value) instead of replacing them whole as it does every other list.
   * Absent when there are none.
   */
  associativeLists?: AssociativeList[];
  /**
   * Where the object has atomic objects and maps (`x-kubernetes-map-type: atomic`; Go's `+structType=atomic` and
   * `+mapType=atomic`: a label selector, an object reference, a pod's `nodeSelector`), as {@link AssociativeList}
   * paths: the fake tracker's server-side apply replaces them whole and owns each as one field, as the apiserver
   * does. Absent when there are none.
   */
  atomicObjects?: string[][];
  /**
   * When this version of a built-in kind came into Kubernetes and when it leaves, from the
   * `+k8s:prerelease-lifecycle-gen:*` markers of k8s.io/api: `introduced`, `deprecated` and `removed` are releases
   * (`1.21`); `replacement` is the kind to use once it is removed. A request the server answers as not served fails
   * with a `ResourceNotServedError` naming the release this version needs. Absent for custom resources and for
   * kinds without markers (GA before the markers existed, such as `v1` Pod).
   */
  lifecycle?: { introduced?: string; deprecated?: string; removed?: string; replacement?: { group: string; version: string; kind: string } };
}

/**
 * What server-side apply merges a kind by: its associative lists and atomic objects. A CRD's descriptor carries them;
 * the built-in API keeps them apart (`api/<folder>/<version>/merge-schema.ts`), for the fake tracker alone.
 */
export type MergeSchema = Pick<ResourceDescriptor, 'associativeLists' | 'atomicObjects'>;

/**
 * Where an associative list is, from the object's root: property names, `[]` for a list's items and `{}` for any
 * key of a map (`['spec', 'ports']`, `['spec', 'rules', '[]', 'backends']`). `keys` are a list-map's keys
 * (`x-kubernetes-list-map-keys`); without them the list is a set of scalars. `keyDefaults` are the schema's
 * defaults of keys, which the apiserver fills in before entries are matched.
 */
export interface AssociativeList {
  path: string[];
  keys?: string[];
  keyDefaults?: Record<string, unknown>;
}
