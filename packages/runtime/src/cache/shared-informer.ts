import { realClock, type Clock } from '../clock.js';
import type { KubeObject, ResourceInfo } from '../client/types.js';
import { getLogger, type Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { metricsRegistry } from '../metrics/registry.js';
import { InformerLatency, registerInformerMetrics, type InformerMetricsHandle } from './informer-metrics.js';
import { Indexer, metaNamespaceIndexFunc, NAMESPACE_INDEX, type Indexers, type ReadonlyIndexer } from './indexer.js';
import { DeletedFinalStateUnknown } from './keys.js';
import { Lister } from './lister.js';
import { ProcessorListener, type ResourceEventHandler } from './listener.js';
import { Reflector } from './reflector.js';
import type { ListerWatcher, ReflectorOptions, ReflectorPhase, ReflectorStore } from './reflector-types.js';
import { internStrings } from './intern-strings.js';
import { SharedProcessor } from './shared-processor.js';
import { StoreWaiters } from './store-waiters.js';
import { deepFreeze, mutationDetectorFromEnv, type TransformFunc } from './transform.js';
import { InformerStoppedError, MIN_RESYNC_PERIOD_MS, type HandlerOptions, type HandlerRegistration, type SharedIndexInformerOptions } from './shared-informer-types.js';

export { InformerStoppedError, MIN_RESYNC_PERIOD_MS } from './shared-informer-types.js';
export type { HandlerOptions, HandlerRegistration, SharedIndexInformerOptions } from './shared-informer-types.js';

/**
 * One list+watch of a resource kept in an indexed cache, shared by any number of handlers (client-go
 * `SharedIndexInformer`).
 *
 * Contract:
 * - The cache is written only by the informer, as watch events arrive; handlers are notified afterwards,
 *   asynchronously, each through its own unbounded buffer and delivery loop, in the order of the changes.
 *   A slow, throwing or hanging handler delays only itself.
 * - Objects handed out (to handlers, by the indexer, by listers) are the cached objects themselves, shared by
 *   everyone: treat them as read-only. `freezeObjects` (or `KUBEGEN_CACHE_MUTATION_DETECTOR=true`) enforces it.
 * - A relist that finds objects gone delivers `onDelete(DeletedFinalStateUnknown)` carrying their last known state.
 *   A relist that finds an object at the same resourceVersion delivers nothing for it.
 * - Errors are logged and reported to the watch error handler; the informer keeps retrying until stopped.
 */
export class SharedIndexInformer<T extends KubeObject> {
  /**
   * The informer's name: in its log lines (`informer`), its errors and, as the `name` label, its metrics. The
   * factories name an informer after its key (`informerKey`: resource, namespace, selectors), behind the factory's
   * `informerName` if it has one, unless asked for another.
   */
  readonly name: string;
  /** The kind it caches, when known (see {@link SharedIndexInformerOptions.resource}). */
  readonly resource: Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind'> | undefined;
  private readonly indexer: Indexer<T>;
  private readonly reflector: Reflector<T>;
  /** The handlers' listeners and their resyncs. */
  private readonly processor: SharedProcessor<T>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly defaultResyncMs: number;
  private readonly freeze: boolean;
  private transform: TransformFunc<T> | undefined;
  /** The object stored last: the one new objects share their strings with (see `finish`). */
  private lastStored: T | undefined;
  private watchErrorHandler: ((err: unknown, phase: ReflectorPhase) => void) | undefined;
  private readonly errorListeners = new Set<(err: unknown, phase: ReflectorPhase) => void>();
  private synced = false;
  private syncWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private lastFailure: { error: unknown; phase: ReflectorPhase } | undefined;
  private runPromise: Promise<void> | undefined;
  private isStopped = false;
  /** See `lastStoreSyncResourceVersion`; the `waitForStore` callers are checked after every change to the store. */
  private storeRV = '';
  private readonly storeWaiters: StoreWaiters;
  private readonly registry: Registry;
  /** The informer's series while it runs (with `resource`). */
  private metrics: InformerMetricsHandle | undefined;
  /** The handlers' notifications are timed into it: `informer_processing_latency_seconds` (with `resource`). */
  private readonly latency: InformerLatency | undefined;

  constructor(lw: ListerWatcher<T>, opts: SharedIndexInformerOptions<T> = {}) {
    this.name = opts.name ?? 'informer';
    this.clock = opts.clock ?? realClock;
    this.storeWaiters = new StoreWaiters(this.clock);
    this.log = (opts.logger ?? getLogger()).child({ informer: this.name });
    this.defaultResyncMs = opts.resyncPeriodMs ?? 0;
    this.freeze = opts.freezeObjects ?? mutationDetectorFromEnv();
    this.transform = opts.transform;
    this.indexer = new Indexer<T>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc, ...opts.indexers });
    this.processor = new SharedProcessor<T>(this.clock, { values: () => this.indexer.values(), synced: () => this.synced });
    this.resource = opts.resource;
    this.registry = opts.registry ?? metricsRegistry;
    if (opts.resource) {
      const { group, version, resource } = opts.resource;
      this.latency = new InformerLatency({ name: this.name, group, version, resource }, this.clock);
    }
    const { resyncPeriodMs: _r, indexers: _i, transform: _t, freezeObjects: _f, resource: _res, registry: _reg, ...reflectorOpts } = opts;
    this.reflector = new Reflector<T>(lw, this.sink(), {
      ...reflectorOpts,
      name: this.name,
      clock: this.clock,
      logger: opts.logger ?? getLogger(),
      onWatchStall: (quietMs) => {
        this.metrics?.countStall();
        opts.onWatchStall?.(quietMs);
      },
      onError: (err, phase) => {
        this.lastFailure = { error: err, phase };
        this.watchErrorHandler?.(err, phase);
        for (const listener of this.errorListeners) listener(err, phase);
      },
    });
  }

  /**
   * Registers a handler. If the informer already holds objects, the handler first gets `onAdd(obj, true)` for each.
   */
  addEventHandler(handler: ResourceEventHandler<T>, opts: HandlerOptions = {}): HandlerRegistration {
    let resync = opts.resyncPeriodMs ?? this.defaultResyncMs;
    if (resync > 0 && resync < MIN_RESYNC_PERIOD_MS) resync = MIN_RESYNC_PERIOD_MS;
    const listener = new ProcessorListener<T>(handler, resync, this.log, this.latency);
    if (this.isStopped) {
      this.log.info('handler added to a stopped informer; it will receive nothing');
    } else {
      this.processor.addListener(listener, this.runPromise !== undefined);
    }
    return {
      hasSynced: () => listener.hasSynced(),
      whenSynced: () => listener.whenSynced(),
      remove: () => this.processor.removeListener(listener),
      whenIdle: () => listener.whenIdle(),
    };
  }

  /** Replaces the transform; only before `run` (client-go refuses it once started). */
  setTransform(transform: TransformFunc<T> | undefined): void {
    if (this.runPromise) throw new Error(`informer ${this.name} has already started; set the transform before run()`);
    this.transform = transform;
  }

  /** Called with every list/watch error the informer recovers from. Must not throw. */
  setWatchErrorHandler(handler: (err: unknown, phase: ReflectorPhase) => void): void {
    this.watchErrorHandler = handler;
  }

  /**
   * Also calls `listener` with every list/watch error (besides the one `setWatchErrorHandler` handler); returns the
   * function that removes it. Listeners must not throw. How a source notices its kind went away (a 404 on relist).
   */
  addErrorListener(listener: (err: unknown, phase: ReflectorPhase) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /** Adds index functions; objects already cached are indexed at once. */
  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  /** The cache, read-only: the informer owns its content (a view of the store, not a copy). */
  getIndexer(): ReadonlyIndexer<T> {
    return this.indexer;
  }

  /** A lister over this informer's cache. */
  lister(): Lister<T> {
    return new Lister(this.indexer);
  }

  /** True once the first list has been stored. */
  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Resolves once the first list has been stored; rejects with an {@link InformerStoppedError} when the informer
   * stops before that (so that nobody waits forever on an informer that was removed).
   */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.isStopped) return Promise.reject(new InformerStoppedError(this.name));
    return new Promise((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
  }

  /**
   * The last list or watch error the informer recovered from, and its phase (`list` before the first sync): what a
   * controller waiting for this informer reports as the reason. Cleared by every list that stores the state.
   */
  lastError(): { error: unknown; phase: ReflectorPhase } | undefined {
    return this.lastFailure;
  }

  /** The resourceVersion of the last list, event or bookmark. */
  get lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion;
  }

  /**
   * The resourceVersion of the last list, watch event or bookmark applied to this informer's store (`''` before the
   * first list): client-go 1.36's `Store.LastStoreSyncResourceVersion()` (the KEP-5647 plumbing). Unlike
   * `lastSyncResourceVersion` it moves only once the change is in the store, so a reader that sees it at or past the
   * resourceVersion of its own write (see `compareResourceVersions`) finds that write, or a later state, in the cache.
   */
  get lastStoreSyncResourceVersion(): string {
    return this.storeRV;
  }

  /**
   * Resolves `true` as soon as `condition()` holds — checked at once, then after every list, event or bookmark the
   * store applies — or `false` when `timeoutMs` passes, `signal` aborts or the informer stops first. `condition` must
   * be cheap and must not throw (it runs on the informer's event path). How read-your-writes waits for the cache.
   */
  waitForStore(condition: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.storeWaiters.wait(condition, timeoutMs, signal, this.isStopped);
  }

  /**
   * Since when (clock ms) nothing has arrived, once the informer's watch was stopped for delivering nothing (no
   * event, no bookmark) past its idle timeout (`ReflectorOptions.idleTimeoutMs`); undefined while the watch is
   * healthy. The next event, bookmark or list clears it. The manager's `informer-watches` readiness check fails
   * while any informer of its cache has it set.
   */
  get watchStalledSince(): number | undefined {
    return this.reflector.watchStalledSince;
  }

  /** Notifications pushed to the handlers and not handled yet (`informer_queued_items`). */
  get queuedItems(): number {
    return this.processor.pending;
  }

  get started(): boolean {
    return this.runPromise !== undefined;
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  /** Starts listing and watching; resolves after `stop()` or once `signal` aborts and everything has wound down. */
  run(signal?: AbortSignal): Promise<void> {
    if (this.runPromise) return this.runPromise;
    if (this.isStopped) return Promise.resolve();
    this.processor.startResyncs();
    if (this.latency) {
      this.metrics = registerInformerMetrics(this.registry, this.latency, {
        queuedItems: () => this.queuedItems,
        storeResourceVersion: () => this.storeRV,
        watchStalled: () => this.reflector.watchStalledSince !== undefined,
      }, this.log);
    }
    this.runPromise = this.reflector.run(signal).then(() => this.teardown());
    return this.runPromise;
  }

  /** Stops the watch, the resync timers and every handler's delivery (pending notifications are dropped). */
  async stop(): Promise<void> {
    this.isStopped = true;
    if (!this.runPromise) {
      this.teardown();
      return;
    }
    await this.reflector.stop();
    await this.runPromise;
  }

  private teardown(): void {
    this.isStopped = true;
    this.metrics?.release();
    this.metrics = undefined;
    this.storeWaiters.stopAll();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w.reject(new InformerStoppedError(this.name));
    this.processor.stop();
  }

  /** The reflector's view of this informer: store writes that also notify handlers. */
  private sink(): ReflectorStore<T> {
    return {
      replace: (items, rv) => this.applied(rv, () => this.onReplace(items, rv)),
      add: (obj) => this.applied(obj.metadata?.resourceVersion, () => this.onUpsert(obj)),
      update: (obj) => this.applied(obj.metadata?.resourceVersion, () => this.onUpsert(obj)),
      delete: (obj) => this.applied(obj.metadata?.resourceVersion, () => this.onDelete(obj)),
      setResourceVersion: (rv) => this.applied(rv, () => this.indexer.setResourceVersion(rv)),
    };
  }

  /** Applies one change to the store, then records its resourceVersion and wakes the `waitForStore` callers it satisfies. */
  private applied(rv: string | undefined, apply: () => void): void {
    try {
      apply();
    } finally {
      if (rv) this.storeRV = rv;
      this.storeWaiters.check();
    }
  }

  /** The object as it will be stored: transformed, and frozen when asked (see `prepare`). */
  private transformed(obj: T): T {
    if (!this.transform) return obj;
    try {
      return this.transform(obj);
    } catch (err) {
      this.log.error('transform failed; storing the object as received', { error: err instanceof Error ? err.message : String(err) });
      return obj;
    }
  }

  /**
   * Readies a transformed object for the store: its strings shared with `like` (the version it replaces, else the
   * object stored before it; see intern-strings.ts), then frozen when asked.
   */
  private finish(obj: T, like: T | undefined): T {
    internStrings(obj, like ?? this.lastStored);
    this.lastStored = obj;
    return this.freeze ? deepFreeze(obj) : obj;
  }

  /** Transform and freeze, for objects that are not stored (deletions). */
  private prepare(obj: T): T {
    const out = this.transformed(obj);
    return this.freeze ? deepFreeze(out) : out;
  }

  private onUpsert(raw: T): void {
    const transformed = this.transformed(raw);
    const key = this.indexer.keyOf(transformed);
    const obj = this.finish(transformed, this.indexer.getByKey(key));
    const old = this.indexer.put(key, obj);
    if (old === undefined) this.processor.add(obj, false);
    else this.processor.update(old, obj);
  }

  private onDelete(raw: T): void {
    const obj = this.prepare(raw);
    const old = this.indexer.deleteByKey(this.indexer.keyOf(obj));
    if (old === undefined) return; // never seen: nothing to tell (client-go ignores it too)
    this.processor.delete(obj);
  }

  private onReplace(items: T[], rv: string): void {
    const initial = !this.synced;
    const seen = new Set<string>();
    for (const raw of items) {
      let key: string;
      let transformed: T;
      try {
        transformed = this.transformed(raw);
        key = this.indexer.keyOf(transformed);
      } catch (err) {
        this.log.error('skipping a listed object without a key', { error: err instanceof Error ? err.message : String(err) });
        continue;
      }
      seen.add(key);
      const old = this.indexer.getByKey(key);
      if (old === undefined) {
        const obj = this.finish(transformed, old);
        this.indexer.put(key, obj);
        this.processor.add(obj, initial);
      } else if (old.metadata?.resourceVersion !== transformed.metadata?.resourceVersion || !transformed.metadata?.resourceVersion) {
        const obj = this.finish(transformed, old);
        this.indexer.put(key, obj);
        this.processor.update(old, obj);
      }
    }
    if (this.indexer.size > seen.size) {
      const gone: [string, T][] = [];
      for (const [key, obj] of this.indexer.entries()) if (!seen.has(key)) gone.push([key, obj]);
      for (const [key, obj] of gone) {
        this.indexer.deleteByKey(key);
        const tombstone = new DeletedFinalStateUnknown(key, obj);
        this.processor.delete(tombstone);
      }
    }
    this.indexer.setResourceVersion(rv);
    this.lastFailure = undefined;
    if (!this.synced) {
      this.synced = true;
      this.processor.markInitialListPushed();
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const w of waiters) w.resolve();
      this.log.debug('synced', { objects: this.indexer.size, resourceVersion: rv });
    }
  }
}
