import type { Clock } from '../clock.js';
import { realClock } from '../clock.js';
import { DeadlineTimer } from './deadline-timer.js';
import { Fifo } from './fifo.js';
import { IndexedHeap } from './indexed-heap.js';
import { QueueMetricsRecorder, noopQueueMetrics } from './metrics.js';
import type { QueueMetrics } from './metrics.js';
import { prometheusMetricsProvider } from './prometheus-metrics.js';
import type { QueueGetResult } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiter.js';
import type { AddOptions, PriorityGetResult, PriorityQueueInterface, RateLimiter, RateLimitingQueueOptions } from './interfaces.js';

export type { AddOptions, PriorityGetResult, PriorityQueueInterface } from './interfaces.js';

/**
 * The priority queue (controller-runtime `pkg/controller/priorityqueue`), the queue a controller uses by default.
 *
 * Contract (beyond the work queue's: de-duplication, exclusive processing, shutdown — see `queue.ts`):
 * - `get()` hands out the ready item of the highest priority; items of one priority come out in the order they
 *   became ready (FIFO). An item re-added while it is processing becomes ready again when `done` is called, in the
 *   place its add gave it.
 * - `addWithOpts({ after, rateLimited, priority }, ...items)`: `priority` defaults to 0, higher goes first. With
 *   `rateLimited` the item waits the rate limiter's delay, or `after` if that is shorter. An item added again while
 *   queued keeps the earliest ready time (a ready item stays ready) and the highest priority; raising its priority
 *   moves it to the end of its new priority's line. A waiting item that becomes ready joins its priority's line then.
 * - `add`, `addAfter`, `addRateLimited` are `addWithOpts` with priority 0. A delayed add counts as a retry.
 * - The default rate limiter is the per-item exponential one alone (5 ms → 1000 s), as in controller-runtime v0.23:
 *   the 10 qps overall bucket of the FIFO queue's default would hold back every retry behind a backlog.
 * - Metrics are the work queue's, with `workqueue_depth` by priority when the provider can (the Prometheus one does).
 */

/**
 * The priority controller-runtime's handlers give to events that say nothing new: objects of an informer's initial
 * list and resyncs whose resourceVersion did not change (`handler.LowPriority`).
 */
export const LOW_PRIORITY = -100;

/** Default rate limiter of a priority queue: per-item exponential backoff, 5 ms → 1000 s, and no overall bucket. */
export function defaultPriorityQueueRateLimiter<T>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(5, 1_000_000);
}

interface Entry<T> {
  readonly item: T;
  priority: number;
  /** When the item joined its current line; orders items of one priority. */
  seq: number;
  /** Clock time at which a waiting item becomes ready; undefined once ready. */
  readyAt: number | undefined;
  /** Position in the heap holding it (-1: parked, ready but waiting for its processing to end). */
  index: number;
}

const lessReady = <T>(a: Entry<T>, b: Entry<T>): boolean =>
  a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;
const lessWaiting = <T>(a: Entry<T>, b: Entry<T>): boolean =>
  a.readyAt !== b.readyAt ? a.readyAt! < b.readyAt! : lessReady(a, b);

