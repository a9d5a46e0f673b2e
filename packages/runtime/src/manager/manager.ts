/**
 * `Manager` (controller-runtime `pkg/manager`): owns one shared informer cache and a cache-backed client for all its
 * controllers, the `/metrics` server and the `/healthz` + `/readyz` probes, and optional leader election on a
 * coordination.k8s.io/v1 Lease.
 *
 * `start(signal?)`: serve metrics, probes and webhooks → start the cache → start the runnables that run on every
 * replica and, once the Lease is held (or at once without leader election), the leader-only ones (controllers) →
 * run until `signal` aborts or `stop()` is called. With warm standby (`enableWarmup`), a replica waiting for the Lease starts its controllers'
 * sources (informers, handlers filling the queues) at once, and their workers once it leads: a new leader reconciles
 * at once instead of syncing first, and a standby is ready once those sources have synced. Each controller waits for its own sources (informers) to sync, not for the whole
 * cache: one kind that cannot sync (forbidden, not installed) holds back only the controllers that watch it, and
 * `/readyz` fails, naming them (`/readyz/controller-<name>` says why), until it has. `/readyz/informer-watches` fails
 * while an informer's watch has been silent past its deadline (no event, no bookmark), naming the kind, until events
 * resume.
 *
 * Start or exit: a failure while starting or running — a server that cannot listen or read its certificate, a Lease
 * the identity may not read or write, a runnable that throws — stops the manager: the probes close first (nothing
 * answers ok for a failed manager), then everything is shut down as below, and `start` rejects with an error naming
 * the cause in its message. Shutdown: runnables are told to stop (controllers stop taking work and abort in-flight
 * signals) and given `gracefulShutdownTimeoutMs` (30 s) to finish; then the Lease is released (if
 * `leaderElectionReleaseOnCancel`), the cache and servers stop, and `start` settles. Losing the Lease while running
 * shuts down the same way and rejects with {@link LeaderElectionLostError} (the caller should exit non-zero).
 */
import { whenAborted } from '../abort.js';
import type { Registry } from '../metrics/prom.js';
import type { SharedInformerFactory } from '../cache/factory.js';
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
import { DEFAULT_METRICS_BIND_ADDRESS, MetricsServer } from '../metrics/server/server.js';
import { withAuthenticationAndAuthorization, type AuthFilterOptions } from '../metrics/server/auth-filter.js';
import type { CachedClient } from '../cluster/cached-client.js';
import { Cluster } from '../cluster/cluster.js';
import type { ClusterCache, FieldExtractFunc, InformerRequest } from '../cluster/cluster-cache.js';
import { DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS, type ManagerOptions } from './manager-options.js';
import { ControllerDefaults } from './controller-defaults.js';
import { ShardLostError, type ManagerShard } from './manager-sharding.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { WebhookServer } from '../webhook/server.js';
import { runWithSignals } from './signals.js';
import { inClusterNamespace, listenInTurn } from './manager-support.js';
import { LeaderElectionLostError } from './errors.js';
import { HeldControllerNames } from './controller-names.js';
import { Runnables, type Runnable } from './runnables.js';
import { enableTracingIfConfigured } from '../tracing/otel.js';

export type { ManagerOptions, ManagerShardingOptions, ShardingMode } from './manager-options.js';
export { DEFAULT_CACHE_SYNC_TIMEOUT_MS, DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS } from './manager-options.js';
export { detectShardingMode, ManagerShard, ShardLostError } from './manager-sharding.js';
export { RunnableError } from './runnables.js';
export { LeaderElectionLostError } from './errors.js';
export type { Runnable } from './runnables.js';


/**
 * Runs controllers and other runnables over one shared cache, with metrics, probes and optional leader election
 * (controller-runtime's `manager.Manager`; lifecycle in the module comment). Call `start` once; `add` adds runnables.
 */
export class Manager {
  /** The manager's own cluster: transport, cache, cached client, event recorders (controller-runtime's `cluster.Cluster`). */
  readonly cluster: Cluster;
  /**
   * The manager's cache (controller-runtime's `Manager.GetCache()`): the informers `getClient()` reads from, by
   * kind, with the per-kind settings of `ManagerOptions.cache`; the same object as `cluster.cache`.
   */
  readonly cache: ClusterCache;
  /** The informer factory beneath the cache (`cluster.informers`): informers by exact key, sync and stall status. */
  readonly informers: SharedInformerFactory;
  /** What the builder reads to make a controller: the controller defaults of the options and the sharding hook. */
  readonly controllerDefaults: ControllerDefaults;
  readonly transport: Transport;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly elector: LeaderElector | undefined;
  private readonly opts: ManagerOptions;
  private readonly runnables: Runnables;
  private readonly metricsServer: MetricsServer;
  private readonly probeServer: HealthProbeServer;
  private state: 'new' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed' = 'new';
  /** Stops everything: aborted by `start`'s signal, a fatal error, or lost leadership. */
  private stopAll: AbortController | undefined;
  /** Why the manager failed (the first fatal error), if it did. */
  private failure: unknown;
  /** Aborted by `stop()`; `run` is `start`'s promise (undefined before `start`). */
  private readonly stopRequest = new AbortController();
  private run: Promise<void> | undefined;
  /** The controller names this manager holds in its registry (see `controller-names.ts`). */
  private readonly names: HeldControllerNames;

