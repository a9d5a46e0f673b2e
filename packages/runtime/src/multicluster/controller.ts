/**
 * `MultiClusterController`: one controller over many clusters, as one lane per cluster — the hub's and each engaged
 * member's — each lane a {@link Controller} with its own queue, workers, sources (informers of that cluster) and
 * backoff. Usually built with `newMultiClusterControllerManagedBy()` and run by a `MultiClusterManager`.
 *
 * Contract:
 * - Requests carry their cluster ({@link ClusterRequest}); the reconciler gets it, and in its context the lane's
 *   `Cluster` (cached client, recorder, RESTMapper). Log lines of a lane carry `cluster`, its reconcile spans
 *   `kubegen.cluster` (with links to the watch events that enqueued them); the `kubegen_multicluster_*` metrics carry
 *   it as a label.
 * - Handlers may enqueue a request for any cluster (`{ cluster, namespace, name }`): it goes to that cluster's lane;
 *   a request without `cluster` goes to the lane of the cluster the event came from (for a fan-out watch of a hub
 *   kind, the member lane the source feeds). A request for a cluster that is not engaged is dropped (debug line).
 * - One cluster's trouble stays its own: a member that is unreachable, slow or forbidden parks its own lane (its
 *   informers retry with backoff, its queue backs off per request, its workers are its own), and the other lanes
 *   reconcile at their own pace. A lane whose informers fail after they synced is parked: new requests wait
 *   (collapsed) instead of being reconciled against a cluster out of reach, the cluster's `/version` is asked every
 *   second, and once it answers (or its informers recover) the waiting and failed requests are retried at once, their
 *   backoff reset. `clusterStatus()` and `kubegen_multicluster_cluster_synced` say which is parked and
 *   why.
 * - Disengaging a cluster drains its lane: the lane stops taking work, in-flight reconciles see their signal abort
 *   and are awaited (bounded by `drainTimeoutMs`), its sources give back their informers and its metric series go.
 * - The controller's readiness (`syncStatus`, the manager's `/readyz/controller-<name>`) is the hub lane's: a member
 *   that is down never makes the controller unready.
 */
