/**
 * The dynamic client (client-go's `dynamic.Interface`): every verb of the typed clients for a resource named at run
 * time, over `Unstructured` objects. It is the generic `ResourceClient` made public, not a second request builder.
 *
 *   new DynamicClient(transport).resource({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('ns')
 *   new DynamicClient(transport).resource(gvr).list()              // cluster-scoped, or every namespace
 *   new DynamicClient(transport).forMapping(await mapper.restMapping({ group, kind }))   // kind and scope known
 *
 * Keyed by resource, it does no discovery (as client-go): the caller names the plural and decides the scope by giving
 * a namespace or not, and objects written must carry their `apiVersion` and `kind` (a missing `apiVersion` is filled
 * in from the resource; the kind cannot be known). Built from a `RESTMapping` it knows the kind and the scope: a
 * missing `kind` is filled in, a namespaced kind's single-object verbs need a namespace, and a cluster-scoped kind
 * ignores one. Namespace, name, resource and subresource are checked as path segments before anything is sent
 * (`a/b`, `..` and `%` are refused); `apply` needs a name and refuses an object carrying `metadata.managedFields`.
 * List items without `apiVersion`/`kind` (built-in kinds' lists) get them from the list's kind minus `List`.
 *
 * Every method returns a promise; a request that cannot be made rejects with a `TypeError` and sends nothing.
 */
import { ResourceClient } from '../client/resource-client.js';
import type {
  ApplyOptions, CreateOptions, DeleteCollectionOptions, DeleteOptions, GetOptions, ListOptions, Patch, PatchOptions, UpdateOptions,
  WatchOptions,
} from '../client/interfaces.js';
import { apiVersionOf, resourceKey, type ResourceInfo, type Transport, type Watch } from '../client/types.js';
import type { ListerWatcher } from '../cache/reflector-types.js';
import type { GroupVersionResource } from '../discovery/types.js';
import type { RESTMapping } from '../restmapper/types.js';
import { checkPathSegment } from './path-segment.js';
import { setListItemKinds, type Unstructured, type UnstructuredList } from './unstructured.js';

/** A `ResourceClient` over unstructured objects whose lists stamp their items' kinds (so `listAll` does too). */
class UnstructuredResourceClient extends ResourceClient<Unstructured, UnstructuredList, Unstructured> {
  override async list(opts: ListOptions = {}): Promise<UnstructuredList> {
    return setListItemKinds(await super.list(opts));
  }
}

/** The entry point: a client per resource (see the module comment). */
export class DynamicClient {
  /** A dynamic client sending its requests through `transport` (an `HttpTransport`, or a `FakeTransport` in tests). */
  constructor(readonly transport: Transport) {}

  /** The resource `gvr`, cluster-wide (cluster-scoped kinds, or every namespace); `.namespace(ns)` for one namespace. */
  resource(gvr: GroupVersionResource): DynamicResourceClient {
    checkPathSegment('resource', gvr.resource);
    checkPathSegment('version', gvr.version);
    checkPathSegment('group', gvr.group);
    if (!gvr.resource || !gvr.version) throw new TypeError(`a resource and a version are required: ${JSON.stringify(gvr)}`);
    return new DynamicResourceClient(this.transport, { ...gvr, kind: '', listKind: '', namespaced: false }, undefined, undefined);
  }

  /** The resource of `mapping`, whose kind and scope are known (what the builder and dynamic informers use). */
  forMapping(mapping: RESTMapping): DynamicResourceClient {
    const info = mapping.info;
    checkPathSegment('resource', info.resource);
    return new DynamicResourceClient(this.transport, { ...info }, mapping, undefined);
  }
}

/**
 * One resource's verbs, cluster-wide or in one namespace (client-go's `NamespaceableResourceInterface` and
 * `ResourceInterface` in one class). Immutable: `namespace(ns)` returns a new client. A reflector can list and watch
 * through it (it is a `ListerWatcher<Unstructured>`).
 */
export class DynamicResourceClient implements ListerWatcher<Unstructured> {
  /** What requests are built from; `kind` and `listKind` are `''` unless the client was built from a mapping. */
  readonly info: ResourceInfo;
  /** The mapping the client was built from, if any. */
  readonly mapping: RESTMapping | undefined;
  /** The namespace requests go to; undefined: cluster-wide. */
  readonly namespaceName: string | undefined;
  private readonly client: UnstructuredResourceClient;

