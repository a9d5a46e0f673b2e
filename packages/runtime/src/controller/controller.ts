/**
 * `Controller`: a rate-limited queue of reconcile requests fed by informer event handlers, and N workers calling a
 * reconciler (controller-runtime `pkg/internal/controller`).
 *
 * Contract:
 * - The queue is a priority queue by default (`usePriorityQueue: false`: the FIFO queue): objects of an informer's
 *   initial list and unchanged resyncs wait behind new events (priority -100), and a re-add keeps the priority the
 *   request was handed out with unless the reconciler's `Result.priority` says otherwise.
 * - A key is never reconciled by two workers at once (the queue hands a key out again only after `done`).
 * - Thrown error / rejected promise → `addRateLimited` (backoff) and an error log (a conflict or an unreachable
 *   apiserver: an info log, repeats at most every 30 s); a {@link TerminalError} is logged
 *   and counted but not retried; `requeueAfterMs > 0` → `forget` + `addAfter`; `requeue` → `addRateLimited`;
 *   success → `forget`. A reconciler that throws synchronously is treated like one that rejects.
 * - `reconcileTimeoutMs`: the context's signal aborts when it passes, the timeout is counted and the attempt is
 *   treated as failed (rate-limited retry). The worker then moves on; the key stays "processing" (so it is never
 *   reconciled twice at once) until the abandoned call settles, and is re-queued then.
 * - On stop the queue stops handing out work, every in-flight context signal aborts, and `start()` resolves once
 *   in-flight reconciles have settled; only then are its sources detached (their informers released), so a
 *   reconcile finishing during shutdown still reads from the cache, as controller-runtime stops caches after
 *   controllers. Nothing here throws out of a worker or crashes the process.
 * - Its sources (the informers it watches) are its own: `start()` attaches them, waits until every one has synced
 *   (its handlers were given the initial state) and only then runs workers. A source that cannot sync (its kind is
 *   forbidden to this identity, or not installed) holds back this controller alone: its informer keeps retrying
 *   with backoff, `syncStatus()` and the `kubegen_controller_source_synced` gauge say which source and why, and after
 *   `cacheSyncTimeoutMs` an error line says so (again every time that period passes), while other controllers run.
 * - Warm standby (`enableWarmup`): `warmup()` attaches the sources before `start()` (on a replica waiting for the
 *   Lease), so the queue is full and the sources synced when it leads; workers still start only in `start()`.
 */
import { randomUUID } from 'node:crypto';
import type { Registry } from '../metrics/prom.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { KubeObject } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import type { EventHandler, RequestSink } from '../handler/handler.js';
import { retryReason } from '../client/errors.js';
import { getLogger, type Logger } from '../log.js';
import { RepeatFilter } from '../log-repeats.js';
import type { Predicate } from '../predicate/predicate.js';
import { InformerSource, type Source } from '../source/source.js';
import { PriorityQueue, type PriorityQueueInterface } from '../workqueue/priority-queue.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import { controllerMetrics, initControllerMetrics, type ControllerMetrics, type ReconcileResultLabel } from './metrics.js';
import { SourceSyncWaiter, type SyncStatus } from './source-sync.js';
import { ReconcileTracing } from '../tracing/reconcile-span.js';
import {
  isTerminalError,
  requestFromKey,
  requestKey,
  type ReconcileContext,
  type ReconcileFunc,
  type Reconciler,
  type Request,
  type Result,
} from '../reconcile/index.js';

/**
 * Settings of a {@link Controller} (controller-runtime's `controller.Options`). Only `name` and `reconciler` are
 * required; a `reconciler` may be a {@link Reconciler} object or a bare function.
 */