  constructor(opts: ManagerOptions) {
    this.opts = opts;
    this.transport = opts.transport;
    this.logger = (opts.logger ?? getLogger()).child({ component: 'manager' });
    this.registry = opts.registry ?? metricsRegistry;
    this.names = new HeldControllerNames(this.registry);
    // client-go's rest_client_* series from every transport of the process, on the registry this manager serves.
    registerRestClientMetrics(this.registry);
    this.clock = opts.clock ?? realClock;
    this.cluster = new Cluster({
      transport: opts.transport,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.cache ? { cache: opts.cache } : {}),
      ...(opts.resyncPeriodMs !== undefined ? { resyncPeriodMs: opts.resyncPeriodMs } : {}),
      ...(opts.watchList !== undefined ? { watchList: opts.watchList } : {}),
      ...(opts.readYourWrites ? { readYourWrites: opts.readYourWrites } : {}),
      ...(opts.fieldOwner ? { fieldOwner: opts.fieldOwner } : {}),
      registry: this.registry,
      clock: this.clock,
      logger: opts.logger ?? getLogger(),
    });
    this.informers = this.cluster.informers;
    this.cache = this.cluster.cache;
    this.controllerDefaults = new ControllerDefaults(opts, () => ({
      transport: this.transport,
      cache: this.cache,
      defaultLeaseNamespace: () => this.opts.leaderElectionNamespace ?? this.opts.namespace ?? inClusterNamespace(),
      namespace: this.opts.namespace,
      logger: this.logger,
      registry: this.registry,
      clock: this.clock,
    }));
    this.runnables = new Runnables({
      // A sharded manager runs them while it holds its shard Lease, as a leader while it holds the leader Lease.
      needsLeader: (r) => (this.elector !== undefined || this.controllerDefaults.shard !== undefined) && (r.needLeaderElection ?? true),
      // Warm standby is for leader election: a sharded replica's controller runs at once on its own shard.
      warmsUp: (r) => this.elector !== undefined && typeof r.warmup === 'function',
      startCache: () => this.cluster.start(),
      fail: (err) => this.fail(err),
      gracefulShutdownTimeoutMs: opts.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS,
      clock: this.clock,
      log: this.logger,
    });
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
    // Every started informer has synced (the controllers' own checks say which controller waits for which).
    this.probeServer.addReadyzCheck('cache-sync', () => this.state === 'running' && this.informers.hasSynced());
    // A watch silent past its deadline (no event, no bookmark): the cache may be stale until events resume.
    this.probeServer.addReadyzCheck('informer-watches', () => {
      const stalled = this.informers.stalledWatches();
      if (stalled.length > 0) throw new Error(`watch silent past its deadline: ${stalled.map((w) => `${w.kind} (${w.name}) for ${Math.round(w.silentForMs / 1000)} s`).join('; ')}`);
      return true;
    });
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
        onStartedLeading: (signal) => this.runnables.runLeaderOnly(signal),
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
    return this.cache.informers<T>(info, opts);
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
    return this.cache.metadataInformers(info, opts.keepManagedFields ?? false);
  }

  /**
   * Indexes the cached objects of `info` by `field` (controller-runtime's `GetFieldIndexer().IndexField`): `extract`
   * returns the values an object is found under, and `getClient().resource(info, ns).list({ fieldSelector:
   * 'field=value' })` is then answered from that index. Call before `start`, once per kind and field.
   */
  indexField<T extends KubeObject>(info: ResourceInfo, field: string, extract: FieldExtractFunc<T>): void {
    this.cache.indexField(info, field, extract);
  }

  /**
   * With `ManagerOptions.sharding`: this replica's shard of the sharded controller, once the builder has built it
   * (undefined otherwise). Objects the reconciler creates for an owner carry `shard.labelsFor(owner)`, so that they
   * land in this replica's cache at once.
   */
  get shard(): ManagerShard | undefined {
    return this.controllerDefaults.shard;
  }

  /** The webhook server passed in the options, if any (controller-runtime's `GetWebhookServer`). */
  getWebhookServer(): WebhookServer | undefined {
    return this.opts.webhookServer;
  }

  /** Reads from the cache for kinds with an informer (see `getInformer`), writes to the API. */
  getClient(): CachedClient {
    return this.cluster.getClient();
  }

  /**
   * A recorder of Kubernetes Events whose `source.component` is `name` (controller-runtime's
   * `GetEventRecorderFor`). Events are written in the background (aggregated, rate limited, retried); the manager
   * flushes them when it stops. All recorders share one broadcaster, created on first use.
   */
  getEventRecorderFor(name: string): EventRecorder {
    return this.cluster.getEventRecorderFor(name);
  }

  /**
   * Adds a runnable (e.g. a controller). Added after start, it is started at once (leader-only ones once leading).
   * A runnable with `syncStatus` (a controller) gets a readiness check `controller-<name>`; names must be unique.
   */
  add(r: Runnable): void {
    if (r.syncStatus) {
      if (!r.name) throw new TypeError('a runnable with syncStatus needs a name');
      this.names.claim(r);
      const status = r.syncStatus.bind(r);
      this.probeServer.addReadyzCheck(`controller-${r.name}`, () => {
        const s = status();
        if (!s.synced) throw new Error(`not synced: ${s.pending.map((p) => `${p.source}${p.reason ? ` (${p.reason})` : ''}`).join('; ')}`);
        return true;
      });
    }
    this.runnables.add(r);
  }

  /**
   * Stops a runnable (a controller) added to this manager and forgets it: it stops taking work, its in-flight
   * reconciles finish (bounded by the graceful shutdown timeout), its sources give back their informers (a kind no
   * other controller watches stops being cached) and its readiness check goes. Resolves once it has stopped.
   */
  async remove(r: Runnable): Promise<void> {
    if (r.syncStatus && r.name && this.runnables.list.includes(r)) {
      this.probeServer.removeReadyzCheck(`controller-${r.name}`);
      this.names.release(r);
    }
    await this.runnables.remove(r);
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
  /** True while running with every started informer synced and every controller's sources synced. */
  get ready(): boolean {
    return this.state === 'running' && this.informers.hasSynced() && this.runnables.list.every((r) => !r.syncStatus || r.syncStatus().synced);
  }


  /**
   * Runs until `signal` aborts or `stop()` is called (without a signal: until `stop()`), then shuts down gracefully;
   * rejects when the manager failed (see the module comment: the error's message names the cause). Call once.
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.state !== 'new') throw new Error('manager already started');
    this.state = 'starting';
    this.run = this.runUntil(signal ? AbortSignal.any([signal, this.stopRequest.signal]) : this.stopRequest.signal);
    return this.run;
  }

  /**
   * Stops the manager as `start`'s signal would. Resolves once it has shut down, failed or not (`start` reports a
   * failure); before `start`, resolves at once and a later `start` returns without starting anything.
   */
  async stop(reason?: unknown): Promise<void> {
    this.stopRequest.abort(reason);
    await this.run?.catch(() => undefined);
  }

  private async runUntil(signal: AbortSignal): Promise<void> {
    const stopAll = new AbortController();
    this.stopAll = stopAll;
    const forwardStop = (): void => stopAll.abort(signal.reason);
    if (signal.aborted) forwardStop();
    else signal.addEventListener('abort', forwardStop, { once: true });
    const log = this.logger;
    let leading: Promise<void> | undefined;
    try {
      await enableTracingIfConfigured(this.opts.tracerProvider);
      await this.listen(stopAll.signal);
      if (!stopAll.signal.aborted) {
        this.cluster.start();
        this.state = 'running';
        this.runnables.startEverywhere(stopAll.signal);
        leading = this.campaign(stopAll.signal).catch((err: unknown) => this.fail(err));
        await whenAborted(stopAll.signal);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      signal.removeEventListener('abort', forwardStop);
      stopAll.abort();
      this.state = this.failure === undefined ? 'stopping' : 'failed';
      // A failed manager stops answering probes at once: nothing may report it healthy while it winds down.
      if (this.failure !== undefined) await this.probeServer.close();
      await Promise.all([this.runnables.whenEverywhereStopped(), leading && this.runnables.withinGracePeriod(leading)]);
      await this.cluster.stop();
      await this.opts.webhookServer?.close();
      await this.metricsServer.close();
      await this.probeServer.close();
      if (this.failure === undefined) this.state = 'stopped';
      this.names.releaseAll();
      log.info('stopped');
    }
    // The caller reports it (once): `runMain` logs one line and exits 1.
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * `start` with a SIGTERM/SIGINT handler installed for the run (the first signal stops the manager gracefully, a
   * second exits the process with 1 at once; see `setupSignalHandler`). The handler is removed when `start` settles,
   * so a later signal has Node's default effect. Resolves after shutdown; rejects as `start` does.
   */
  async startWithSignals(): Promise<void> {
    await runWithSignals((signal) => this.start(signal));
  }

  /** Records the first fatal error and stops everything (see the module comment). */
  private fail(err: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.stopAll?.abort(err);
  }

  /** Listens on the metrics, probe and webhook addresses; an error names the server. */
  private listen(signal: AbortSignal): Promise<void> {
    return listenInTurn(signal, [
      ['metrics server', () => this.metricsServer.listen()],
      ['health probe server', () => this.probeServer.listen()],
      ['webhook server', async () => this.opts.webhookServer?.listen()],
    ]);
  }

  /** Runs the leader-only runnables: at once, while holding the shard Lease, or while leading the election. */
  private async campaign(signal: AbortSignal): Promise<void> {
    const shard = this.controllerDefaults.shard;
    if (shard) {
      if (await shard.run(signal, (s) => this.runnables.runLeaderOnly(s))) this.fail(new ShardLostError());
    } else if (this.elector) {
      await this.elector.run(signal);
      if (!signal.aborted) this.fail(new LeaderElectionLostError());
    } else {
      await this.runnables.runLeaderOnly(signal);
    }
  }

}