/** The priority queue (see the module comment). Options are those of a `RateLimitingQueue`. */
export class PriorityQueue<T> implements PriorityQueueInterface<T> {
  readonly name: string | undefined;
  readonly rateLimiter: RateLimiter<T>;
  private readonly clock: Clock;
  private readonly metrics: QueueMetrics<T>;
  /** Every queued item: ready (in `ready`), parked (ready, but processing) or waiting (in `waiting`). */
  private readonly items = new Map<T, Entry<T>>();
  private readonly ready = new IndexedHeap<Entry<T>>(lessReady);
  private readonly waiting = new IndexedHeap<Entry<T>>(lessWaiting);
  private readonly processing = new Set<T>();
  private readonly waiters = new Fifo<(result: PriorityGetResult<T>) => void>();
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;
  private seq = 0;
  private readonly timer: DeadlineTimer;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    this.name = options.name === '' ? undefined : options.name;
    this.clock = options.clock ?? realClock;
    this.timer = new DeadlineTimer(this.clock, () => this.onTimer());
    this.rateLimiter = options.rateLimiter ?? defaultPriorityQueueRateLimiter<T>();
    this.metrics =
      this.name === undefined
        ? (noopQueueMetrics as QueueMetrics<T>)
        : new QueueMetricsRecorder<T>(
            this.name,
            options.metricsProvider ?? prometheusMetricsProvider(options.registry),
            this.clock,
            true,
          );
  }

  addWithOpts(opts: AddOptions, ...items: T[]): void {
    for (const item of items) this.addOne(item, opts);
    this.dispatch();
    this.armTimer();
  }

  add(item: T): void {
    this.addWithOpts({}, item);
  }

  addAfter(item: T, delayMs: number): void {
    this.addWithOpts({ after: delayMs }, item);
  }

  addRateLimited(item: T): void {
    this.addWithOpts({ rateLimited: true }, item);
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Ready items not in processing: what `get()` can hand out now (waiting items: `waitingLen()`). */
  len(): number {
    return this.ready.length;
  }

  /** Items waiting for their delay to pass. */
  waitingLen(): number {
    return this.waiting.length;
  }

  /** Clock time at which the earliest waiting item becomes ready; undefined when nothing waits. */
  nextReadyAt(): number | undefined {
    return this.waiting.peek()?.readyAt;
  }

  async get(): Promise<QueueGetResult<T>> {
    const next = await this.getWithPriority();
    return next.shutdown ? { shutdown: true } : { item: next.item, shutdown: false };
  }

  getWithPriority(): Promise<PriorityGetResult<T>> {
    if (this.ready.length > 0) return Promise.resolve(this.take());
    if (this.isShuttingDown) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: T): void {
    this.metrics.done(item);
    if (!this.processing.delete(item)) return;
    const parked = this.items.get(item);
    if (parked !== undefined && parked.readyAt === undefined) {
      this.ready.push(parked);
      this.dispatch();
    }
    if (this.processing.size === 0) this.releaseDrainWaiters();
  }

  shutDown(): void {
    this.beginShutdown();
    this.releaseDrainWaiters();
  }

  shutDownWithDrain(): Promise<void> {
    this.beginShutdown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.isShuttingDown;
  }

  private addOne(item: T, opts: AddOptions): void {
    if (this.isShuttingDown) return;
    let after = opts.after !== undefined && opts.after > 0 ? opts.after : 0;
    if (opts.rateLimited) {
      const limited = this.rateLimiter.when(item);
      if (after === 0 || limited < after) after = limited;
    }
    let readyAt = after > 0 ? this.clock.now() + after : undefined;
    if (readyAt !== undefined) this.metrics.retry();
    const priority = opts.priority ?? 0;
    const entry = this.items.get(item);
    if (entry === undefined) {
      const created: Entry<T> = { item, priority, seq: this.seq++, readyAt, index: -1 };
      this.items.set(item, created);
      if (readyAt === undefined) this.becomeReady(created);
      else this.waiting.push(created);
      return;
    }
    // Already queued: the earliest ready time (a ready item stays ready) and the highest priority win.
    if (entry.readyAt === undefined) readyAt = undefined;
    else if (readyAt !== undefined && entry.readyAt < readyAt) readyAt = entry.readyAt;
    if (priority > entry.priority) {
      if (entry.readyAt === undefined) this.metrics.changePriority(entry.priority, priority);
      entry.priority = priority;
      entry.seq = this.seq++;
    }
    if (entry.readyAt === undefined) {
      if (entry.index >= 0) this.ready.fix(entry.index);
    } else if (readyAt === undefined) {
      this.waiting.remove(entry.index);
      this.becomeReady(entry);
    } else {
      entry.readyAt = readyAt;
      this.waiting.fix(entry.index);
    }
  }

  /** Makes a new or waiting entry ready: into the ready heap, or parked while the item is processing. */
  private becomeReady(entry: Entry<T>): void {
    entry.readyAt = undefined;
    this.metrics.add(entry.item, entry.priority);
    if (this.processing.has(entry.item)) entry.index = -1;
    else this.ready.push(entry);
  }

  /** Moves the best ready item into processing. The ready heap must be non-empty. */
  private take(): PriorityGetResult<T> {
    const entry = this.ready.pop()!;
    this.items.delete(entry.item);
    this.processing.add(entry.item);
    this.metrics.get(entry.item, entry.priority);
    return { item: entry.item, priority: entry.priority, shutdown: false };
  }

  /** Hands ready items to waiting `get()`s, or tells them about shutdown once nothing is ready. */
  private dispatch(): void {
    while (this.waiters.length > 0) {
      if (this.ready.length > 0) this.waiters.shift()!(this.take());
      else if (this.isShuttingDown) this.waiters.shift()!({ shutdown: true });
      else return;
    }
  }

  private beginShutdown(): void {
    if (!this.isShuttingDown) {
      this.isShuttingDown = true;
      this.timer.cancel();
      for (let e = this.waiting.pop(); e !== undefined; e = this.waiting.pop()) this.items.delete(e.item);
      this.metrics.stop();
    }
    this.dispatch();
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Ensures exactly one timer is armed, for the earliest waiting entry (none when nothing waits). */
  private armTimer(): void {
    this.timer.arm(this.isShuttingDown ? undefined : this.waiting.peek()?.readyAt);
  }

  private onTimer(): void {
    const now = this.clock.now();
    for (let head = this.waiting.peek(); head !== undefined && head.readyAt! <= now; head = this.waiting.peek()) {
      this.waiting.pop();
      // It joins its priority's line when it becomes ready, not when it was added.
      head.seq = this.seq++;
      this.becomeReady(head);
    }
    this.dispatch();
    this.armTimer();
  }
}
