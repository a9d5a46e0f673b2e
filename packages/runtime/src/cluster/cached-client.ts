/**
 * A client that reads from the manager's cache and writes to the API server (controller-runtime's default
 * delegating client). `get`/`list` of a kind whose informers the manager handed out (and which have synced) are
 * served from their stores, as deep copies the caller may mutate; everything else, and every write, goes through
 * a plain {@link ResourceClient}. Cache reads can be stale — except for the client's own writes: with
 * read-your-writes (on by default, see read-your-writes.ts) a cache read of an object this client wrote waits, for a
 * bounded time, until the cache shows that write, else reads from the API. Other writers' changes show up when the
 * cache gets them: use optimistic concurrency (resourceVersion) on writes.
 */
import { withFieldOwner } from '../client/field-owner.js';
import { NAMESPACE_INDEX, type IndexFunc } from '../cache/indexer.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { ApiError, newStatus } from '../client/errors.js';
import type { ApplyOptions, CreateOptions, DeleteOptions, GetOptions, ListOptions, Patch, PatchOptions, UpdateOptions } from '../client/interfaces.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeList, KubeObject, ResourceInfo, Transport } from '../client/types.js';
import { fieldValue, parseFieldSelector, type FieldRequirement, type FieldSelector } from '../labels/field-selector.js';
import { parseSelector } from '../labels/parse-selector.js';
import { fieldIndexName, fieldIndexValue } from './cluster-cache.js';
import { parseGroupVersion, type GroupVersionKind } from '../discovery/types.js';
import type { Unstructured } from '../dynamic/unstructured.js';
import type { RESTMapper } from '../restmapper/types.js';
import { ReadYourWrites } from './read-your-writes.js';

/**
 * Finds the synced informers that together hold `info` in `namespace` (`undefined`: all namespaces) — one that
 * covers it, or one per cached namespace — or undefined when the cache cannot answer.
 */
export type InformerLookup = (info: ResourceInfo, namespace: string | undefined, opts?: { unsynced?: boolean }) => readonly SharedIndexInformer<KubeObject>[] | undefined;

/** How long a list by an indexed field waits for the kind's informers to sync before asking the API. */
const INDEX_SYNC_WAIT_MS = 10_000;

