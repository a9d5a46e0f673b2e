/**
 * The manager's cache (controller-runtime `pkg/cache` with `cache.Options`): for each kind, the informers that serve
 * it — one per cached namespace — built from that kind's {@link ObjectCacheOptions} (`CacheOptions.byObject`) over
 * the cache-wide defaults, plus the field indexes its cached client lists by (`indexField`).
 *
 * A kind's settings are fixed when its first informer is made (like a `SharedInformerFactory`'s resync and
 * transform), with one exception: whether `metadata.managedFields` is dropped. Unless the options say, it is dropped
 * for kinds watched only as dependents (`owns()`), whose managedFields a controller never reads, and kept as soon as
 * any other watch or read asks for the kind — a decision taken at the latest when the cache starts, as the informer
 * only sees objects after that.
 */
import type { InformerLease, SharedInformerFactory } from '../cache/factory.js';
import type { IndexFunc, Indexers } from '../cache/indexer.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { stripManagedFields, type TransformFunc } from '../cache/transform.js';
import { resourceKey, type KubeObject, type ResourceInfo } from '../client/types.js';
import type { Logger } from '../log.js';

/** Cache settings of one kind (controller-runtime's `cache.ByObject`); unset ones fall back to the defaults. */
export interface ObjectCacheOptions {
  /**
   * Cache only these namespaces: one informer (one list + watch) per namespace, and the cached client answers reads
   * of other namespaces from the API. Default: the manager's `namespace`, else all namespaces. Ignored for
   * cluster-scoped kinds.
   */
  namespaces?: readonly string[];
  /** Cache only objects with these labels (reads of the kind only ever see those). */
  labelSelector?: string;
  /** Cache only objects matching this field selector (what the apiserver supports for the kind). */
  fieldSelector?: string;
  /** Rewrites every object before it is cached, after managedFields are dropped (see `TransformFunc`). */
  transform?: TransformFunc<KubeObject>;
  /**
   * Drop `metadata.managedFields` from cached objects (a third to a half of a typical object: 10,000 Deployments
   * take 59 MB of heap with them, 23 MB without, `npm run bench:metadata-informer`). Default: true for kinds that are
   * only watched as dependents (`owns()`), false otherwise (see the module comment).
   */
  stripManagedFields?: boolean;
}

/** {@link ObjectCacheOptions} for one kind, named by its `resource`. */
export interface ByObjectCacheOptions extends ObjectCacheOptions {
  resource: ResourceInfo;
}

/** Settings of the manager's cache (controller-runtime's `cache.Options`): per-kind settings and defaults. */
export interface CacheOptions {
  /**
   * Names the cache's informers `<informerName>/<key>` in logs and in their metrics' `name` label (client-go 1.36's
   * `informers.WithInformerName`; see `SharedInformerFactoryOptions.informerName`). Default: the cluster's name when
   * it has one, else none (an informer is called after its key, e.g. `foos.samplecontroller.k8s.io/v1alpha1`).
   */
  informerName?: string;
  byObject?: readonly ByObjectCacheOptions[];
  /** Default of `namespaces` for every kind (overrides the manager's `namespace`). */
  defaultNamespaces?: readonly string[];
  defaultLabelSelector?: string;
  defaultFieldSelector?: string;
  defaultTransform?: TransformFunc<KubeObject>;
  /** Default of `stripManagedFields` for every kind (unset: dependents only). */
  defaultStripManagedFields?: boolean;
}

/** What a caller of `informers()` asks for beyond the kind's settings. */
export interface InformerRequest {
  /**
   * The caller does not read managedFields (`owns()`, a field index): they may go (see the module comment) unless
   * another request for the kind needs them.
   */
  dependentOnly?: boolean;
  /** Fixes the kind's managedFields decision (`getInformer(info, { stripManagedFields })`). */
  stripManagedFields?: boolean;
}

/** Extracts the values of an indexed field from an object (controller-runtime's `client.IndexerFunc`). */
export type FieldExtractFunc<T extends KubeObject = KubeObject> = (obj: T) => readonly string[];

/** The index `indexField(info, field)` adds (controller-runtime's `field:<name>`). */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/** The index value for `value` of a field in `namespace` (`''`: across namespaces), as controller-runtime's. */
export function fieldIndexValue(namespace: string, value: string): string {
  return `${namespace || ALL_NAMESPACES}/${value}`;
}

