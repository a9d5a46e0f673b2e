/**
 * `Controller`: a rate-limited queue of reconcile requests fed by informer event handlers, and N workers calling a
 * reconciler (controller-runtime `pkg/internal/controller`).
 *
 * Contract:
 * - A key is never reconciled by two workers at once (the queue hands a key out again only after `done`).
 * - Thrown error / rejected promise → `addRateLimited` (backoff) and an error log (a conflict or an unreachable
 *   apiserver: an info log, repeats at most every 30 s); a {@link TerminalError} is logged
 *   and counted but not retried; `requeueAfterMs > 0` → `forget` + `addAfter`; `requeue` → `addRateLimited`;
 *   success → `forget`. A reconciler that throws synchronously is treated like one that rejects.
 * - `reconcileTimeoutMs`: the context's signal aborts when it passes, the timeout is counted and the attempt is
 *   treated as failed (rate-limited retry). The worker then moves on; the key stays "processing" (so it is never
 *   reconciled twice at once) until the abandoned call settles, and is re-queued then.
 * - On stop the queue stops handing out work, every in-flight context signal aborts, and `start()` resolves once
 *   in-flight reconciles have settled. Nothing here throws out of a worker or crashes the process.
 */
import { randomUUID } from 'node:crypto';
import type { Registry } from '../metrics/prom.js';
import type { SharedIndexInformer, HandlerRegistration } from '../cache/shared-informer.js';
import { objectFromDeleted } from '../cache/keys.js';
import type { KubeObject } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import type { EventHandler, RequestSink } from '../handler/handler.js';
import { retryReason } from '../client/errors.js';
import { getLogger, type Logger } from '../log.js';
import { RepeatFilter } from '../log-repeats.js';
import { admitsAll, type Predicate } from '../predicate/predicate.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import { controllerMetrics, type ControllerMetrics, type ReconcileResultLabel } from './metrics.js';
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
  /** Default: max of per-item exponential (5 ms → 1000 s) and a 10 qps / 100 burst bucket. */
  rateLimiter?: RateLimiter<string>;
  /** Abort and fail a reconcile after this long. Default: no timeout. */
  reconcileTimeoutMs?: number;
  /** Default true: the manager starts this controller only once it leads. */
  needLeaderElection?: boolean;
  clock?: Clock;
  logger?: Logger;
  /** Registry for controller and workqueue metrics (default the runtime's `metricsRegistry`). */
  registry?: Registry;
}

/** Thrown into a reconcile's signal (`signal.reason`) when its timeout passes. */
export class ReconcileTimeoutError extends Error {
  constructor(ms: number) {
    super(`reconcile timed out after ${ms} ms`);
    this.name = 'ReconcileTimeoutError';
  }
}

interface Watch {
  informer: SharedIndexInformer<KubeObject>;
  handler: EventHandler<KubeObject>;
  predicates: Predicate<KubeObject>[];
}

/**
 * A controller (controller-runtime's `controller.Controller`): `watch()` feeds informer events into its
 * rate-limited `queue`, and `start()` runs `maxConcurrentReconciles` workers under the module comment's contract.
 * Usually built with `newControllerManagedBy()` and started by the `Manager`.
 */
