/**
 * `Manager` (controller-runtime `pkg/manager`): owns one shared informer cache and a cache-backed client for all its
 * controllers, the `/metrics` server and the `/healthz` + `/readyz` probes, and optional leader election on a
 * coordination.k8s.io/v1 Lease.
 *
 * `start(signal)`: serve metrics/probes → start the cache and wait for it to sync (readyz turns ready) → if leader
 * election is on, campaign and start the leader-only runnables (controllers) once the Lease is held → run until
 * `signal` aborts. Shutdown: runnables are told to stop (controllers stop taking work and abort in-flight signals)
 * and given `gracefulShutdownTimeoutMs` (30 s) to finish; then the Lease is released (if
 * `leaderElectionReleaseOnCancel`), the cache and servers stop, and `start` resolves. Losing the Lease while
 * running shuts down the same way and rejects with {@link LeaderElectionLostError} (the caller should exit non-zero).
 */
import { readFileSync } from 'node:fs';
import { whenAborted } from '../abort.js';
import type { Registry } from '../metrics/prom.js';
import { SharedInformerFactory } from '../cache/factory.js';
import type { WatchListMode } from '../cache/reflector-types.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import { HealthProbeServer } from '../healthz/health-probe-server.js';
import type { HealthChecker } from '../healthz/checks.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LeaderElector,
} from '../leaderelection/leader-elector.js';
import { getLogger, type Logger } from '../log.js';
import { metricsRegistry } from '../metrics/registry.js';
import { registerRestClientMetrics } from '../client/metrics.js';
import { DEFAULT_METRICS_BIND_ADDRESS, MetricsServer } from '../metrics/server.js';
import { withAuthenticationAndAuthorization, type AuthFilterOptions } from '../metrics/auth-filter.js';
import { CachedClient } from './cached-client.js';
import { ManagerCache, type FieldExtractFunc, type InformerRequest } from './manager-cache.js';
import type { ManagerOptions } from './manager-options.js';
import { newManagerShard, runAsShard, ShardLostError } from './manager-sharding.js';
import type { Shard } from '../sharding/shard.js';
import { EventBroadcaster, type EventRecorder } from '../events/event-recorder.js';
import type { WebhookServer } from '../webhook/server.js';
import { setupSignalHandler } from './signals.js';

export type { ManagerOptions, ManagerShardingOptions } from './manager-options.js';
export { ShardLostError } from './manager-sharding.js';

/** Default `gracefulShutdownTimeoutMs`: the time runnables get to stop on shutdown (30 s, as controller-runtime). */
export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS = 30_000;
/** Default `cacheSyncTimeoutMs`: how long `start` waits for the cache to sync (2 min, as controller-runtime). */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/** Something the manager runs: resolves once it has stopped after `signal` aborted. */
export interface Runnable {
  start(signal: AbortSignal): Promise<void>;
  /** Default true: only run while this process leads (ignored when leader election is off). */
  readonly needLeaderElection?: boolean;
  /** Informers that must have synced before `start` is called. */
  informers?(): SharedIndexInformer<KubeObject>[];
}

/** `start` rejected: leadership was lost while running. */
export class LeaderElectionLostError extends Error {
  constructor() {
    super('leader election lost');
    this.name = 'LeaderElectionLostError';
  }
}

/**
 * Runs controllers and other runnables over one shared cache, with metrics, probes and optional leader election
 * (controller-runtime's `manager.Manager`; lifecycle in the module comment). Call `start` once; `add` adds runnables.
 */
export class Manager {
  readonly cache: SharedInformerFactory;
  readonly transport: Transport;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly elector: LeaderElector | undefined;
  private readonly opts: ManagerOptions;
  private readonly objects: ManagerCache;
  private shardOfController: Shard | undefined;
  private readonly runnables: Runnable[] = [];
  private readonly metricsServer: MetricsServer;
  private readonly probeServer: HealthProbeServer;
  private readonly client: CachedClient;
  private readonly leaderAbort = new AbortController();
  private leaderPhase: { signal: AbortSignal; running: Promise<void>[] } | undefined;
  private cacheSynced = false;
  private started = false;