const ALL_NAMESPACES = '__all_namespaces';

interface KindEntry {
  /** Informers by namespace (`''` = all namespaces, or a cluster-scoped kind). */
  informers: Map<string, SharedIndexInformer<KubeObject>>;
  /** The factory holds behind `informers`, released when the entry goes. */
  leases: InformerLease[];
  /** Holders of the entry: `Infinity` once something holds it for good (`informers()`, `indexField`). */
  holds: number;
  strip: boolean;
  /** The strip decision was set by options or a request, not by the dependents-only default. */
  explicit: boolean;
  /** The strip decision can no longer change (explicit, or objects may have been cached). */
  fixed: boolean;
  /** The version of the kind's scope the entry was made with. */
  scopeVersion: number;
}

/** A selection of a kind's objects that may change over time, e.g. a shard's part of a ring (see `scopeKind`). */
export interface KindScope {
  /** The selection now: a label selector and/or a KEP-5866 shard selector; `version` changes with every change. */
  current(): { labelSelector?: string; shardSelector?: string; version: number };
  /** Calls `listener` after each change; returns the function that removes it. */
  onChange(listener: () => void): () => void;
}

/** The manager's informers, per kind (see the module comment). */
export class ClusterCache {
  private readonly full = new Map<string, KindEntry>();
  private readonly metadata = new Map<string, KindEntry>();
  /** Kinds some announced watch (`expect`) reads with managedFields. */
  private readonly readsManagedFields = new Set<string>();
  /** Selections added to a kind's own (`selectKind`, `scopeKind`), e.g. a shard's. */
  private readonly scopes = new Map<string, KindScope>();
  /** The field indexes of each kind (`indexField`), given to every informer made for it. */
  private readonly fieldIndexes = new Map<string, { info: ResourceInfo; indexers: Indexers<KubeObject> }>();
  private started = false;

  constructor(
    readonly factory: SharedInformerFactory,
    private readonly opts: CacheOptions & { namespace?: string | undefined; logger: Logger },
  ) {}

  /**
   * The informers of `info`, one per cached namespace, created on first use and started with the cache; held until
   * the manager stops.
   */
  informers<T extends KubeObject>(info: ResourceInfo, req: InformerRequest = {}): SharedIndexInformer<T>[] {
    return [...this.hold(info, req, false, Infinity).informers.values()] as unknown as SharedIndexInformer<T>[];
  }

  /** The metadata-only informers of `info` (see `SharedInformerFactory.metadataInformerFor`), one per namespace. */
  metadataInformers(info: ResourceInfo, keepManagedFields = false): SharedIndexInformer<KubeObject>[] {
    return [...this.hold(info, { stripManagedFields: !keepManagedFields }, true, Infinity).informers.values()];
  }

  /**
   * A counted hold on the informers of `info` (metadata-only with `metadataOnly`): started at once when the cache
   * has started; when the last hold is released (and nothing holds the kind for good), its informers stop, their
   * caches are freed and reads of the kind go to the API again. What a controller's sources take and give back.
   */
  acquire(info: ResourceInfo, req: InformerRequest = {}, metadataOnly = false): { informers: SharedIndexInformer<KubeObject>[]; release: () => Promise<void> } {
    const entry = this.hold(info, req, metadataOnly, 1);
    if (this.started) this.factory.start();
    let released = false;
    return {
      informers: [...entry.informers.values()],
      release: async () => {
        if (released) return;
        released = true;
        entry.holds -= 1;
        if (entry.holds > 0) return;
        const kinds = metadataOnly ? this.metadata : this.full;
        if (kinds.get(resourceKey(info)) === entry) kinds.delete(resourceKey(info));
        await Promise.all(entry.leases.map((l) => l.release()));
      },
    };
  }

  private hold(info: ResourceInfo, req: InformerRequest, metadataOnly: boolean, holds: number): KindEntry {
    const entry = this.entry(info, req, metadataOnly);
    entry.holds += holds;
    return entry;
  }