export class Controller {
  readonly name: string;
  readonly queue: RateLimitingQueue<string>;
  readonly maxConcurrentReconciles: number;
  readonly needLeaderElection: boolean;
  private readonly reconcileFn: ReconcileFunc;
  private readonly timeoutMs: number | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Conflicts and connection failures are retried on their own: logged at info level, repeats rate-limited. */
  private readonly repeats: RepeatFilter;
  private readonly metrics: ControllerMetrics;
  private readonly watches: Watch[] = [];
  private readonly registrations: HandlerRegistration[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopAbort = new AbortController();
  private started = false;
  private run: Promise<void> | undefined;

  constructor(opts: ControllerOptions) {
    if (!opts.name) throw new TypeError('controller name is required');
    this.name = opts.name;
    this.maxConcurrentReconciles = Math.max(1, Math.floor(opts.maxConcurrentReconciles ?? 1));
    this.needLeaderElection = opts.needLeaderElection ?? true;
    const r = opts.reconciler;
    this.reconcileFn = typeof r === 'function' ? r : (req, ctx) => r.reconcile(req, ctx);
    this.timeoutMs = opts.reconcileTimeoutMs;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ controller: this.name });
    this.repeats = new RepeatFilter(this.clock);
    this.metrics = controllerMetrics(opts.registry);
    this.queue = new RateLimitingQueue<string>({
      name: this.name,
      clock: this.clock,
      ...(opts.registry ? { registry: opts.registry } : {}),
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
    });
    this.metrics.activeWorkers.set({ controller: this.name }, 0);
  }

  /** Requests go through here: the queue collapses duplicates. */
  readonly sink: RequestSink = { add: (req: Request) => this.queue.add(requestKey(req)) };

  /**
   * Feeds events of `informer` through `predicates` (all must admit) into `handler`. Handlers are attached when the
   * controller starts (objects already cached are then delivered as creates). Throwing handlers/predicates are
   * logged by the informer and skipped.
   */
  watch<T extends KubeObject>(informer: SharedIndexInformer<T>, handler: EventHandler<T>, predicates: Predicate<T>[] = []): void {
    const w = { informer, handler, predicates } as unknown as Watch;
    this.watches.push(w);
    if (this.started && !this.stopAbort.signal.aborted) this.attach(w);
  }

  /** The informers this controller watches (the manager waits for them to sync before starting it). */
  informers(): SharedIndexInformer<KubeObject>[] {
    return this.watches.map((w) => w.informer);
  }

  /**
   * Attaches the watches and runs the workers until `signal` aborts or `stop()` is called; resolves once every
   * worker has exited and in-flight reconciles have settled. Starting twice returns the same promise.
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.run) return this.run;
    this.started = true;
    if (signal?.aborted) this.stop();
    else signal?.addEventListener('abort', () => this.stop(), { once: true });
    if (!this.stopAbort.signal.aborted) for (const w of this.watches) this.attach(w);
    this.metrics.maxConcurrent.set({ controller: this.name }, this.maxConcurrentReconciles);
    this.log.info('starting workers', { workerCount: this.maxConcurrentReconciles });
    const workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.worker());
    this.run = Promise.all(workers).then(async () => {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      this.log.info('all workers finished');
    });
    return this.run;
  }

  /** Stops taking work: detaches handlers, shuts the queue down, aborts every in-flight reconcile's signal. */
  stop(): void {
    if (this.stopAbort.signal.aborted) return;
    this.log.info('stopping');
    this.stopAbort.abort(new Error('controller stopped'));
    for (const r of this.registrations.splice(0)) r.remove();
    this.queue.shutDown();
  }

  private attach(w: Watch): void {
    const { handler, predicates } = w;
    const sink = this.sink;
    const guard = (what: string, fn: () => void): void => {
      try {
        fn();
      } catch (err) {
        this.log.error('event handler failed', { event: what, error: err });
      }
    };
    const reg = w.informer.addEventHandler({
      onAdd: (obj) =>
        guard('create', () => {
          if (admitsAll(predicates, 'create', obj)) handler.create?.(obj, sink);
        }),
      onUpdate: (oldObj, newObj) =>
        guard('update', () => {
          if (admitsAll(predicates, 'update', newObj, oldObj)) handler.update?.(oldObj, newObj, sink);
        }),
      onDelete: (obj) =>
        guard('delete', () => {
          if (admitsAll(predicates, 'delete', objectFromDeleted(obj))) handler.delete?.(obj, sink);
        }),
    });
    this.registrations.push(reg);
  }

  private async worker(): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      if (this.stopAbort.signal.aborted) {
        // Stop taking work: items still queued at shutdown are dropped, not reconciled.
        this.queue.done(next.item);
        continue;
      }
      await this.processItem(next.item);
    }
  }

  /** One reconcile of `key`, with its bookkeeping; never throws. Calls `queue.done(key)` when the call settles. */
  private async processItem(key: string): Promise<void> {
    const req = requestFromKey(key);
    const reconcileID = randomUUID();
    const log = this.log.child({ namespace: req.namespace, name: req.name, reconcileID });
    const abort = new AbortController();
    const onStop = (): void => abort.abort(this.stopAbort.signal.reason);
    this.stopAbort.signal.addEventListener('abort', onStop, { once: true });
    const ctx: ReconcileContext = { signal: abort.signal, log, reconcileID };
    const labels = { controller: this.name };
    const startedAt = this.clock.now();
    this.metrics.activeWorkers.inc(labels);

    const call = (async () => this.reconcileFn(req, ctx))();
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
      this.metrics.reconcileTime.observe(labels, (this.clock.now() - startedAt) / 1000);
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
      this.failed(key, log, new ReconcileTimeoutError(this.timeoutMs!));
      return;
    }
    if (!first.ok) {
      if (abort.signal.reason instanceof ReconcileTimeoutError) this.metrics.timeouts.inc(labels);
      this.failed(key, log, first.error);
      return;
    }
    this.succeeded(key, first.result);
  }

  private failed(key: string, log: Logger, error: unknown): void {
    const labels = { controller: this.name };
    if (isTerminalError(error)) {
      this.metrics.terminalErrors.inc(labels);
    } else {
      this.queue.addRateLimited(key);
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

  private succeeded(key: string, result: Result | undefined): void {
    const after = result?.requeueAfterMs ?? 0;
    if (after > 0) {
      this.queue.forget(key);
      this.queue.addAfter(key, after);
      this.count('requeue_after');
    } else if (result?.requeue) {
      this.queue.addRateLimited(key);
      this.count('requeue');
    } else {
      this.queue.forget(key);
      this.count('success');
    }
  }

  private count(result: ReconcileResultLabel): void {
    this.metrics.reconcileTotal.inc({ controller: this.name, result });
  }
}