export interface ControllerOptions {
  /** Names the controller in logs and metrics and names its workqueue. Required. */
  name: string;
  reconciler: Reconciler | ReconcileFunc;
  /** Default 1. */
  maxConcurrentReconciles?: number;
  /**
   * Default: per-item exponential (5 ms → 1000 s) with the priority queue; with the FIFO queue the max of that and a
   * 10 qps / 100 burst bucket (controller-runtime v0.23's defaults).
   */
  rateLimiter?: RateLimiter<string>;
  /**
   * Default true: the priority queue (controller-runtime's `UsePriorityQueue`), so new and changed objects are
   * reconciled before the initial list's backlog; false: client-go's FIFO rate-limiting queue.
   */
  usePriorityQueue?: boolean;
  /** Abort and fail a reconcile after this long. Default: no timeout. */
  reconcileTimeoutMs?: number;
  /** Default true: the manager starts this controller only once it leads. */
  needLeaderElection?: boolean;
  /**
   * Warm standby (controller-runtime's `EnableWarmup`), default false: with leader election, the manager calls
   * `warmup()` when it starts, so this controller's sources (informers and handlers feeding its queue) start and sync
   * before the Lease is won; its workers still start only once leading, and then at once. No effect on a controller
   * that does not need leader election (it starts at once anyway) or on a sharded manager's.
   */
  enableWarmup?: boolean;
  /**
   * After this long without every source synced, an error line names the unsynced sources and why (then again each
   * time it passes); the controller keeps waiting. Default 2 min (controller-runtime's `CacheSyncTimeout`).
   */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Registry for controller and workqueue metrics (default the runtime's `metricsRegistry`). */
  registry?: Registry;
  /**
   * Default false: a manager refuses a second live controller of this name reporting to the same metrics registry
   * (controller-runtime's unique names; see `manager/controller-names.ts`). True skips that check — for a controller
   * built again in one process, as tests do; within one manager, names stay unique (readiness checks are named so).
   */
  skipNameValidation?: boolean;
  /** The kind this controller reconciles (the builder's `for()`), named on its reconcile spans. */
  forKind?: { group: string; kind: string };
  /** More attributes of every reconcile span (a multi-cluster lane's `kubegen.cluster`). */
  spanAttributes?: Readonly<Record<string, string>>;
}

/** Default `cacheSyncTimeoutMs` of a controller: 2 min, as controller-runtime's `CacheSyncTimeout`. */
export const DEFAULT_SOURCE_SYNC_TIMEOUT_MS = 120_000;

export type { SyncStatus };

/** Thrown into a reconcile's signal (`signal.reason`) when its timeout passes. */
export class ReconcileTimeoutError extends Error {
  constructor(ms: number) {
    super(`reconcile timed out after ${ms} ms`);
    this.name = 'ReconcileTimeoutError';
  }
}

/**
 * A controller (controller-runtime's `controller.Controller`): `watch()` feeds informer events into its
 * rate-limited `queue`, and `start()` runs `maxConcurrentReconciles` workers under the module comment's contract.
 * Usually built with `newControllerManagedBy()` and started by the `Manager`.
 */
export class Controller {
  readonly name: string;
  /** A {@link PriorityQueue}, or a FIFO {@link RateLimitingQueue} with `usePriorityQueue: false`. */
  readonly queue: PriorityQueueInterface<string>;
  readonly maxConcurrentReconciles: number;
  readonly needLeaderElection: boolean;
  readonly enableWarmup: boolean;
  readonly skipNameValidation: boolean;
  private readonly reconcileFn: ReconcileFunc;
  private readonly timeoutMs: number | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Conflicts and connection failures are retried on their own: logged at info level, repeats rate-limited. */
  private readonly repeats: RepeatFilter;
  private readonly metrics: ControllerMetrics;
  /** Reconcile spans and the watch events' links (docs/tracing.md); inert while tracing is off. */
  private readonly tracing: ReconcileTracing;
  private readonly sources: Source[] = [];
  private readonly syncWaiter: SourceSyncWaiter;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopAbort = new AbortController();
  /** Detaches the sources: on stop before workers ran, else once the workers and in-flight reconciles are done. */
  private readonly sourcesAbort = new AbortController();
  /** Set once the sources were started (by `warmup` or `start`); later sources start as they are added. */
  private sourcesStarted = false;
  /** The one wait for the sources to sync, shared by `warmup` and `start`. */
  private sourcesSynced: Promise<boolean> | undefined;
  private run: Promise<void> | undefined;