  constructor(opts: ManagerOptions) {
    this.opts = opts;
    this.transport = opts.transport;
    this.logger = (opts.logger ?? getLogger()).child({ component: 'manager' });
    this.registry = opts.registry ?? metricsRegistry;
    // client-go's rest_client_* series from every transport of the process, on the registry this manager serves.
    registerRestClientMetrics(this.registry);
    this.clock = opts.clock ?? realClock;
    this.cache = new SharedInformerFactory(opts.transport, {
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      resyncPeriodMs: opts.resyncPeriodMs ?? 0,
      ...(opts.watchList !== undefined ? { reflector: { watchList: opts.watchList } } : {}),
      clock: this.clock,
      logger: opts.logger ?? getLogger(),
    });
    this.objects = new ManagerCache(this.cache, { ...opts.cache, namespace: opts.namespace, logger: this.logger });
    this.client = new CachedClient(opts.transport, (info, ns) => this.objects.lookup(info, ns, false), (info, ns) => this.objects.lookup(info, ns, true));
    if (!opts.metricsSecureServing && opts.metricsCertDir !== undefined) {
      throw new TypeError('metricsCertDir needs metricsSecureServing: true (plain HTTP has no certificate)');
    }
    this.metricsServer = new MetricsServer({
      bindAddress: opts.metricsBindAddress ?? DEFAULT_METRICS_BIND_ADDRESS,
      registry: this.registry,
      logger: opts.logger ?? getLogger(),
      ...(opts.metricsSecureServing ? {
        secureServing: true,
        ...(opts.metricsCertDir !== undefined ? { certDir: opts.metricsCertDir } : {}),
        filter: withAuthenticationAndAuthorization(opts.transport, { logger: opts.logger ?? getLogger(), clock: this.clock, ...opts.metricsAuth }),
      } : {}),
    });
    this.probeServer = new HealthProbeServer({
      bindAddress: opts.healthProbeBindAddress ?? '',
      ...(opts.readinessEndpointName ? { readinessEndpointName: opts.readinessEndpointName } : {}),
      ...(opts.livenessEndpointName ? { livenessEndpointName: opts.livenessEndpointName } : {}),
      logger: opts.logger ?? getLogger(),
    });
    this.probeServer.addReadyzCheck('cache-sync', () => this.cacheSynced);
    if (opts.webhookServer) this.probeServer.addReadyzCheck('webhook', opts.webhookServer.startedChecker());
    if (opts.leaderElection && opts.sharding) throw new TypeError('leaderElection and sharding exclude each other: a sharded controller runs on every replica');
    if (opts.leaderElection) {
      if (!opts.leaderElectionId) throw new TypeError('leaderElectionId is required when leader election is enabled');
      const namespace = opts.leaderElectionNamespace ?? opts.namespace ?? inClusterNamespace();
      if (!namespace) throw new TypeError('leaderElectionNamespace is required when not running in a cluster');
      this.elector = new LeaderElector({
        transport: opts.transport,
        namespace,
        name: opts.leaderElectionId,
        ...(opts.leaderElectionIdentity ? { identity: opts.leaderElectionIdentity } : {}),
        leaseDurationMs: opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
        renewDeadlineMs: opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
        retryPeriodMs: opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
        releaseOnCancel: opts.leaderElectionReleaseOnCancel ?? false,
        clock: this.clock,
        logger: opts.logger ?? getLogger(),
        registry: this.registry,
        onStartedLeading: (signal) => this.lead(signal),
      });
    }
  }

  /**
   * The cache's informer for `info` (settings from `ManagerOptions.cache`), created on first use and started with the
   * cache; its store backs `getClient()` reads. A kind cached in several namespaces has one informer per namespace:
   * use `getInformers`. `stripManagedFields` fixes the kind's managedFields decision (see `ObjectCacheOptions`).
   */
  getInformer<T extends KubeObject>(info: ResourceInfo, opts: InformerRequest = {}): SharedIndexInformer<T> {
    const informers = this.getInformers<T>(info, opts);
    if (informers.length !== 1) throw new TypeError(`${info.resource} is cached in ${informers.length} namespaces: use getInformers()`);
    return informers[0]!;
  }

  /** The cache's informers for `info`: one per cached namespace (see `ObjectCacheOptions.namespaces`). */
  getInformers<T extends KubeObject>(info: ResourceInfo, opts: InformerRequest = {}): SharedIndexInformer<T>[] {
    return this.objects.informers<T>(info, opts);
  }

  /**
   * The cache's metadata-only informer for `info` (see `SharedInformerFactory.metadataInformerFor`), created on first
   * use and started with the cache. `getClient().metadata(info)` reads from it once it has synced.
   */
  getMetadataInformer(info: ResourceInfo, opts: { keepManagedFields?: boolean } = {}): SharedIndexInformer<KubeObject> {
    const informers = this.getMetadataInformers(info, opts);
    if (informers.length !== 1) throw new TypeError(`${info.resource} is cached in ${informers.length} namespaces: use getMetadataInformers()`);
    return informers[0]!;
  }

