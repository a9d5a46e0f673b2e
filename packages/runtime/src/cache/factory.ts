import { createHash } from 'node:crypto';
import { realClock, type Clock } from '../clock.js';
import { ResourceClient } from '../client/resource-client.js';
import { toPartialObjectMetadata, type KubeObject, type ResourceInfo, type Transport } from '../client/types.js';
import { getLogger, type Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import type { ListerWatcher, ReflectorOptions, WatchListMode } from './reflector-types.js';
import { SharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.js';
import { stripManagedFields, type TransformFunc } from './transform.js';

/** Per-informer options; unset ones fall back to the factory's. */
export interface InformerOptions<T> {
  /**
   * The informer's name in logs and in its metrics' `name` label (see `SharedIndexInformer.name`). Default: the
   * factory's `informerName`, a `/` and the informer's key (`informerKey`), or the key alone. Fixed by the first caller.
   */
  name?: string;
  /** Watch one namespace only; `''`/unset = all namespaces (ignored for cluster-scoped resources). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** A KEP-5866 shard selector (`ListOptions.shardSelector`); part of the informer's key. */
  shardSelector?: string;
  /** Default resync period of the informer's handlers; 0 = none. */
  resyncPeriodMs?: number;
  transform?: TransformFunc<T>;
  indexers?: SharedIndexInformerOptions<T>['indexers'];
  /**
   * WatchList or list + watch for this informer (see `ReflectorOptions.watchList`); default: the factory's
   * `reflector.watchList`, else `KUBEGEN_WATCH_LIST`, else `'auto'`. Fixed by the first caller, like the resync.
   */
  watchList?: WatchListMode;
  /**
   * Metadata informers only: keep `metadata.managedFields` in the cache. By default a metadata informer drops them:
   * they are most of an object's metadata (10,000 Deployments: 4.9 KB per object with them, 0.7 KB without, against
   * 6.2 KB for the whole objects; `npm run bench:metadata-informer`), and owner references, labels and deletion are
   * what metadata informers are for.
   */
  keepManagedFields?: boolean;
}

/**
 * Settings of a `SharedInformerFactory`, applied to every informer it creates (client-go's `WithNamespace`,
 * `WithTweakListOptions`, `WithTransform`). An informer's {@link InformerOptions} override namespace, selectors,
 * resync and transform.
 */
export interface SharedInformerFactoryOptions {
  /**
   * Names the factory's informers (client-go 1.36's `informers.WithInformerName`): each informer is called
   * `<informerName>/<key>` (e.g. `east/foos.samplecontroller.k8s.io/v1alpha1`) in logs and in the `name` label of its
   * metrics, so that the informers of several factories (clusters) in one process stay apart. Default: none, an
   * informer is called after its key.
   */
  informerName?: string;
  /** Registry of the informers' metrics (default the runtime's `metricsRegistry`; see `SharedIndexInformerOptions.resource`). */
  registry?: Registry;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Default resync for every informer; 0 (default) = none. */
  resyncPeriodMs?: number;
  /** Applied to every informer's objects unless the informer has its own. */
  transform?: TransformFunc<KubeObject>;
  logger?: Logger;
  clock?: Clock;
  /**
   * Reflector tuning passed to every informer: page size, timeouts, backoff, and `watchList` (WatchList or list +
   * watch; default `KUBEGEN_WATCH_LIST`, else `'auto'`: WatchList where the apiserver supports it).
   */
  reflector?: Omit<ReflectorOptions, 'name' | 'labelSelector' | 'fieldSelector' | 'shardSelector' | 'clock' | 'logger' | 'onError'>;
  freezeObjects?: boolean;
  /**
   * What an informer lists and watches through (default, and when it returns undefined: a `ResourceClient` of the
   * factory's transport); the dynamic informer factory passes the dynamic client's, whose lists give every item its
   * `apiVersion` and `kind`.
   */
  listerWatcher?: (info: ResourceInfo, namespace: string | undefined, metadataOnly: boolean) => ListerWatcher<KubeObject> | undefined;
}

/** Options of `SharedInformerFactory.waitForCacheSync`: a timeout and an abort signal (client-go's stop channel). */
export interface WaitForCacheSyncOptions {
  /** Reject after this long. Default: wait forever (or until `signal` aborts). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Rejection of `waitForCacheSync`: names the informers that had not synced. */
export class CacheSyncError extends Error {
  readonly unsynced: string[];
  constructor(unsynced: string[], why: string) {
    super(`caches not synced ${why}: ${unsynced.join(', ')}`);
    this.name = 'CacheSyncError';
    this.unsynced = unsynced;
  }
}

/** An informer whose watch has been silent past its deadline (see `SharedInformerFactory.stalledWatches`). */
export interface StalledWatch {
  /** The informer's name (its key, by default). */
  name: string;
  kind: string;
  /** How long nothing (no event, no bookmark, no list) has arrived. */
  silentForMs: number;
}

/**
 * A hold on a shared informer ({@link SharedInformerFactory.acquire}): the informer, and `release()`, which gives the
 * hold back; the informer stops and its cache is freed when the last hold is released.
 */
export interface InformerLease<T extends KubeObject = KubeObject> {
  readonly informer: SharedIndexInformer<T>;
  /** Gives this hold back (once; later calls do nothing). Resolves when a last release has stopped the informer. */
  release(): Promise<void>;
}

/**
 * Hands out one shared informer per resource and options (client-go `SharedInformerFactory`): however many callers
 * ask for `foos` in namespace `a`, there is one informer and one watch. The key is {@link informerKey}: the
 * resource plus namespace, selectors and metadata-only; the resync period and transform are fixed by the first
 * caller.
 *
 * Informers come and go (seam 3 of the runtime design): `acquire` counts holders and `release` of the last one
 * stops that informer alone (its own stop, its `whenSynced` rejects) and forgets it, so a later `acquire` starts a
 * fresh one. `informerFor` hands out informers that are held until `shutdown` (client-go's behaviour).
 */
export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<KubeObject>>();
  private readonly runs = new Map<string, Promise<void>>();
  /** Holders of each informer; `informerFor` holds for good (`Infinity`). */
  private readonly holders = new Map<string, number>();
  private started = false;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private shuttingDown = false;

  constructor(
    private readonly transport: Transport,
    private readonly opts: SharedInformerFactoryOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? getLogger();
  }

  /**
   * The shared informer for `info` with these options, created on first request and kept until `shutdown`. Started
   * by `start()`.
   */
  informerFor<T extends KubeObject>(info: ResourceInfo, opts: InformerOptions<T> = {}): SharedIndexInformer<T> {
    const key = this.keyOf(info, opts, false);
    this.holders.set(key, Infinity);
    return this.sharedInformer(info, opts, false, key);
  }

  /**
   * A counted hold on the shared informer for `info` (metadata-only with `metadataOnly`): created on first request,
   * started at once when the factory has started, stopped and forgotten when the last hold is released.
   */
  acquire<T extends KubeObject>(info: ResourceInfo, opts: InformerOptions<T> = {}, metadataOnly = false): InformerLease<T> {
    const key = this.keyOf(info, opts, metadataOnly);
    const informer = this.sharedInformer(info, opts, metadataOnly, key);
    this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
    if (this.started) this.startOne(key);
    let released = false;
    return {
      informer,
      release: async () => {
        if (released) return;
        released = true;
        const left = (this.holders.get(key) ?? 1) - 1;
        if (left > 0 || this.informers.get(key) !== (informer as unknown as SharedIndexInformer<KubeObject>)) {
          if (left > 0) this.holders.set(key, left);
          return;
        }
        this.holders.delete(key);
        this.informers.delete(key);
        const run = this.runs.get(key);
        this.runs.delete(key);
        await informer.stop();
        await run;
        this.log.debug('informer released and stopped', { informer: informer.name });
      },
    };
  }

  /** How many holds `acquire` has on the informer of `key` (`Infinity` for `informerFor`'s); 0 when there is none. */
  holdersOf(key: string): number {
    return this.holders.get(key) ?? 0;
  }

  /**
   * The shared **metadata-only** informer for `info` (client-go's `metadatainformer`, controller-runtime's
   * `OnlyMetadata`): it lists and watches `PartialObjectMetadata`, so its cache holds each object's `apiVersion`,
   * `kind` (the kind's own) and `metadata` only — no spec or status, and no `managedFields` unless
   * `keepManagedFields` — at a fraction of the memory. For kinds a controller only needs to see come and go, or to
   * map to their owners (`owns(..., { metadataOnly: true })`).
   * Separate from `informerFor(info)`: asking for both keeps two caches.
   */
  metadataInformerFor(info: ResourceInfo, opts: InformerOptions<KubeObject> = {}): SharedIndexInformer<KubeObject> {
    const key = this.keyOf(info, opts, true);
    this.holders.set(key, Infinity);
    return this.sharedInformer(info, opts, true, key);
  }

  /** The key of the informer `informerFor`/`acquire` would hand out for these arguments. */
  keyOf(info: ResourceInfo, opts: Pick<InformerOptions<KubeObject>, 'namespace' | 'labelSelector' | 'fieldSelector' | 'shardSelector'>, metadataOnly: boolean): string {
    return informerKey(info, {
      namespace: info.namespaced ? (opts.namespace ?? this.opts.namespace ?? '') : '',
      labelSelector: opts.labelSelector ?? this.opts.labelSelector ?? '',
      fieldSelector: opts.fieldSelector ?? this.opts.fieldSelector ?? '',
      shardSelector: opts.shardSelector ?? '',
      metadataOnly,
    });
  }

  private sharedInformer<T extends KubeObject>(info: ResourceInfo, opts: InformerOptions<T>, metadataOnly: boolean, key: string): SharedIndexInformer<T> {
    const namespace = info.namespaced ? (opts.namespace ?? this.opts.namespace ?? '') : '';
    const labelSelector = opts.labelSelector ?? this.opts.labelSelector ?? '';
    const fieldSelector = opts.fieldSelector ?? this.opts.fieldSelector ?? '';
    const existing = this.informers.get(key);
    if (existing) return existing as unknown as SharedIndexInformer<T>;
    if (this.shuttingDown) throw new Error('informer factory has been shut down');
    const client = (this.opts.listerWatcher?.(info, namespace || undefined, metadataOnly) as ListerWatcher<T> | undefined)
      ?? new ResourceClient<T>(this.transport, info, namespace || undefined, metadataOnly ? { readAs: 'metadata' } : {});
    const transform = opts.transform ?? (this.opts.transform as TransformFunc<T> | undefined);
    const informer = new SharedIndexInformer<T>(client, {
      ...this.opts.reflector,
      name: opts.name ?? (this.opts.informerName ? `${this.opts.informerName}/${key}` : key),
      resource: { group: info.group, version: info.version, resource: info.resource, kind: info.kind },
      ...(this.opts.registry ? { registry: this.opts.registry } : {}),
      labelSelector: labelSelector || undefined,
      fieldSelector: fieldSelector || undefined,
      shardSelector: opts.shardSelector || undefined,
      resyncPeriodMs: opts.resyncPeriodMs ?? this.opts.resyncPeriodMs ?? 0,
      // Metadata only: the kind's own apiVersion/kind on every object, and nothing but metadata even from a server
      // that answered with whole objects; then the caller's transform.
      transform: metadataOnly ? metadataTransform(info, opts.keepManagedFields ?? false, transform) : transform,
      indexers: opts.indexers,
      ...(opts.watchList !== undefined ? { watchList: opts.watchList } : {}),
      clock: this.clock,
      // Every line of the informer and its reflector names the kind (the informer's name gives the resource).
      logger: this.log.child({ kind: info.kind }),
      freezeObjects: this.opts.freezeObjects,
    });
    this.informers.set(key, informer as unknown as SharedIndexInformer<KubeObject>);
    return informer;
  }

  /**
   * Starts every informer created so far that is not running yet; informers acquired afterwards start at once.
   * Call again after asking for more with `informerFor`.
   */
  start(): void {
    if (this.shuttingDown) return;
    this.started = true;
    for (const key of this.informers.keys()) this.startOne(key);
  }

  private startOne(key: string): void {
    const informer = this.informers.get(key);
    if (!informer || this.runs.has(key) || this.shuttingDown) return;
    this.runs.set(key, informer.run(this.abort.signal));
  }

  /**
   * Resolves once every started informer has synced; rejects with a {@link CacheSyncError} naming the ones that
   * had not when `timeoutMs` passes, `signal` aborts or the informers stop first.
   */
  async waitForCacheSync(opts: WaitForCacheSyncOptions = {}): Promise<void> {
    const started = [...this.informers].filter(([key]) => this.runs.has(key));
    const all = Promise.all(started.map(([, i]) => i.whenSynced()));
    if (opts.timeoutMs === undefined && !opts.signal) {
      await all;
      return;
    }
    const unsynced = (): string[] => started.filter(([, i]) => !i.hasSynced()).map(([key]) => key);
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        done();
        reject(new CacheSyncError(unsynced(), 'before the wait was aborted'));
      };
      const timer =
        opts.timeoutMs === undefined
          ? undefined
          : this.clock.setTimeout(() => {
              done();
              reject(new CacheSyncError(unsynced(), `within ${opts.timeoutMs} ms`));
            }, opts.timeoutMs);
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      all.then(
        () => {
          done();
          resolve();
        },
        () => {
          // An informer stopped before it synced (the factory is shutting down): say which had not.
          done();
          reject(new CacheSyncError(unsynced(), 'before the informers stopped'));
        },
      );
    });
  }

  /** True when every started informer has synced (vacuously, when none has started). */
  hasSynced(): boolean {
    for (const [key, informer] of this.informers) if (this.runs.has(key) && !informer.hasSynced()) return false;
    return true;
  }

  /**
   * The started informers whose watch has been silent past its deadline (`SharedIndexInformer.watchStalledSince`):
   * name, kind and for how long nothing has arrived. What the manager's `informer-watches` readiness check reports.
   */
  stalledWatches(): StalledWatch[] {
    const stalled: StalledWatch[] = [];
    for (const [key, informer] of this.informers) {
      const since = this.runs.has(key) ? informer.watchStalledSince : undefined;
      if (since !== undefined) stalled.push({ name: informer.name, kind: informer.resource?.kind ?? key, silentForMs: this.clock.now() - since });
    }
    return stalled;
  }

  /** Stops every informer and resolves once all have wound down. No informer can be created afterwards. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    this.abort.abort();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await Promise.all(this.runs.values());
  }

  /** Keys of the informers created so far (`resource.group/version[@namespace][?labels][#fields]`, e.g. `foos.samplecontroller.k8s.io/v1alpha1@ns1`). */
  keys(): string[] {
    return [...this.informers.keys()];
  }
}