import type { Cluster } from '../cluster/cluster.js';
import { realClock, type Clock } from '../clock.js';
import { withTimeout } from '../deadline.js';
import { Controller, type ControllerOptions, type SyncStatus } from '../controller/controller.js';
import type { RequestSink } from '../handler/handler.js';
import { isForbidden, isNotFound, isUnauthorized } from '../client/errors.js';
import { explainError } from '../client/forbidden.js';
import { controllerMetrics } from '../controller/metrics.js';
import { getLogger, type Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import type { ReconcileContext, Result } from '../reconcile/reconciler.js';
import type { Source } from '../source/source.js';
import type { AddOptions } from '../workqueue/priority-queue.js';
import { initLaneMetrics, multiClusterMetrics, removeLaneMetrics, type MultiClusterMetrics } from './metrics.js';
import type { ClusterAware } from './provider.js';
import { HUB_CLUSTER, type ClusterRequest, type MaybeClusterRequest } from './request.js';

/** What a multi-cluster reconciler gets besides the request: the usual context plus the request's cluster. */
export interface ClusterReconcileContext extends ReconcileContext {
  /** The cluster of the request (as `MultiClusterManager.getCluster(req.cluster)`): its cached client, recorder, mapper. */
  cluster: Cluster;
}

/** A multi-cluster reconciler as a function: as `ReconcileFunc`, with the request's cluster. */
export type ClusterReconcileFunc = (request: ClusterRequest, ctx: ClusterReconcileContext) => Promise<Result | void> | Result | void;

/** A multi-cluster reconciler as an object. */
export interface ClusterReconciler {
  reconcile: ClusterReconcileFunc;
}

/** Where cluster-aware handlers put requests: with `cluster` for that cluster, without for the event's own. */
export interface ClusterRequestSink extends RequestSink {
  add(request: MaybeClusterRequest): void;
  addWithOpts?(opts: AddOptions, ...requests: MaybeClusterRequest[]): void;
}

/** How one cluster's lane of a controller is doing (`MultiClusterController.clusterStatus`). */
export interface ClusterLaneStatus {
  cluster: string;
  /** Every source of the lane has synced once. */
  synced: boolean;
  /** Synced and no informer of the lane failing now (a member that went away after syncing is synced but not healthy). */
  healthy: boolean;
  /** Why it is not synced or not healthy: the sources and their last errors. */
  reason?: string;
}

/** Settings of a {@link MultiClusterController}. */
export interface MultiClusterControllerOptions {
  /** Names the controller (all its lanes) in logs and metrics. */
  name: string;
  reconciler: ClusterReconciler | ClusterReconcileFunc;
  /** The hub: the lane of {@link HUB_CLUSTER}. */
  hub: Cluster;
  /** The sources of a cluster's lane (the builder makes them from the controller's watches). */
  sourcesFor(clusterName: string, cluster: Cluster): Source[];
  /** Settings of every lane's `Controller` (`maxConcurrentReconciles` is per cluster). */
  controller?: Omit<ControllerOptions, 'name' | 'reconciler' | 'registry' | 'clock' | 'logger' | 'spanAttributes'>;
  /** Default true: runs while the manager leads. */
  needLeaderElection?: boolean;
  /** How long a disengaged cluster's in-flight reconciles are awaited (default 30 s). */
  drainTimeoutMs?: number;
  registry?: Registry;
  clock?: Clock;
  logger?: Logger;
}

/** One cluster's part of the controller. */
interface Lane {
  readonly name: string;
  readonly cluster: Cluster;
  readonly controller: Controller;
  readonly sources: Source[];
  run: Promise<void> | undefined;
  removed: boolean;
  timer: ReturnType<Clock['setTimeout']> | undefined;
  /** Keys whose last reconcile failed, or that came while parked: re-added at once when the cluster is healthy again. */
  readonly failedKeys: Set<string>;
  /** Informer errors from before the cluster was last found reachable again (no longer counted as failing). */
  readonly recovered: WeakSet<object>;
  /** A reachability probe is in flight. */
  probing: boolean;
  /** The lane was healthy at the last status tick. */
  healthy: boolean;
  /** Synced but its informers fail (the cluster is out of reach): new requests wait in `failedKeys`. */
  parked: boolean;
}

const STATUS_PERIOD_MS = 1_000;

/** One controller over the hub and every engaged cluster (see the module comment). */
export class MultiClusterController implements ClusterAware {
  readonly name: string;
  readonly needLeaderElection: boolean;
  private readonly opts: MultiClusterControllerOptions;
  private readonly reconcileFn: ClusterReconcileFunc;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly metrics: MultiClusterMetrics;
  private readonly lanes = new Map<string, Lane>();
  private readonly stopped = new AbortController();
  private running = false;
  private run: Promise<void> | undefined;

  constructor(opts: MultiClusterControllerOptions) {
    if (!opts.name) throw new TypeError('controller name is required');
    this.opts = opts;
    this.name = opts.name;
    this.needLeaderElection = opts.needLeaderElection ?? true;
    const r = opts.reconciler;
    this.reconcileFn = typeof r === 'function' ? r : (req, ctx) => r.reconcile(req, ctx);
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ controller: this.name });
    this.metrics = multiClusterMetrics(opts.registry);
    this.addLane(HUB_CLUSTER, opts.hub);
  }

  /** Puts `request` into its cluster's queue (see the module comment); false when that cluster has no lane. */
  enqueue(request: ClusterRequest, opts?: AddOptions): boolean {
    const lane = this.lanes.get(request.cluster);
    if (!lane || lane.removed) {
      this.log.debug('request for a cluster that is not engaged; dropped', { cluster: request.cluster, namespace: request.namespace, name: request.name });
      return false;
    }
    // The watch event's trace link is kept for the reconcile the request causes, now or once the lane is back.
    const req = { namespace: request.namespace, name: request.name };
    if (lane.parked) {
      // The cluster is out of reach: its requests wait, collapsed, until it is back (no reconcile bound to fail).
      lane.controller.noteEvent(req);
      lane.failedKeys.add(laneKey(request));
      return true;
    }
    if (opts) lane.controller.sink.addWithOpts(opts, req);
    else lane.controller.sink.add(req);
    return true;
  }

  /** Names of the clusters with a lane (the hub's `''` first), sorted. */
  clusters(): string[] {
    return [...this.lanes.keys()].sort();
  }

  /** How each cluster's lane is doing (the hub's first). */
  clusterStatus(): ClusterLaneStatus[] {
    return this.clusters().map((name) => laneStatus(this.lanes.get(name)!));
  }

  /**
   * Each lane's `Controller` (the hub's first), as they are now: what a harness reads to tell whether the controller
   * is idle in every cluster (`kubegen explore`'s settle check, with {@link parkedRequests}).
   */
  laneControllers(): Controller[] {
    return this.clusters().map((name) => this.lanes.get(name)!.controller);
  }

  /**
   * Requests waiting outside any queue in lanes parked now (their cluster's informers failed): they go back to their
   * lane's queue at the first status tick that finds the cluster healthy again.
   */
  parkedRequests(): number {
    let n = 0;
    for (const lane of this.lanes.values()) if (lane.parked) n += lane.failedKeys.size;
    return n;
  }

  /** The hub lane's sync (what the manager's readiness check of this controller reports). */
  syncStatus(): SyncStatus {
    return this.lanes.get(HUB_CLUSTER)!.controller.syncStatus();
  }

  /**
   * Adds `cluster`'s lane under `name` and runs it (once this controller runs) until `signal` aborts or the
   * controller stops; then drains it (see the module comment) and resolves.
   */
  async engage(name: string, cluster: Cluster, signal: AbortSignal): Promise<void> {
    if (name === HUB_CLUSTER) throw new TypeError('the hub is not engaged: it is the manager\'s own cluster');
    const previous = this.lanes.get(name);
    if (previous) await this.removeLane(previous);
    if (signal.aborted || this.stopped.signal.aborted) return;
    const lane = this.addLane(name, cluster);
    if (this.running) this.startLane(lane);
    await new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        this.stopped.signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.stopped.signal.addEventListener('abort', done, { once: true });
    });
    await this.removeLane(lane);
  }

  /** Runs every lane until `signal` aborts; resolves once all have drained. */
  start(signal: AbortSignal): Promise<void> {
    this.run ??= (async () => {
      if (signal.aborted) return;
      this.running = true;
      for (const lane of this.lanes.values()) this.startLane(lane);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      this.running = false;
      this.stopped.abort();
      await Promise.all([...this.lanes.values()].map((lane) => this.removeLane(lane)));
    })();
    return this.run;
  }

  private addLane(name: string, cluster: Cluster): Lane {
    const log = name === HUB_CLUSTER ? this.log.child({ cluster: 'hub' }) : this.log.child({ cluster: name });
    const reconcile = this.laneReconciler(name, cluster);
    const controller = new Controller({
      ...this.opts.controller,
      name: this.name,
      reconciler: reconcile,
      spanAttributes: { 'kubegen.cluster': name === HUB_CLUSTER ? 'hub' : name },
      needLeaderElection: this.needLeaderElection,
      ...(this.opts.registry ? { registry: this.opts.registry } : {}),
      clock: this.clock,
      logger: log,
    });
    const lane: Lane = { name, cluster, controller, sources: [], run: undefined, removed: false, timer: undefined, failedKeys: new Set(), recovered: new WeakSet(), probing: false, healthy: false, parked: false };
    const route = this.routingSink(name);
    for (const source of this.opts.sourcesFor(name, cluster)) {
      const routed = routedSource(source, route, name);
      lane.sources.push(routed);
      controller.watchSource(routed);
    }
    initLaneMetrics(this.metrics, this.name, name);
    this.lanes.set(name, lane);
    return lane;
  }

  private startLane(lane: Lane): void {
    if (lane.run || lane.removed) return;
    lane.run = lane.controller.start().catch((err: unknown) => this.log.error('cluster lane failed', { cluster: lane.name, error: err }));
    const tick = (): void => {
      if (lane.removed) return;
      const s = laneStatus(lane);
      this.metrics.clusterSynced.set({ controller: this.name, cluster: lane.name }, s.healthy ? 1 : 0);
      if (s.healthy && !lane.healthy && lane.failedKeys.size > 0) {
        // Back (or synced at last): what failed meanwhile is retried now, not after a backoff that grew while it was down.
        this.log.info('cluster healthy again; retrying its failed requests now', { cluster: lane.name, requests: lane.failedKeys.size });
        for (const key of lane.failedKeys) {
          lane.controller.queue.forget(key);
          lane.controller.queue.add(key);
        }
      }
      lane.healthy = s.healthy;
      lane.parked = s.synced && !s.healthy;
      if (lane.parked) this.probe(lane);
      lane.timer = this.clock.setTimeout(tick, STATUS_PERIOD_MS);
    };
    tick();
  }

  /**
   * A synced lane whose informers fail (the cluster went away): asks the cluster's `/version`. Once it answers, the
   * errors so far that were not refusals (403, 401, 404) no longer count (an informer that resumes its watch without a new list keeps its last
   * error), so the lane turns healthy and the next tick retries its failed requests.
   */
  private probe(lane: Lane): void {
    if (lane.probing) return;
    lane.probing = true;
    lane.cluster.transport.raw('GET', '/version', { timeoutMs: STATUS_PERIOD_MS * 2 }).then(
      (res) => {
        if (lane.removed || res.statusCode >= 500) return;
        let recovered = false;
        for (const inf of laneInformers(lane)) {
          const err = inf.lastError();
          if (err && !isRefusal(err.error) && !lane.recovered.has(err)) {
            lane.recovered.add(err);
            recovered = true;
          }
        }
        if (recovered) this.log.info('cluster reachable again', { cluster: lane.name });
      },
      () => undefined,
    ).finally(() => (lane.probing = false));
  }

  /** Stops and drains `lane`, drops it and its metric series. */
  private async removeLane(lane: Lane): Promise<void> {
    if (lane.removed) return;
    lane.removed = true;
    if (lane.timer !== undefined) this.clock.clearTimeout(lane.timer);
    lane.controller.stop();
    const run = lane.run;
    if (run) {
      // True when the lane's run settles (either way) within the drain timeout.
      const drained = await withTimeout(this.clock, this.opts.drainTimeoutMs ?? 30_000, () => run.then(() => true, () => true)).catch(() => false);
      if (!drained) this.log.error('in-flight reconciles of a disengaged cluster did not finish in time; left behind', { cluster: lane.name });
    }
    if (this.lanes.get(lane.name) === lane) this.lanes.delete(lane.name);
    removeLaneMetrics(this.metrics, this.name, lane.name);
    const synced = controllerMetrics(this.opts.registry).sourceSynced;
    for (const s of lane.sources) synced.remove({ controller: this.name, source: s.description });
  }

  /** The lane's reconciler: the user's, with the cluster in the request and context, counted per cluster. */
  private laneReconciler(name: string, cluster: Cluster) {
    return async (req: { namespace: string; name: string }, ctx: ReconcileContext): Promise<Result | void> => {
      const started = this.clock.now();
      let result: 'success' | 'error' | 'requeue' | 'requeue_after' = 'error';
      const key = laneKey({ cluster: name, ...req });
      try {
        const r = await this.reconcileFn({ cluster: name, namespace: req.namespace, name: req.name }, { ...ctx, cluster });
        result = r && (r.requeueAfterMs ?? 0) > 0 ? 'requeue_after' : r?.requeue ? 'requeue' : 'success';
        return r;
      } finally {
        const lane = this.lanes.get(name);
        if (lane?.cluster === cluster) {
          if (result === 'error') lane.failedKeys.add(key);
          else lane.failedKeys.delete(key);
          this.metrics.reconcileTotal.inc({ controller: this.name, cluster: name, result });
          this.metrics.reconcileTime.observe({ controller: this.name, cluster: name }, (this.clock.now() - started) / 1000);
        }
      }
    };
  }

  /** A sink that sends each request to its cluster's lane (`cluster` absent: `defaultCluster`'s). */
  private routingSink(defaultCluster: string): ClusterRequestSink {
    const put = (opts: AddOptions | undefined, r: MaybeClusterRequest): void => {
      this.enqueue({ cluster: r.cluster ?? defaultCluster, namespace: r.namespace, name: r.name }, opts);
    };
    return {
      add: (r) => put(undefined, r),
      addWithOpts: (opts, ...rs) => rs.forEach((r) => put(opts, r)),
    };
  }
}