  /** The cache's metadata-only informers for `info`, one per cached namespace. */
  getMetadataInformers(info: ResourceInfo, opts: { keepManagedFields?: boolean } = {}): SharedIndexInformer<KubeObject>[] {
    return this.objects.metadataInformers(info, opts.keepManagedFields ?? false);
  }

  /**
   * Indexes the cached objects of `info` by `field` (controller-runtime's `GetFieldIndexer().IndexField`): `extract`
   * returns the values an object is found under, and `getClient().resource(info, ns).list({ fieldSelector:
   * 'field=value' })` is then answered from that index. Call before `start`, once per kind and field.
   */
  indexField<T extends KubeObject>(info: ResourceInfo, field: string, extract: FieldExtractFunc<T>): void {
    this.objects.indexField(info, field, extract);
  }

  /**
   * With `ManagerOptions.sharding`: this replica's shard of the sharded controller, once the builder has built it
   * (undefined otherwise). Objects the reconciler creates for an owner carry `shard.labelsFor(owner)`, so that they
   * land in this replica's cache at once.
   */
  get shard(): Shard | undefined {
    return this.shardOfController;
  }

  /**
   * Called by the builder for a controller with `for(info)`: with sharding on, makes the replica's shard for it
   * (ring name: the controller's, unless set), narrows the cache of `info` and `owned` to the shard's label and
   * returns it; undefined without sharding. A manager shards one controller: a second one is refused.
   */
  shardController(name: string, info: ResourceInfo, owned: readonly ResourceInfo[]): Shard | undefined {
    const sharding = this.opts.sharding;
    if (!sharding) return undefined;
    if (this.shardOfController) {
      throw new Error(`the manager already shards ${this.shardOfController.ringName}: a sharded manager runs one sharded controller (${name} would run unsharded on every replica)`);
    }
    this.shardOfController = newManagerShard(
      {
        transport: this.transport,
        cache: this.objects,
        sharding,
        leaseNamespace: sharding.leaseNamespace ?? this.opts.leaderElectionNamespace ?? this.opts.namespace ?? inClusterNamespace(),
        namespace: this.opts.namespace,
        logger: this.logger,
        registry: this.registry,
        clock: this.clock,
      },
      name,
      info,
      owned,
    );
    return this.shardOfController;
  }

  /** The webhook server passed in the options, if any (controller-runtime's `GetWebhookServer`). */
  getWebhookServer(): WebhookServer | undefined {
    return this.opts.webhookServer;
  }

  /** Reads from the cache for kinds with an informer (see `getInformer`), writes to the API. */
  getClient(): CachedClient {
    return this.client;
  }

  /**
   * A recorder of Kubernetes Events whose `source.component` is `name` (controller-runtime's
   * `GetEventRecorderFor`). Events are written in the background (aggregated, rate limited, retried); the manager
   * flushes them when it stops. All recorders share one broadcaster, created on first use.
   */
  getEventRecorderFor(name: string): EventRecorder {
    this.events ??= new EventBroadcaster({ transport: this.transport, clock: this.clock, logger: this.logger.child({ component: 'events' }) });
    return this.events.newRecorder(name);
  }

  /** Adds a runnable (e.g. a controller). Added after start, it is started at once (leader-only ones once leading). */
  add(r: Runnable): void {
    this.runnables.push(r);
    if (!this.started) return;
    if (!this.needsLeader(r)) void this.runOne(r, this.stopSignal!);
    else if (this.leaderPhase) this.leaderPhase.running.push(this.runOne(r, this.leaderPhase.signal));
  }

  addHealthzCheck(name: string, check: HealthChecker): void {
    this.probeServer.addHealthzCheck(name, check);
  }

  addReadyzCheck(name: string, check: HealthChecker): void {
    this.probeServer.addReadyzCheck(name, check);
  }

  /** Bound `host:port` of `/metrics` once started (undefined when disabled); served over HTTPS with `metricsSecureServing`. */
  get metricsAddress(): string | undefined {
    return this.metricsServer.address;
  }

  /** Bound `host:port` of the probes once started (undefined when disabled). */
  get healthProbeAddress(): string | undefined {
    return this.probeServer.address;
  }

  /** True once the cache has synced. */
  get ready(): boolean {
    return this.cacheSynced;
  }