/** What, besides the resource, makes an informer's cache what it is (see {@link informerKey}). */
export interface InformerKeyOptions {
  /** `''`: all namespaces (or a cluster-scoped resource). */
  namespace: string;
  labelSelector: string;
  fieldSelector: string;
  /** A KEP-5866 shard selector, or `''`. */
  shardSelector?: string;
  metadataOnly: boolean;
}

/**
 * The one key of "a kind with cache options" (seam 5): the resource, namespace, selectors and metadata-only —
 * `[metadata:]resource.group/version[@namespace][?labels][#fields][%shard-selector-digest]`, e.g.
 * `foos.samplecontroller.k8s.io/v1alpha1@ns1`. Informer factories, the manager's cache, informer names in logs and
 * metrics use it; two informers with the same key are the same informer.
 */
export function informerKey(info: Pick<ResourceInfo, 'group' | 'version' | 'resource'>, opts: InformerKeyOptions): string {
  let key = `${opts.metadataOnly ? 'metadata:' : ''}${info.resource}.${info.group || 'core'}/${info.version}`;
  if (opts.namespace) key += `@${opts.namespace}`;
  if (opts.labelSelector) key += `?${opts.labelSelector}`;
  if (opts.fieldSelector) key += `#${opts.fieldSelector}`;
  // A shard selector can be a few kilobytes: the key carries a digest of it.
  if (opts.shardSelector) key += `%${createHash('sha1').update(opts.shardSelector).digest('hex').slice(0, 12)}`;
  return key;
}

/** The transform of a metadata-only informer: `toPartialObjectMetadata`, managedFields dropped unless kept, then `then`. */
function metadataTransform<T extends KubeObject>(info: ResourceInfo, keepManagedFields: boolean, then: TransformFunc<T> | undefined): TransformFunc<T> {
  return (obj: T) => {
    // The partial object shares `metadata` with the freshly decoded `obj`, which nobody else holds: strip in place.
    const partial = toPartialObjectMetadata(obj, info) as T;
    const lean = keepManagedFields ? partial : stripManagedFields<T>()(partial);
    return then ? then(lean) : lean;
  };
}