  /**
   * Prefer {@link DynamicClient.resource} and {@link DynamicClient.forMapping}. `mapping` says the kind and scope of
   * `info` are known; without it, `info.namespaced` follows `namespace`. Throws a `TypeError` for an invalid namespace.
   */
  constructor(
    readonly transport: Transport,
    info: ResourceInfo,
    mapping: RESTMapping | undefined,
    namespace: string | undefined,
  ) {
    if (namespace !== undefined) checkPathSegment('namespace', namespace);
    const ns = namespace || undefined;
    // Keyed by resource only, the scope is the caller's: a namespace makes requests namespaced.
    this.info = mapping ? info : { ...info, namespaced: ns !== undefined };
    this.mapping = mapping;
    this.namespaceName = this.info.namespaced ? ns : undefined;
    this.client = new UnstructuredResourceClient(transport, this.info, ns);
  }

  /** The same resource in namespace `ns` (`''`: cluster-wide again). Throws a `TypeError` for an invalid namespace. */
  namespace(ns: string): DynamicResourceClient {
    return new DynamicResourceClient(this.transport, this.info, this.mapping, ns);
  }

  /** `group/version/resource`, e.g. `apps/v1/deployments`, `/v1/configmaps`. */
  get resourceKey(): string {
    return resourceKey(this.info);
  }

  /** The object `name`. */
  async get(name: string, opts: GetOptions = {}): Promise<Unstructured> {
    this.checkName(name);
    return this.client.get(name, opts);
  }

  /** One page of the objects (all of them without `limit`); items without a kind get the list's (module comment). */
  async list(opts: ListOptions = {}): Promise<UnstructuredList> {
    return this.client.list(opts);
  }

  /** Walks every page (`limit` per page, default 500) and yields each item, kinds stamped as `list` does. */
  listAll(opts: ListOptions = {}): AsyncIterable<Unstructured> {
    return this.client.listAll(opts);
  }

  /**
   * What the transport says about WatchList (a `FakeTransport` cannot serve one unless asked to): with `list` and
   * `watch`, this client is a reflector's `ListerWatcher`, as client-go's dynamic informers use the dynamic client.
   */
  isWatchListSemanticsUnsupported(): boolean {
    return this.client.isWatchListSemanticsUnsupported();
  }

  /** Opens a watch; resolves once the server accepted it. */
  async watch(opts: WatchOptions = {}): Promise<Watch<Unstructured>> {
    return this.client.watch(opts);
  }

  /** Creates `obj` (its `metadata.name`, or `generateName`). */
  async create(obj: Unstructured, opts: CreateOptions = {}): Promise<Unstructured> {
    return this.client.create(this.typed(obj, 'create'), opts);
  }

  /** Replaces the object `obj.metadata.name` (a stale `resourceVersion` is a 409 Conflict). */
  async update(obj: Unstructured, opts: UpdateOptions = {}): Promise<Unstructured> {
    this.checkName(obj.metadata?.name);
    return this.client.update(this.typed(obj, 'update'), opts);
  }

  /** Replaces the status of `obj.metadata.name` through the status subresource. */
  async updateStatus(obj: Unstructured, opts: UpdateOptions = {}): Promise<Unstructured> {
    this.checkName(obj.metadata?.name);
    return this.client.updateStatus(this.typed(obj, 'updateStatus'), opts);
  }

  /** A JSON merge, JSON (RFC 6902) or strategic merge patch (built-in kinds only); server-side apply is `apply`. */
  async patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<Unstructured> {
    this.checkName(name);
    return this.client.patch(name, patch, opts);
  }

  /**
   * Server-side apply of `obj` (the fields this field manager owns). `metadata.name` is required; an object with
   * `metadata.managedFields` is refused (it is a whole object read from the server, not an apply configuration:
   * applying it would claim every field).
   */
  async apply(obj: Unstructured, opts: ApplyOptions = {}): Promise<Unstructured> {
    return this.client.apply(this.applyConfig(obj, 'apply'), opts);
  }

  /** Server-side apply to the status subresource (`apply`'s rules). */
  async applyStatus(obj: Unstructured, opts: ApplyOptions = {}): Promise<Unstructured> {
    return this.client.applyStatus(this.applyConfig(obj, 'applyStatus'), opts);
  }

  /** Deletes the object `name` (with finalizers, marks it for deletion). */
  async delete(name: string, opts: DeleteOptions = {}): Promise<void> {
    this.checkName(name);
    return this.client.delete(name, opts);
  }

