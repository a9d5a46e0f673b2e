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
import type { Registry } from 'prom-client';
import { SharedInformerFactory, type InformerOptions } from '../cache/factory.js';
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
import { EventBroadcaster, type EventRecorder } from '../events/event-recorder.js';
import type { WebhookServer } from '../webhook/server.js';
import { setupSignalHandler } from './signals.js';

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

/**
 * Settings of a {@link Manager} (controller-runtime's `manager.Options`). Only `transport` is required; leader
 * election is off unless `leaderElection` is set, and then `leaderElectionId` is required.
 */
export interface ManagerOptions {
  transport: Transport;
  /** Restrict the cache to one namespace (default all). */
  namespace?: string;
  /** Cache resync period (default none). */
  resyncPeriodMs?: number;
  /**
   * How the cache's informers get their state: WatchList streams or list + watch (`ReflectorOptions.watchList`).
   * Default `KUBEGEN_WATCH_LIST`, else `'auto'`: WatchList where the apiserver supports it (1.27+ with the feature
   * on), list + watch elsewhere.
   */
  watchList?: WatchListMode;
  /** `/metrics` address, default `:8080`; `"0"` disables. */
  metricsBindAddress?: string;
  /**
   * Serve `/metrics` over HTTPS to authenticated and authorized clients only (controller-runtime's
   * `SecureServing` with `filters.WithAuthenticationAndAuthorization`): each scrape's bearer token is checked with a
   * TokenReview and a SubjectAccessReview (`get` on the non-resource URL `/metrics`) through this manager's
   * transport, whose identity then needs `create` on `tokenreviews` and `subjectaccessreviews`. Default false (plain
   * HTTP, anyone who reaches the port), as controller-runtime's library default; the scaffold turns it on.
   */
  metricsSecureServing?: boolean;
  /**
   * With `metricsSecureServing`: folder of the metrics serving certificate (`tls.crt`, `tls.key`), reloaded when it
   * changes. Default: a self-signed certificate made at start.
   */
  metricsCertDir?: string;
  /** Cache lifetimes of the metrics authentication (`withAuthenticationAndAuthorization` options). */
  metricsAuth?: AuthFilterOptions;
  /** `/healthz` + `/readyz` address; default `""`/`"0"`: disabled. */
  healthProbeBindAddress?: string;
  readinessEndpointName?: string;
  livenessEndpointName?: string;
  leaderElection?: boolean;
  /** Lease name (required with leader election). */
  leaderElectionId?: string;
  /** Lease namespace: default `namespace`, else the in-cluster service-account namespace. */
  leaderElectionNamespace?: string;
  leaderElectionIdentity?: string;
  /** Release the Lease on shutdown so a successor takes over at once (only safe if the process then exits). */
  leaderElectionReleaseOnCancel?: boolean;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Default 30 s; how long in-flight work may take to finish on shutdown. */
  gracefulShutdownTimeoutMs?: number;
  /** Default 2 min. */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
  /**
   * Admission and conversion webhooks served by this manager. It listens before the cache starts (the cache may
   * need a conversion webhook to list a multi-version kind), on every replica, and `/readyz` includes a `webhook`
   * check that passes once it serves.
   */
  webhookServer?: WebhookServer;
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
  private readonly informers = new Map<string, SharedIndexInformer<KubeObject>>();
  private readonly metadataInformers = new Map<string, SharedIndexInformer<KubeObject>>();
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
    this.client = new CachedClient(opts.transport, (info, ns) => this.informers.get(infoKey(info, ns)), (info, ns) => this.metadataInformers.get(infoKey(info, ns)));
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

  /** The shared informer for `info` (all namespaces, or the manager's namespace); its reads back `getClient()`. */
  getInformer<T extends KubeObject>(info: ResourceInfo, opts: Omit<InformerOptions<T>, 'namespace' | 'labelSelector' | 'fieldSelector'> = {}): SharedIndexInformer<T> {
    const informer = this.cache.informerFor<T>(info, opts);
    this.informers.set(infoKey(info, info.namespaced ? (this.opts.namespace ?? '') : ''), informer as unknown as SharedIndexInformer<KubeObject>);
    return informer;
  }

  /**
   * The cache's metadata-only informer for `info` (see `SharedInformerFactory.metadataInformerFor`), created on first
   * use and started with the cache. `getClient().metadata(info)` reads from it once it has synced.
   */
  getMetadataInformer(info: ResourceInfo, opts: Omit<InformerOptions<KubeObject>, 'namespace' | 'labelSelector' | 'fieldSelector'> = {}): SharedIndexInformer<KubeObject> {
    const informer = this.cache.metadataInformerFor(info, opts);
    this.metadataInformers.set(infoKey(info, info.namespaced ? (this.opts.namespace ?? '') : ''), informer);
    return informer;
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
    try {
      this.cache.start();
      await this.cache.waitForCacheSync({ timeoutMs: this.opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS, signal });
      this.cacheSynced = true;
      log.info('caches synced');
      const nonLeader = this.runnables.filter((r) => !this.needsLeader(r)).map((r) => this.runOne(r, stopAll.signal));
      if (this.elector) {
        const elector = this.elector;
        const stopElection = new AbortController();
        const onAbort = (): void => stopElection.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        await elector.run(stopElection.signal);
        signal.removeEventListener('abort', onAbort);
        lost = !signal.aborted;
        if (lost) stopAll.abort(new LeaderElectionLostError());
      } else {
        await Promise.all([this.lead(signal), waitAbort(signal)]);
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
    await waitAbort(signal);
    this.leaderPhase = undefined;
    this.logger.info('stopping leader-only runnables', { count: phase.running.length });
    await this.bounded(Promise.all(phase.running).then(() => undefined));
  }

  /** Waits for the runnable's informers, then runs it; never rejects. */
  private async runOne(r: Runnable, signal: AbortSignal): Promise<void> {
    try {
      const informers = r.informers?.() ?? [];
      if (informers.length > 0) {
        this.cache.start();
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
    return this.elector !== undefined && (r.needLeaderElection ?? true);
  }
}

function infoKey(info: ResourceInfo, namespace: string): string {
  return `${info.group}/${info.version}/${info.resource}@${namespace}`;
}

function waitAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