/** A lane's queue key: the request without its cluster (the lane is the cluster). */
function laneKey(req: ClusterRequest): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

/** `source`, its requests sent through `route`, its description naming the cluster. */
function routedSource(source: Source, route: ClusterRequestSink, cluster: string): Source {
  const description = cluster === HUB_CLUSTER ? source.description : `cluster://${cluster} ${source.description}`;
  return {
    description,
    start: (_sink, signal) => source.start(route, signal),
    hasSynced: () => source.hasSynced(),
    whenSynced: (signal) => source.whenSynced(signal),
    syncError: () => source.syncError(),
    ...(hasInformers(source) ? { informers: () => source.informers() } : {}),
  } as Source;
}

function hasInformers(s: Source): s is Source & { informers(): { lastError(): { error: unknown } | undefined; name: string }[] } {
  return typeof (s as { informers?: unknown }).informers === 'function';
}

/** An answer that says no (forbidden, unauthorized, not served): it stays a failure when the server is reachable. */
function isRefusal(err: unknown): boolean {
  return isForbidden(err) || isUnauthorized(err) || isNotFound(err);
}

/** The informers the lane's sources are attached to now. */
function laneInformers(lane: Lane): { lastError(): { error: unknown } | undefined }[] {
  return lane.sources.flatMap((s) => (hasInformers(s) ? s.informers() : []));
}

function laneStatus(lane: Lane): ClusterLaneStatus {
  const sync = lane.controller.syncStatus();
  const failing: string[] = [];
  for (const s of lane.sources) {
    if (!hasInformers(s)) continue;
    for (const inf of s.informers()) {
      const err = inf.lastError();
      if (err && !lane.recovered.has(err)) failing.push(`${s.description}: ${explainError(err.error)}`);
    }
  }
  const pending = sync.pending.map((p) => `${p.source}${p.reason ? ` (${p.reason})` : ''}`);
  const reasons = [...pending, ...failing];
  return {
    cluster: lane.name,
    synced: sync.synced,
    healthy: sync.synced && failing.length === 0,
    ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
  };
}