  /** Deletes every object the selectors match, in the namespace or cluster-wide. */
  async deleteCollection(opts: DeleteCollectionOptions = {}): Promise<void> {
    return this.client.deleteCollection(opts);
  }

  /** GET of subresource `subresource` of `name` (`status`, `scale`, …): the answer as the server gives it. */
  async getSubresource(name: string, subresource: string, opts: GetOptions = {}): Promise<Unstructured> {
    this.checkName(name);
    this.checkSubresource(subresource);
    return this.client.getSubresource<Unstructured>(name, subresource, opts);
  }

  /** POST to subresource `subresource` of `name` (`pods/eviction`): `body` is sent as given. */
  async createSubresource(name: string, subresource: string, body: Unstructured, opts: CreateOptions = {}): Promise<Unstructured> {
    this.checkName(name);
    this.checkSubresource(subresource);
    this.checkObjectNamespace(body);
    return this.client.createSubresource<Unstructured>(name, subresource, body, opts);
  }

  /** PUT of subresource `subresource` of `name` (`scale` takes an autoscaling/v1 `Scale`): `body` is sent as given. */
  async updateSubresource(name: string, subresource: string, body: Unstructured, opts: UpdateOptions = {}): Promise<Unstructured> {
    this.checkName(name);
    this.checkSubresource(subresource);
    this.checkObjectNamespace(body);
    return this.client.updateSubresource<Unstructured>(name, subresource, body, opts);
  }

  /** PATCH of subresource `subresource` of `name`. */
  async patchSubresource(name: string, subresource: string, patch: Patch, opts: PatchOptions = {}): Promise<Unstructured> {
    this.checkName(name);
    this.checkSubresource(subresource);
    return this.client.patchSubresource<Unstructured>(name, subresource, patch, opts);
  }

  /** `deployments.apps/v1`, how messages name the resource. */
  private describe(): string {
    const { group, version, resource, kind } = this.info;
    return `${resource}${group ? `.${group}` : ''}/${version}${kind ? ` (${kind})` : ''}`;
  }

  private checkName(name: string | undefined): asserts name is string {
    if (!name) throw new TypeError(`${this.describe()}: a name is required (metadata.name)`);
    checkPathSegment('resource name', name);
  }

  /** A namespaced mapping's client without a namespace sends an object's own namespace in the path: check it too. */
  private checkObjectNamespace(obj: Unstructured): void {
    const ns = obj?.metadata?.namespace;
    if (typeof ns === 'string') checkPathSegment('namespace', ns);
  }

  private checkSubresource(subresource: string): void {
    if (!subresource) throw new TypeError(`${this.describe()}: a subresource name is required`);
    for (const part of subresource.split('/')) {
      if (!part) throw new TypeError(`invalid subresource ${JSON.stringify(subresource)}: empty segment`);
      checkPathSegment('subresource', part);
    }
  }

  /**
   * `obj` with its `apiVersion` (from the resource) and `kind` (from the mapping) filled in when missing; a
   * `TypeError` when the kind is missing and unknown.
   */
  private typed(obj: Unstructured, verb: string): Unstructured {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new TypeError(`${this.describe()}: ${verb} needs an object`);
    this.checkObjectNamespace(obj);
    const kind = obj.kind || this.info.kind;
    if (!kind) {
      throw new TypeError(`${this.describe()}: ${verb} of an object without a kind: set apiVersion and kind (a dynamic client keyed by resource cannot tell the kind; build it from a RESTMapping to have it filled in)`);
    }
    if (obj.apiVersion && obj.kind) return obj;
    return { ...obj, apiVersion: obj.apiVersion || apiVersionOf(this.info), kind };
  }

  private applyConfig(obj: Unstructured, verb: 'apply' | 'applyStatus'): Unstructured {
    this.checkName(obj?.metadata?.name);
    const managedFields = obj.metadata?.managedFields;
    if (Array.isArray(managedFields) ? managedFields.length > 0 : managedFields !== undefined && managedFields !== null) {
      throw new TypeError(
        `${this.describe()}: cannot ${verb} an object with metadata.managedFields set (${obj.metadata!.name}): an apply configuration names only the fields this manager owns; remove managedFields (and what this manager does not own) before applying`,
      );
    }
    return this.typed(obj, verb);
  }
}
