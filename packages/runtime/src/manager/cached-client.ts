/**
 * A client that reads from the manager's cache and writes to the API server (controller-runtime's default
 * delegating client). `get`/`list` of a kind whose informer the manager handed out (and which has synced) are served
 * from that informer's store, as deep copies the caller may mutate; everything else, and every write, goes through
 * a plain {@link ResourceClient}. Cache reads can be stale: use optimistic concurrency (resourceVersion) on writes.
 */
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { ApiError, newStatus } from '../client/errors.js';
import type { GetOptions, ListOptions } from '../client/interfaces.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeList, KubeObject, ResourceInfo, Transport } from '../client/types.js';

/** Finds the informer serving `info` for `namespace` ('' = all), if any. */
export type InformerLookup = (info: ResourceInfo, namespace: string) => SharedIndexInformer<KubeObject> | undefined;

/**
 * A {@link ResourceClient} whose `get` and `list` are served from a synced informer's cache when possible (as deep
 * copies); other reads, and all writes, go to the API. Handed out by `CachedClient.resource()`.
 */
export class CachedResourceClient<T extends KubeObject> extends ResourceClient<T> {
  constructor(
    transport: Transport,
    info: ResourceInfo,
    namespace: string | undefined,
    private readonly lookup: InformerLookup,
    readAs?: 'metadata',
  ) {
    super(transport, info, namespace, readAs ? { readAs } : {});
  }

  /** From the cache when it serves this kind (a missing object is a 404 `ApiError`); else from the API. */
  override get(name: string, opts: GetOptions = {}): Promise<T> {
    const informer = this.cached();
    if (!informer || opts.resourceVersion !== undefined) return super.get(name, opts);
    const lister = informer.lister();
    const obj = this.namespace ? lister.namespace(this.namespace).get(name) : lister.get(name);
    if (!obj) {
      const what = `${this.info.resource}${this.info.group ? '.' + this.info.group : ''}`;
      return Promise.reject(new ApiError(newStatus(404, 'NotFound', `${what} "${name}" not found`, { name, group: this.info.group, kind: this.info.resource })));
    }
    return Promise.resolve(structuredClone(obj));
  }

  /** From the cache (label selector honoured) when it serves this kind and no paging/field selector is asked for. */
  override list(opts: ListOptions = {}): Promise<KubeList<T>> {
    const informer = this.cached();
    if (!informer || opts.fieldSelector || opts.limit || opts.continue || opts.resourceVersion !== undefined) return super.list(opts);
    const lister = informer.lister();
    const items = this.namespace ? lister.namespace(this.namespace).list(opts.labelSelector) : lister.list(opts.labelSelector);
    return Promise.resolve({
      apiVersion: this.apiVersion,
      kind: this.info.listKind,
      metadata: { resourceVersion: informer.lastSyncResourceVersion },
      items: items.map((o) => structuredClone(o)),
    });
  }

  private cached(): SharedIndexInformer<T> | undefined {
    const inf = this.lookup(this.info, this.namespace ?? '') ?? (this.namespace ? this.lookup(this.info, '') : undefined);
    return inf && inf.hasSynced() ? (inf as unknown as SharedIndexInformer<T>) : undefined;
  }
}

/** Hands out {@link CachedResourceClient}s for any kind. */
export class CachedClient {
  constructor(
    readonly transport: Transport,
    private readonly lookup: InformerLookup,
    private readonly metadataLookup: InformerLookup = () => undefined,
  ) {}

  /**
   * A client with no cache behind it: reads and writes go straight to `transport` (controller-runtime's API reader).
   * For unit tests of reconcilers written against the manager's client (`CachedClient.direct(fake.transport)`), and
   * for reads that must not be stale.
   */
  static direct(transport: Transport): CachedClient {
    return new CachedClient(transport, () => undefined);
  }

  /** A client for `info`, scoped to `namespace` for namespaced kinds (unset = all namespaces). */
  resource<T extends KubeObject>(info: ResourceInfo, namespace?: string): CachedResourceClient<T> {
    return new CachedResourceClient<T>(this.transport, info, namespace, this.lookup);
  }

  /**
   * A metadata-only client for `info` (controller-runtime's client with `PartialObjectMetadata`): `get` and `list`
   * return `apiVersion`, `kind` and `metadata` only, from the manager's metadata informer for the kind when there is
   * one and it has synced (`Manager.getMetadataInformer`, `owns(..., { metadataOnly: true })`), else from the API as
   * `PartialObjectMetadata`. Writes (e.g. a metadata `patch`, `delete`) go to the API as usual.
   */
  metadata(info: ResourceInfo, namespace?: string): CachedResourceClient<KubeObject> {
    return new CachedResourceClient<KubeObject>(this.transport, info, namespace, this.metadataLookup, 'metadata');
  }
}