  /**
   * The informers that can answer a read of `info` in `namespace` (`undefined`/`''`: all namespaces), or undefined
   * when the cache does not hold the kind, or not that namespace, or some informer has not synced (unless
   * `unsynced`: then also informers still syncing, e.g. a shard's new ones after its ranges changed).
   */
  lookup(info: ResourceInfo, namespace: string | undefined, metadataOnly: boolean, unsynced = false): SharedIndexInformer<KubeObject>[] | undefined {
    const entry = (metadataOnly ? this.metadata : this.full).get(resourceKey(info));
    if (!entry) return undefined;
    const all = entry.informers.get('');
    const found = all ? [all] : namespace ? [entry.informers.get(namespace)].filter((i) => i !== undefined) : [...entry.informers.values()];
    return found.length > 0 && (unsynced || found.every((i) => i.hasSynced())) ? found : undefined;
  }

  /**
   * Indexes the cached objects of `info` by the values `extract` returns for `field` (controller-runtime's
   * `FieldIndexer.IndexField`), so that the cached client's `list({ fieldSelector: 'field=value' })` is answered
   * from the cache. Every informer of the kind gets the index: those made already and those made later (a sharded
   * kind's, whose informers change with the shard's ranges). From the cache's start the kind is cached for good,
   * unless it is scoped (`scopeKind`), whose informers come and go with their holders. Call once per field; the
   * order against building controllers does not matter.
   */
  indexField<T extends KubeObject>(info: ResourceInfo, field: string, extract: FieldExtractFunc<T>): void {
    const key = resourceKey(info);
    const indexFunc: IndexFunc<KubeObject> = (obj) => {
      const values = extract(obj as T);
      const ns = obj.metadata?.namespace ?? '';
      // Both per namespace and across namespaces, so that either kind of list is one index lookup.
      return ns ? values.flatMap((v) => [fieldIndexValue(ns, v), fieldIndexValue('', v)]) : values.map((v) => fieldIndexValue('', v));
    };
    const indexed = this.fieldIndexes.get(key) ?? { info, indexers: {} };
    if (indexed.indexers[fieldIndexName(field)]) throw new Error(`${key}: field ${JSON.stringify(field)} is already indexed`);
    indexed.indexers[fieldIndexName(field)] = indexFunc;
    this.fieldIndexes.set(key, indexed);
    const entry = this.full.get(key);
    if (entry) for (const informer of entry.informers.values()) addMissingIndexers(informer, indexed.indexers);
    if (this.started) this.holdIndexed(key);
  }

  /** Holds an indexed kind's informers for good (see `indexField`), unless the kind is scoped. */
  private holdIndexed(key: string): void {
    const indexed = this.fieldIndexes.get(key);
    // Indexing does not read managedFields: it leaves the kind's decision to its watches.
    if (indexed && !this.scopes.has(key)) this.informers(indexed.info, { dependentOnly: true });
  }

  /**
   * Adds `labelSelector` to the selector of `info`'s informers (full and metadata-only), e.g. a shard's label. Must
   * come before the kind's first informer: a cache already made without it would hold objects of other shards.
   */
  selectKind(info: ResourceInfo, labelSelector: string): void {
    this.scopeKind(info, { current: () => ({ labelSelector, version: 0 }), onChange: () => () => undefined });
  }

  /**
   * Narrows `info`'s informers (full and metadata-only) to a selection that may change over time — a shard's part
   * of a ring, as a label selector and/or a KEP-5866 shard selector. Must come before the kind's first informer.
   * When it changes, the next hold of the kind gets new informers with the new selection while the old ones serve
   * their holders until released (a controller's `KindSource` moves over: see {@link onScopeChange}).
   */
  scopeKind(info: ResourceInfo, scope: KindScope): void {
    const key = resourceKey(info);
    if (this.full.has(key) || this.metadata.has(key)) {
      throw new Error(`${key} is already cached without its shard's selection: build the sharded controller before asking for its informers`);
    }
    this.scopes.set(key, scope);
  }

  /** Calls `listener` when the selection of `info` changes (see `scopeKind`); returns the remover. */
  onScopeChange(info: ResourceInfo, listener: () => void): () => void {
    return this.scopes.get(resourceKey(info))?.onChange(listener) ?? (() => undefined);
  }

  /**
   * Announces a request that will come later (a controller's source takes its informers when the controller
   * starts): the kind's managedFields decision then counts it, whichever request arrives first.
   */
  expect(info: ResourceInfo, req: InformerRequest): void {
    if (!req.dependentOnly && req.stripManagedFields !== true) this.readsManagedFields.add(resourceKey(info));
  }