/** Fields every object can be selected by, which the cache serves without an index. */
const META_FIELDS = new Set(['metadata.name', 'metadata.namespace']);

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
    private readonly ryw: ReadYourWrites = new ReadYourWrites({ enabled: false }),
  ) {
    super(transport, info, namespace, readAs ? { readAs } : {});
  }

  /**
   * From the cache when it serves this kind (a missing object is a 404 `ApiError`); else from the API. When this
   * client wrote the object and the cache does not show that write yet, waits for it (read-your-writes), and reads
   * from the API when the wait runs out.
   */
  override get(name: string, opts: GetOptions = {}): Promise<T> {
    const informers = this.cached();
    if (informers?.length !== 1 || opts.resourceVersion !== undefined) return super.get(name, opts);
    const informer = informers[0]!;
    const key = this.namespace ? `${this.namespace}/${name}` : name;
    if (this.ryw.hasPending(informer, key)) {
      return this.ryw.caughtUp(informer, key, this.what, 'get', opts.signal).then((shown) => (shown ? this.fromCache(informer, name) : super.get(name, opts)));
    }
    return this.fromCache(informer, name);
  }

  private fromCache(informer: SharedIndexInformer<T>, name: string): Promise<T> {
    const lister = informer.lister();
    const obj = this.namespace ? lister.namespace(this.namespace).get(name) : lister.get(name);
    if (!obj) {
      return Promise.reject(new ApiError(newStatus(404, 'NotFound', `${this.what} "${name}" not found`, { name, group: this.info.group, kind: this.info.resource })));
    }
    return Promise.resolve(structuredClone(obj));
  }

  /**
   * From the cache when it serves this kind and no paging or resourceVersion is asked for: the label selector is
   * honoured, and so is a field selector whose terms are equalities on fields indexed with `Manager.indexField` (one
   * index lookup; the other terms filter) or on `metadata.name`/`metadata.namespace`. Other field selectors go to
   * the API, which knows the kind's selectable fields. With read-your-writes, waits (bounded) until the cache shows
   * every write of this kind this client made, else lists from the API. A list by an indexed field while the kind's
   * informers are still syncing (a shard's new informers after its ranges moved) waits for them, bounded, as
   * controller-runtime's cache reader does: the apiserver knows nothing of such a field.
   */
  override async list(opts: ListOptions = {}): Promise<KubeList<T>> {
    if (opts.limit || opts.continue || opts.resourceVersion !== undefined) return super.list(opts);
    const informers = this.cached() ?? (await this.syncedForIndex(opts));
    if (!informers) return super.list(opts);
    const behind = informers.filter((i) => this.ryw.hasPending(i));
    if (behind.length > 0) {
      return Promise.all(behind.map((i) => this.ryw.caughtUp(i, undefined, this.what, 'list', opts.signal))).then((shown) =>
        shown.every(Boolean) ? this.listCached(informers, opts) : super.list(opts),
      );
    }
    return this.listCached(informers, opts);
  }

  private listCached(informers: readonly SharedIndexInformer<T>[], opts: ListOptions): Promise<KubeList<T>> {
    let fields: FieldSelector | undefined;
    try {
      fields = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector) : undefined;
    } catch {
      return super.list(opts); // the apiserver says what is wrong with it
    }
    const labels = opts.labelSelector ? parseSelector(opts.labelSelector) : undefined;
    const items: T[] = [];
    for (const informer of informers) {
      const found = fields && !fields.empty() ? this.byFields(informer, fields) : this.inNamespace(informer);
      if (found === undefined) return super.list(opts);
      for (const o of found) if (!labels || labels.matches(o.metadata?.labels)) items.push(structuredClone(o));
    }
    return Promise.resolve({
      apiVersion: this.apiVersion,
      kind: this.info.listKind,
      metadata: { resourceVersion: informers.length === 1 ? informers[0]!.lastSyncResourceVersion : '' },
      items,
    });
  }

  private inNamespace(informer: SharedIndexInformer<T>): T[] {
    const indexer = informer.getIndexer();
    return this.namespace ? indexer.byIndex(NAMESPACE_INDEX, this.namespace) : indexer.list();
  }

  /** The objects matching `fields`, from a field index; undefined when a term is neither indexed nor a metadata field. */
  private byFields(informer: SharedIndexInformer<T>, fields: FieldSelector): T[] | undefined {
    const indexer = informer.getIndexer();
    const ns = this.namespace ?? '';
    // An equality on a field indexed with `indexField` is matched by its index values (the extractor may compute
    // them); metadata fields by their value.
    const indexers = indexer.getIndexers();
    const indexFunc = (r: FieldRequirement): IndexFunc<T> | undefined => (r.operator === '!=' ? undefined : indexers[fieldIndexName(r.field)]);
    if (!fields.requirements.every((r) => indexFunc(r) || META_FIELDS.has(r.field))) return undefined;
    const indexed = fields.requirements.find((r) => indexFunc(r));
    const candidates = indexed ? indexer.byIndex(fieldIndexName(indexed.field), fieldIndexValue(ns, indexed.value)) : this.inNamespace(informer);
    const rest = fields.requirements.filter((r) => r !== indexed);
    return candidates.filter((o) =>
      rest.every((r) => {
        const fn = indexFunc(r);
        return fn ? fn(o).includes(fieldIndexValue(ns, r.value)) : (fieldValue(o, r.field) === r.value) === (r.operator !== '!=');
      }),
    );
  }

  /** Records the write in read-your-writes (see {@link ReadYourWrites.wrote}). */
  override create(obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.recorded(super.create(obj, opts), opts.dryRun);
  }

  override update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.recorded(super.update(obj, opts), opts.dryRun);
  }

  override patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.recorded(super.patch(name, patch, opts), opts.dryRun);
  }

  override apply(config: Partial<T> & KubeObject, opts: ApplyOptions = {}): Promise<T> {
    return this.recorded(super.apply(config, opts), opts.dryRun);
  }

  override updateStatus(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.recorded(super.updateStatus(obj, opts), opts.dryRun);
  }

  override patchStatus(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.recorded(super.patchStatus(name, patch, opts), opts.dryRun);
  }

  override applyStatus(config: Partial<T> & KubeObject, opts: ApplyOptions = {}): Promise<T> {
    return this.recorded(super.applyStatus(config, opts), opts.dryRun);
  }

  /** Records the delete in read-your-writes: a cache read then waits until the cache no longer shows the object. */
  override async delete(name: string, opts: DeleteOptions = {}): Promise<void> {
    await super.delete(name, opts);
    if (opts.dryRun || !this.ryw.enabled) return;
    const namespace = this.info.namespaced ? this.namespace : undefined;
    const informers = this.lookup(this.info, namespace);
    if (informers?.length !== 1) return;
    const key = namespace ? `${namespace}/${name}` : name;
    this.ryw.deleted(informers[0]!, key, informers[0]!.getIndexer().getByKey(key)?.metadata?.uid);
  }

  /** `resource.group`, as errors and metrics name the kind. */
  private get what(): string {
    return `${this.info.resource}${this.info.group ? '.' + this.info.group : ''}`;
  }

  private async recorded(write: Promise<T>, dryRun: boolean | undefined): Promise<T> {
    const obj = await write;
    if (!dryRun && this.ryw.enabled && obj?.metadata) {
      const namespace = this.info.namespaced ? (obj.metadata.namespace ?? this.namespace) : undefined;
      const informers = this.lookup(this.info, namespace);
      if (informers?.length === 1) this.ryw.wrote(informers[0]!, obj);
    }
    return obj;
  }

  /**
   * The kind's informers once synced, when they are syncing and `opts.fieldSelector` names a field indexed on them;
   * undefined otherwise, or when they have not synced within INDEX_SYNC_WAIT_MS or `opts.signal` aborted.
   */
  private async syncedForIndex(opts: ListOptions): Promise<readonly SharedIndexInformer<T>[] | undefined> {
    const pending = opts.fieldSelector ? this.lookup(this.info, this.namespace, { unsynced: true }) : undefined;
    if (!pending?.length) return undefined;
    let fields: FieldSelector;
    try {
      fields = parseFieldSelector(opts.fieldSelector!);
    } catch {
      return undefined;
    }
    const indexers = pending[0]!.getIndexer().getIndexers();
    if (!fields.requirements.some((r) => indexers[fieldIndexName(r.field)])) return undefined;
    let giveUp!: () => void;
    const gaveUp = new Promise<false>((resolve) => (giveUp = () => resolve(false)));
    const timer = setTimeout(giveUp, INDEX_SYNC_WAIT_MS);
    opts.signal?.addEventListener('abort', giveUp, { once: true });
    try {
      const synced = await Promise.race([Promise.all(pending.map((i) => i.whenSynced())).then(() => true), gaveUp]);
      return synced ? this.cached() : undefined;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', giveUp);
    }
  }

  private cached(): readonly SharedIndexInformer<T>[] | undefined {
    return this.lookup(this.info, this.namespace) as readonly SharedIndexInformer<T>[] | undefined;
  }
}

