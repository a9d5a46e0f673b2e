/**
 * `Cluster` (controller-runtime `pkg/cluster`): what controllers need of one Kubernetes cluster — its transport,
 * its informer factory and the cache over it (per-kind settings, counted holds), the cache-backed client, the
 * RESTMapper and event recorders. A `Manager` has one (its own cluster) and adds the servers, leader election and runnables around it; a
 * multi-cluster manager has one per engaged cluster.
 *
 * Lifecycle: informers may be asked for at any time; `start()` starts those that exist and every later one at once;
 * `stop()` stops them all, flushes pending events and leaves the cluster unusable. Nothing here retries on its own
 * account: informers retry their lists and watches, the event broadcaster its writes.
 */
import { withFieldOwner } from '../client/field-owner.js';
import { SharedInformerFactory } from '../cache/factory.js';
import type { WatchListMode } from '../cache/reflector-types.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import { EventBroadcaster, type EventRecorder } from '../events/event-recorder.js';
import { getLogger, type Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { CachedClient } from './cached-client.js';
import { ReadYourWrites, type ReadYourWritesOptions } from './read-your-writes.js';
import { ClusterCache, type CacheOptions, type FieldExtractFunc, type InformerRequest } from './cluster-cache.js';
import type { GroupVersionKind } from '../discovery/types.js';
import { DynamicRESTMapper } from '../restmapper/dynamic-mapper.js';
import { isNoMatchError } from '../restmapper/types.js';

/** Waits between attempts to resolve a kind that is not served yet: 0.5 s, doubling, at most 30 s. */
const KIND_WAIT_BACKOFF_MS = [500, 30_000] as const;

/** Settings of a {@link Cluster}; only `transport` is required. */
export interface ClusterOptions {
  transport: Transport;
  /** Names the cluster in logs (and, with many clusters, in requests and metrics). Default `''`: the local cluster. */
  name?: string;
  /** Restrict the cache to one namespace (default all; `cache` may say otherwise per kind). */
  namespace?: string;
  /** Per-kind cache settings and defaults (controller-runtime's `cache.Options`). */
  cache?: CacheOptions;
  /** Resync period of the cache's informers (default none). */
  resyncPeriodMs?: number;
  /** WatchList or list + watch for the cache's informers (`ReflectorOptions.watchList`). */
  watchList?: WatchListMode;
  /**
   * Read-your-writes of the cluster's client and controllers (on by default, 5 s bound): see
   * {@link ReadYourWritesOptions}; `{ enabled: false }` turns it off.
   */
  readYourWrites?: ReadYourWritesOptions;
  /** Registry of the informers' and read-your-writes metrics (default the runtime's `metricsRegistry`). */
  registry?: Registry;
  /**
   * The field manager of every write of the cluster's client that names none (`getClient()`; see `withFieldOwner`).
   * Unset: applies name the transport's or the program's, other writes none (the apiserver derives one from the
   * User-Agent). Event recorders and leader election write as before.
   */
  fieldOwner?: string;
  clock?: Clock;
  logger?: Logger;
}

/** One cluster's cache, client and recorders (see the module comment). */
export class Cluster {
  readonly name: string;
  readonly transport: Transport;
  /** The informer factory behind the cache: one informer (one watch) per kind and cache options. */
  readonly informers: SharedInformerFactory;
  /** The cache: which informers serve a kind, with its settings, and counted holds on them. */
  readonly cache: ClusterCache;
  readonly clock: Clock;
  /** The writes of the cluster's client its cache may not show yet: what cache reads and reconciles wait for. */
  readonly readYourWrites: ReadYourWrites;
  private readonly log: Logger;
  private readonly client: CachedClient;
  private events: EventBroadcaster | undefined;
  private mapper: DynamicRESTMapper | undefined;
  private crdWatch: AbortController | undefined;
  private stopped = false;

  constructor(opts: ClusterOptions) {
    this.name = opts.name ?? '';
    this.transport = opts.transport;
    this.clock = opts.clock ?? realClock;
    const base = opts.logger ?? getLogger();
    this.log = this.name ? base.child({ cluster: this.name }) : base;
    const informerName = opts.cache?.informerName ?? this.name;
    this.informers = new SharedInformerFactory(opts.transport, {
      ...(informerName ? { informerName } : {}),
      ...(opts.registry ? { registry: opts.registry } : {}),
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      resyncPeriodMs: opts.resyncPeriodMs ?? 0,
      ...(opts.watchList !== undefined ? { reflector: { watchList: opts.watchList } } : {}),
      clock: this.clock,
      logger: this.log,
    });
    this.cache = new ClusterCache(this.informers, { ...opts.cache, namespace: opts.namespace, logger: this.log.child({ component: 'cache' }) });
    this.readYourWrites = new ReadYourWrites({ ...opts.readYourWrites, clock: this.clock, ...(opts.registry ? { registry: opts.registry } : {}) });
    this.client = new CachedClient(
      opts.fieldOwner ? withFieldOwner(opts.transport, opts.fieldOwner) : opts.transport,
      (info, ns, o) => this.cache.lookup(info, ns, false, o?.unsynced),
      (info, ns, o) => this.cache.lookup(info, ns, true, o?.unsynced),
      () => this.getRESTMapper(),
      this.readYourWrites,
    );
  }

  /** Reads from the cache for kinds it holds (once synced), writes to the API. */
  getClient(): CachedClient {
    return this.client;
  }

  /** The cache's informers for `info`, one per cached namespace, created on first use and held until `stop`. */
  getInformers<T extends KubeObject>(info: ResourceInfo, opts: InformerRequest = {}): SharedIndexInformer<T>[] {
    return this.cache.informers<T>(info, opts);
  }

  /** The cache's metadata-only informers for `info`, one per cached namespace. */
  getMetadataInformers(info: ResourceInfo, opts: { keepManagedFields?: boolean } = {}): SharedIndexInformer<KubeObject>[] {
    return this.cache.metadataInformers(info, opts.keepManagedFields ?? false);
  }

  /**
   * A counted hold on the informers of `info` (see `ClusterCache.acquire`): what a controller's sources take when
   * they start and give back when they stop, so that a kind nobody watches any more is no longer cached.
   */
  acquireInformers(info: ResourceInfo, req: InformerRequest = {}, metadataOnly = false): { informers: SharedIndexInformer<KubeObject>[]; release: () => Promise<void> } {
    return this.cache.acquire(info, req, metadataOnly);
  }

  /** Calls `listener` when the selection of `info` changes (a sharded kind's: see `ClusterCache.scopeKind`). */
  onScopeChange(info: ResourceInfo, listener: () => void): () => void {
    return this.cache.onScopeChange(info, listener);
  }

  /** Indexes the cached objects of `info` by `field` (see `Manager.indexField`). */
  indexField<T extends KubeObject>(info: ResourceInfo, field: string, extract: FieldExtractFunc<T>): void {
    this.cache.indexField(info, field, extract);
  }

  /** A recorder of Events whose `source.component` is `name`; all recorders of the cluster share one broadcaster. */
  getEventRecorderFor(name: string): EventRecorder {
    this.events ??= new EventBroadcaster({ transport: this.transport, clock: this.clock, logger: this.log.child({ component: 'events' }) });
    return this.events.newRecorder(name);
  }

  /**
   * The cluster's RESTMapper (a `DynamicRESTMapper` over its transport), made on first use. Lazy: it asks discovery
   * only when a lookup needs it; `waitForKind` also starts its watch of CustomResourceDefinitions, which keeps it
   * current (that needs `list` and `watch` on `customresourcedefinitions`; without them it refreshes on misses).
   */
  getRESTMapper(): DynamicRESTMapper {
    this.mapper ??= new DynamicRESTMapper(this.transport, { logger: this.log, clock: this.clock });
    return this.mapper;
  }

  /**
   * Resolves with the `ResourceInfo` of `kind` once the cluster serves it — for a CRD, once it is established and in
   * discovery — waiting meanwhile (woken by the mapper's CRD watch, else asking again after 0.5 s, doubling up to
   * 30 s); undefined when `signal` aborts first. `onWaiting` gets each reason it waits (a `NoKindMatchError`, or
   * the error that kept discovery from answering). How a controller's source waits for a kind installed later.
   */
  async waitForKind(kind: GroupVersionKind, signal: AbortSignal, onWaiting?: (reason: unknown) => void): Promise<ResourceInfo | undefined> {
    const mapper = this.getRESTMapper();
    this.watchCrds();
    let backoff: number = KIND_WAIT_BACKOFF_MS[0];
    while (!signal.aborted) {
      try {
        return (await mapper.restMapping({ group: kind.group, kind: kind.kind }, kind.version)).info;
      } catch (err) {
        if (signal.aborted) break;
        onWaiting?.(err);
      }
      await new Promise<void>((resolve) => {
        const done = (): void => {
          off();
          this.clock.clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const off = mapper.onCrdChange((group) => group === kind.group && done());
        const timer = this.clock.setTimeout(done, backoff);
        signal.addEventListener('abort', done, { once: true });
      });
      backoff = Math.min(backoff * 2, KIND_WAIT_BACKOFF_MS[1]);
    }
    return undefined;
  }

  /**
   * Resolves with the reason (a `NoKindMatchError`) once `kind` is no longer served — its CRD deleted, or the version
   * no longer served — as the mapper's CRD watch sees it; undefined when `signal` aborts first.
   */
  whenKindGone(kind: GroupVersionKind, signal: AbortSignal): Promise<unknown> {
    const mapper = this.getRESTMapper();
    this.watchCrds();
    return new Promise((resolve) => {
      const done = (reason: unknown): void => {
        off();
        signal.removeEventListener('abort', aborted);
        resolve(reason);
      };
      const aborted = (): void => done(undefined);
      const off = mapper.onCrdChange((group) => {
        if (group !== kind.group) return;
        mapper.restMapping({ group: kind.group, kind: kind.kind }, kind.version).then(
          () => undefined,
          (err: unknown) => isNoMatchError(err) && done(err),
        );
      });
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
  }

  /**
   * Starts the RESTMapper's watch of CustomResourceDefinitions, once for the cluster's life (until `stop`), so that
   * the mapper follows CRDs as they come and go and its `onCrdChange` listeners hear of each change. `waitForKind`
   * and `whenKindGone` start it themselves; a controller that follows every kind the cluster serves (a generic one,
   * such as examples/ttl-janitor) starts it before it has any kind to wait for. Needs `list` and `watch` on
   * `customresourcedefinitions`.
   */
  watchCrds(): void {
    if (this.crdWatch || this.stopped) return;
    this.crdWatch = new AbortController();
    this.getRESTMapper()
      .start(this.crdWatch.signal)
      .catch((err: unknown) => this.log.error('the RESTMapper stopped watching CustomResourceDefinitions', { error: err }));
  }

  /** Starts the cache: the informers asked for so far, and every later one at once. */
  start(): void {
    if (!this.stopped) this.cache.start();
  }

  /** True when every started informer has synced. */
  hasSynced(): boolean {
    return this.informers.hasSynced();
  }

  /** Stops every informer and flushes pending events; resolves once both are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.crdWatch?.abort();
    await this.informers.shutdown();
    await this.events?.shutdown();
  }
}