  /** Takes every pending managedFields decision (informers start after this); later requests cannot undo it. */
  start(): void {
    for (const key of this.fieldIndexes.keys()) this.holdIndexed(key);
    this.started = true;
    for (const entry of this.full.values()) entry.fixed = true;
    this.factory.start();
  }

  private entry(info: ResourceInfo, req: InformerRequest, metadataOnly: boolean): KindEntry {
    const kinds = metadataOnly ? this.metadata : this.full;
    const key = resourceKey(info);
    const byObject = this.opts.byObject?.find((b) => resourceKey(b.resource) === key);
    const scope = this.scopes.get(key)?.current();
    let entry = kinds.get(key);
    // A selection that changed since the entry was made: a new entry (its holders keep the old one until released).
    if (entry && scope && entry.scopeVersion !== scope.version) entry = undefined;
    if (!entry) {
      const explicit = req.stripManagedFields ?? byObject?.stripManagedFields ?? this.opts.defaultStripManagedFields;
      // A watch announced with `expect` that reads managedFields keeps them, whichever request comes first.
      const dependentOnly = (req.dependentOnly ?? false) && !(metadataOnly ? false : this.readsManagedFields.has(key));
      entry = { informers: new Map(), leases: [], holds: 0, strip: explicit ?? dependentOnly, explicit: explicit !== undefined, fixed: explicit !== undefined || this.started, scopeVersion: scope?.version ?? 0 };
      kinds.set(key, entry);
      if ((metadataOnly ? this.full : this.metadata).has(key)) {
        // controller-runtime's builder warns of the same trap: two caches and two watches of one kind.
        this.opts.logger.warn('this kind is now cached twice, as whole objects and as metadata only (two watches, two caches); watch it one way', { resource: key });
      }
      const e = entry;
      const transform = byObject?.transform ?? this.opts.defaultTransform;
      const strip = stripManagedFields<KubeObject>();
      for (const ns of this.namespacesOf(info, byObject)) {
        const opts = {
          namespace: ns,
          labelSelector: [byObject?.labelSelector ?? this.opts.defaultLabelSelector, scope?.labelSelector].filter(Boolean).join(','),
          fieldSelector: byObject?.fieldSelector ?? this.opts.defaultFieldSelector ?? '',
          ...(scope?.shardSelector ? { shardSelector: scope.shardSelector } : {}),
        };
        const lease = metadataOnly
          ? this.factory.acquire(info, { ...opts, keepManagedFields: !e.strip, ...(transform ? { transform } : {}) }, true)
          : this.factory.acquire(info, {
              ...opts,
              // Read at every object, so the decision may still change until the cache starts.
              transform: (obj) => {
                const lean = e.strip ? strip(obj) : obj;
                return transform ? transform(lean) : lean;
              },
            });
        e.leases.push(lease);
        e.informers.set(ns, lease.informer);
        if (!metadataOnly) addMissingIndexers(lease.informer, this.fieldIndexes.get(key)?.indexers ?? {});
      }
    } else if (entry.strip && !req.dependentOnly && req.stripManagedFields !== true) {
      if (!entry.fixed) entry.strip = false;
      else if (!entry.explicit || req.stripManagedFields === false) {
        this.opts.logger.info('the cache of this kind drops managedFields (decided before this request); reads will not see them', { resource: key });
      }
    }
    return entry;
  }

  private namespacesOf(info: ResourceInfo, byObject: ObjectCacheOptions | undefined): string[] {
    if (!info.namespaced) return [''];
    const list = byObject?.namespaces ?? this.opts.defaultNamespaces ?? (this.opts.namespace ? [this.opts.namespace] : []);
    return list.length === 0 || list.includes('') ? [''] : [...new Set(list)].sort();
  }
}

/** Adds the `indexers` an informer does not have yet (an informer may be shared by two entries of a kind). */
function addMissingIndexers(informer: SharedIndexInformer<KubeObject>, indexers: Indexers<KubeObject>): void {
  const has = informer.getIndexer().getIndexers();
  const missing = Object.fromEntries(Object.entries(indexers).filter(([name]) => !has[name]));
  if (Object.keys(missing).length > 0) informer.addIndexers(missing);
}