/** Hands out {@link CachedResourceClient}s for any kind. */
export class CachedClient {
  constructor(
    readonly transport: Transport,
    private readonly lookup: InformerLookup,
    private readonly metadataLookup: InformerLookup = () => undefined,
    private readonly mapper?: () => RESTMapper,
    /** The writes this client made that the cache may not show yet (disabled unless given). */
    readonly readYourWrites: ReadYourWrites = new ReadYourWrites({ enabled: false }),
  ) {}

  /**
   * A client for a kind known by `GroupVersionKind` (`{ group: 'apps', version: 'v1', kind: 'Deployment' }`) or by
   * `apiVersion` and kind, resolved through the cluster's RESTMapper (controller-runtime's client maps GVKs lazily the
   * same way); objects are `Unstructured`. Rejects with a `NoKindMatchError` naming the kind when it is not served.
   */
  async forKind<T extends KubeObject = Unstructured>(kind: GroupVersionKind | string, kindOrNamespace?: string, namespace?: string): Promise<CachedResourceClient<T>> {
    if (!this.mapper) throw new Error('this client has no RESTMapper: use resource(info) with a ResourceInfo');
    const gvk = typeof kind === 'string' ? { ...parseGroupVersion(kind), kind: kindOrNamespace ?? '' } : kind;
    const ns = typeof kind === 'string' ? namespace : kindOrNamespace;
    const mapping = await this.mapper().restMapping({ group: gvk.group, kind: gvk.kind }, gvk.version);
    return this.resource<T>(mapping.info, ns);
  }

  /**
   * A client with no cache behind it: reads and writes go straight to `transport` (controller-runtime's API reader).
   * For unit tests of reconcilers written against the manager's client (`CachedClient.direct(fake.transport)`), and
   * for reads that must not be stale.
   */
  static direct(transport: Transport): CachedClient {
    return new CachedClient(transport, () => undefined);
  }

  /**
   * This client writing as `owner` (controller-runtime's `client.WithFieldOwner`): every create, update, patch and
   * apply that names no `fieldManager` names `owner` (see `withFieldOwner`). Same cache, same read-your-writes.
   */
  withFieldOwner(owner: string): CachedClient {
    return new CachedClient(withFieldOwner(this.transport, owner), this.lookup, this.metadataLookup, this.mapper, this.readYourWrites);
  }

  /** A client for `info`, scoped to `namespace` for namespaced kinds (unset = all namespaces). */
  resource<T extends KubeObject>(info: ResourceInfo, namespace?: string): CachedResourceClient<T> {
    return new CachedResourceClient<T>(this.transport, info, namespace, this.lookup, undefined, this.readYourWrites);
  }

  /**
   * A metadata-only client for `info` (controller-runtime's client with `PartialObjectMetadata`): `get` and `list`
   * return `apiVersion`, `kind` and `metadata` only, from the manager's metadata informer for the kind when there is
   * one and it has synced (`Manager.getMetadataInformer`, `owns(..., { metadataOnly: true })`), else from the API as
   * `PartialObjectMetadata`. Writes (e.g. a metadata `patch`, `delete`) go to the API as usual.
   */
  metadata(info: ResourceInfo, namespace?: string): CachedResourceClient<KubeObject> {
    return new CachedResourceClient<KubeObject>(this.transport, info, namespace, this.metadataLookup, 'metadata', this.readYourWrites);
  }
}