  private stopSignal: AbortSignal | undefined;
  private events: EventBroadcaster | undefined;

  /** Runs until `signal` aborts, then shuts down gracefully (see class doc). Call once. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error('manager already started');
    this.started = true;
    // Non-leader runnables stop on `signal` and also when leadership is lost (the whole manager stops then).
    const stopAll = new AbortController();
    const forwardStop = (): void => stopAll.abort(signal.reason);
    if (signal.aborted) forwardStop();
    else signal.addEventListener('abort', forwardStop, { once: true });
    this.stopSignal = stopAll.signal;
    const log = this.logger;
    await this.metricsServer.listen();
    await this.probeServer.listen();
    await this.opts.webhookServer?.listen();
    let lost = false;
    let shardLost = false;
    try {
      this.objects.start();
      await this.cache.waitForCacheSync({ timeoutMs: this.opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS, signal });
      this.cacheSynced = true;
      log.info('caches synced');
      const nonLeader = this.runnables.filter((r) => !this.needsLeader(r)).map((r) => this.runOne(r, stopAll.signal));
      if (this.shardOfController) {
        shardLost = await runAsShard(this.shardOfController, signal, (s) => this.lead(s), log);
        if (shardLost) stopAll.abort(new ShardLostError());
      } else if (this.elector) {
        const elector = this.elector;
        const stopElection = new AbortController();
        const onAbort = (): void => stopElection.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        await elector.run(stopElection.signal);
        signal.removeEventListener('abort', onAbort);
        lost = !signal.aborted;
        if (lost) stopAll.abort(new LeaderElectionLostError());
      } else {
        await Promise.all([this.lead(signal), whenAborted(signal)]);
      }
      await this.bounded(Promise.all(nonLeader).then(() => undefined));
    } catch (err) {
      if (!signal.aborted) log.error('manager failed', { error: err });
      if (!signal.aborted) throw err;
    } finally {
      signal.removeEventListener('abort', forwardStop);
      stopAll.abort();
      await this.cache.shutdown();
      await this.events?.shutdown();
      await this.opts.webhookServer?.close();
      await this.metricsServer.close();
      await this.probeServer.close();
      log.info('stopped');
    }
    if (lost) {
      log.error('leader election lost');
      throw new LeaderElectionLostError();
    }
    if (shardLost) {
      log.error('shard lease lost');
      throw new ShardLostError();
    }
  }

  /** `start` with a SIGTERM/SIGINT handler installed (see {@link setupSignalHandler}); resolves after shutdown. */
  startWithSignals(): Promise<void> {
    return this.start(setupSignalHandler());
  }

  /** Runs the leader-only runnables until `signal` aborts; resolves when they stopped or the grace period passed. */
  private async lead(signal: AbortSignal): Promise<void> {
    const phase = { signal, running: [] as Promise<void>[] };
    this.leaderPhase = phase;
    for (const r of this.runnables) if (this.needsLeader(r)) phase.running.push(this.runOne(r, signal));
    await whenAborted(signal);
    this.leaderPhase = undefined;
    this.logger.info('stopping leader-only runnables', { count: phase.running.length });
    await this.bounded(Promise.all(phase.running).then(() => undefined));
  }

  /** Waits for the runnable's informers, then runs it; never rejects. */
  private async runOne(r: Runnable, signal: AbortSignal): Promise<void> {
    try {
      const informers = r.informers?.() ?? [];
      if (informers.length > 0) {
        this.objects.start();
        await this.cache.waitForCacheSync({ timeoutMs: this.opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS, signal });
      }
      if (signal.aborted) return;
      await r.start(signal);
    } catch (err) {
      if (!signal.aborted) this.logger.error('runnable failed', { error: err });
    }
  }

  /** `p`, but resolves anyway after the graceful shutdown timeout (logging what was abandoned). */
  private bounded(p: Promise<void>): Promise<void> {
    const ms = this.opts.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS;
    return new Promise<void>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.logger.error('graceful shutdown timed out; abandoning in-flight work', { gracefulShutdownTimeoutMs: ms });
        resolve();
      }, ms);
      void p.then(() => {
        this.clock.clearTimeout(timer);
        resolve();
      });
    });
  }

  private needsLeader(r: Runnable): boolean {
    // A sharded manager runs them while it holds its shard Lease, as a leader while it holds the leader Lease.
    return (this.elector !== undefined || this.shardOfController !== undefined) && (r.needLeaderElection ?? true);
  }
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