  constructor(opts: ControllerOptions) {
    if (!opts.name) throw new TypeError('controller name is required');
    this.name = opts.name;
    this.maxConcurrentReconciles = Math.max(1, Math.floor(opts.maxConcurrentReconciles ?? 1));
    this.needLeaderElection = opts.needLeaderElection ?? true;
    this.enableWarmup = opts.enableWarmup ?? false;
    this.skipNameValidation = opts.skipNameValidation ?? false;
    const r = opts.reconciler;
    this.reconcileFn = typeof r === 'function' ? r : (req, ctx) => r.reconcile(req, ctx);
    this.timeoutMs = opts.reconcileTimeoutMs;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ controller: this.name });
    this.repeats = new RepeatFilter(this.clock);
    this.metrics = controllerMetrics(opts.registry);
    this.tracing = new ReconcileTracing(this.name, opts.forKind, opts.spanAttributes);
    const queueOptions = {
      name: this.name,
      clock: this.clock,
      ...(opts.registry ? { registry: opts.registry } : {}),
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
    };
    this.queue = (opts.usePriorityQueue ?? true) ? new PriorityQueue<string>(queueOptions) : new RateLimitingQueue<string>(queueOptions);
    initControllerMetrics(this.metrics, this.name);
    this.syncWaiter = new SourceSyncWaiter({
      controller: this.name,
      clock: this.clock,
      log: this.log,
      gauge: this.metrics.sourceSynced,
      timeoutMs: opts.cacheSyncTimeoutMs ?? DEFAULT_SOURCE_SYNC_TIMEOUT_MS,
    });
  }

  /**
   * Keeps the current watch event's trace link for `req` without enqueueing it, for a request held back and added to
   * `queue` later (a multi-cluster lane's, while its cluster is out of reach); its reconcile then links that event.
   * Nothing while tracing is off.
   */
  noteEvent(req: Request): void {
    this.tracing.noteEvent(requestKey(req));
  }

  /** Requests go through here: the queue collapses duplicates (the watch events' trace links are kept beside it). */
  readonly sink: Required<RequestSink> = {
    add: (req: Request) => {
      const key = requestKey(req);
      this.tracing.noteEvent(key);
      this.queue.add(key);
    },
    addWithOpts: (opts, ...reqs) => {
      const keys = reqs.map(requestKey);
      for (const key of keys) this.tracing.noteEvent(key);
      this.queue.addWithOpts(opts, ...keys);
    },
  };

  /**
   * Feeds events of `informer` through `predicates` (all must admit) into `handler` (an {@link InformerSource}).
   * Handlers are attached when the controller starts (objects already cached are then delivered as creates).
   * Throwing handlers/predicates are logged by the informer and skipped.
   */
  watch<T extends KubeObject>(informer: SharedIndexInformer<T>, handler: EventHandler<T>, predicates: Predicate<T>[] = []): void {
    this.watchSource(new InformerSource<T>(informer, handler, predicates, this.log));
  }

  /** Adds a source; started with the controller (at once if it is running), and waited for before workers start. */
  watchSource(source: Source): void {
    this.sources.push(source);
    this.syncWaiter.track(source);
    if (this.sourcesStarted && !this.sourcesAbort.signal.aborted) source.start(this.sink, this.sourcesAbort.signal);
  }

  /** How many reconciles are running now (read-only; explore's settle check reads it). */
  get reconciling(): number {
    return this.inFlight.size;
  }

  /** The informers this controller's informer sources watch. */
  informers(): SharedIndexInformer<KubeObject>[] {
    return this.sources.filter((s): s is InformerSource => s instanceof InformerSource).map((s) => s.informer as SharedIndexInformer<KubeObject>);
  }

  /**
   * Whether every source has synced, and for each one that has not, why (its last list error, described with the
   * kind, the verb and the identity where the error says). What the manager's readiness check of this controller
   * reports. A controller whose sources have not started (a standby replica's without warm-up, before it leads)
   * reports synced; a warm standby's reports its sources.
   */
  syncStatus(): SyncStatus {
    // Sources not started (a cold standby waiting for the Lease): nothing to wait for, so nothing to report as unready.
    if (!this.sourcesStarted) return { synced: true, pending: [] };
    return this.syncWaiter.status();
  }

  /**
   * Attaches the sources, waits until all have synced, then runs the workers until `signal` aborts or `stop()` is
   * called; resolves once every worker has exited and in-flight reconciles have settled (at once when stopped while
   * still waiting for its sources). Starting twice returns the same promise.
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.run) return this.run;
    this.startSources(signal);
    this.run = (async () => {
      if (!(await this.waitForSources())) {
        this.log.info('stopped before its sources synced');
        this.sourcesAbort.abort();
        return;
      }
      this.metrics.maxConcurrent.set({ controller: this.name }, this.maxConcurrentReconciles);
      this.log.info('starting workers', { workerCount: this.maxConcurrentReconciles });
      await Promise.all(Array.from({ length: this.maxConcurrentReconciles }, () => this.worker()));
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      this.sourcesAbort.abort();
      this.log.info('all workers finished');
    })();
    return this.run;
  }

  /**
   * Warm standby (controller-runtime's `Warmup`): with `enableWarmup`, starts the sources without workers, so their
   * informers sync and the queue fills while another replica leads; `start` later runs the workers as soon as every
   * source has synced (at once when they already have). Resolves once they have synced, or when `signal` aborts or
   * the controller stops first; `signal` aborting stops the controller. Does nothing without `enableWarmup`.
   */
  async warmup(signal?: AbortSignal): Promise<void> {
    if (!this.enableWarmup || this.run) return;
    this.startSources(signal);
    if (await this.waitForSources()) this.log.info('warmed up: sources synced, workers start once leading');
  }

  /** Starts the sources once (they stop when `signal` aborts or `stop()` is called). */
  private startSources(signal: AbortSignal | undefined): void {
    if (signal?.aborted) this.stop();
    else signal?.addEventListener('abort', () => this.stop(), { once: true });
    if (this.sourcesStarted) return;
    this.sourcesStarted = true;
    if (!this.stopAbort.signal.aborted) for (const source of this.sources) source.start(this.sink, this.sourcesAbort.signal);
  }

  /** True once every source has synced, false when the controller stopped first (one wait, shared). */
  private waitForSources(): Promise<boolean> {
    this.sourcesSynced ??= this.syncWaiter.wait(this.stopAbort.signal);
    return this.sourcesSynced;
  }

  /** Stops taking work: detaches its sources, shuts the queue down, aborts every in-flight reconcile's signal. */
  stop(): void {
    if (this.stopAbort.signal.aborted) return;
    this.log.info('stopping');
    this.stopAbort.abort(new Error('controller stopped'));
    this.queue.shutDown();
    // Workers that never ran hold nothing: the sources go now (else when the workers are done, in `start`).
    if (!this.run) this.sourcesAbort.abort();
  }

  private async worker(): Promise<void> {
    for (;;) {
      const next = await this.queue.getWithPriority();
      if (next.shutdown) return;
      if (this.stopAbort.signal.aborted) {
        // Stop taking work: items still queued at shutdown are dropped, not reconciled.
        this.queue.done(next.item);
        continue;
      }
      await this.processItem(next.item, next.priority);
    }
  }

  /** One reconcile of `key`, with its bookkeeping; never throws. Calls `queue.done(key)` when the call settles. */
  private async processItem(key: string, priority: number): Promise<void> {
    const req = requestFromKey(key);
    const reconcileID = randomUUID();
    const span = this.tracing.start(key, { namespace: req.namespace, name: req.name, reconcileID, priority, attempt: () => this.queue.numRequeues(key) + 1 });
    const log = this.log.child({ namespace: req.namespace, name: req.name, reconcileID, ...span?.logFields });
    const abort = new AbortController();
    const onStop = (): void => abort.abort(this.stopAbort.signal.reason);
    this.stopAbort.signal.addEventListener('abort', onStop, { once: true });
    const ctx: ReconcileContext = { signal: abort.signal, log, reconcileID };
    const labels = { controller: this.name };
    const startedAt = this.clock.now();
    this.metrics.activeWorkers.inc(labels);

    const run = async (): Promise<Result | void> => {
      log.debug('Reconciling');
      return this.reconcileFn(req, ctx);
    };
    // Traced: the reconcile runs in its span's context, so client spans and the user's own spans nest under it.
    const call = span ? span.run(run) : run();
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    this.inFlight.add(settled);
    const outcome = call.then(
      (result) => ({ ok: true as const, result: result ?? undefined }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    void outcome.then(() => {
      this.stopAbort.signal.removeEventListener('abort', onStop);
      this.metrics.activeWorkers.dec(labels);
      const seconds = (this.clock.now() - startedAt) / 1000;
      this.metrics.reconcileTime.observe(labels, seconds);
      if (span?.sampled) this.metrics.reconcileTimeExemplars.observe(labels, seconds, span.logFields);
      this.queue.done(key);
      this.inFlight.delete(settled);
      settle();
    });

    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut =
      this.timeoutMs === undefined
        ? undefined
        : new Promise<{ timeout: true }>((resolve) => {
            timer = this.clock.setTimeout(() => resolve({ timeout: true }), this.timeoutMs!);
          });
    const first = await (timedOut ? Promise.race([outcome, timedOut]) : outcome);
    if (timer !== undefined) this.clock.clearTimeout(timer);

    if ('timeout' in first) {
      abort.abort(new ReconcileTimeoutError(this.timeoutMs!));
      this.metrics.timeouts.inc(labels);
      this.failed(key, priority, log, new ReconcileTimeoutError(this.timeoutMs!));
      span?.end('timeout', new ReconcileTimeoutError(this.timeoutMs!));
      return;
    }
    if (!first.ok) {
      if (abort.signal.reason instanceof ReconcileTimeoutError) this.metrics.timeouts.inc(labels);
      this.failed(key, priority, log, first.error);
      span?.end(isTerminalError(first.error) ? 'terminal' : 'error', first.error);
      return;
    }
    const result = this.succeeded(key, priority, first.result);
    log.debug('Reconcile successful', { result });
    span?.end(result, undefined, first.result?.requeueAfterMs);
  }

  private failed(key: string, priority: number, log: Logger, error: unknown): void {
    const labels = { controller: this.name };
    if (isTerminalError(error)) {
      this.metrics.terminalErrors.inc(labels);
    } else {
      this.queue.addWithOpts({ rateLimited: true, priority }, key);
    }
    this.metrics.reconcileErrors.inc(labels);
    this.count('error');
    const retriable = retryReason(error);
    if (retriable === undefined || isTerminalError(error)) {
      log.error('Reconciler error', { error, terminal: isTerminalError(error) });
      return;
    }
    // A stale read (409) or an unreachable apiserver: requeued with backoff, nothing for a person to do.
    const admitted = this.repeats.admit(retriable);
    if (admitted) {
      const fields = { error, ...(admitted.repeated > 0 ? { repeated: admitted.repeated } : {}) };
      // A conflict is routine (someone wrote first): info. The apiserver out of reach is retried, but worth a look.
      if (retriable === 'conflict') log.info('Reconcile conflict; requeued', fields);
      else log.warn('Reconcile failed to reach the apiserver; requeued', fields);
    }
  }

  /** Requeues or forgets `key` as `result` says; returns which (the span's result). */
  private succeeded(key: string, handedOutWith: number, result: Result | undefined): 'success' | 'requeue' | 'requeue_after' {
    const after = result?.requeueAfterMs ?? 0;
    const priority = result?.priority ?? handedOutWith;
    if (after > 0) {
      this.queue.forget(key);
      this.queue.addWithOpts({ after, priority }, key);
      this.count('requeue_after');
      return 'requeue_after';
    } else if (result?.requeue) {
      this.queue.addWithOpts({ rateLimited: true, priority }, key);
      this.count('requeue');
      return 'requeue';
    }
    this.queue.forget(key);
    this.count('success');
    return 'success';
  }

  private count(result: ReconcileResultLabel): void {
    this.metrics.reconcileTotal.inc({ controller: this.name, result });
  }
}
