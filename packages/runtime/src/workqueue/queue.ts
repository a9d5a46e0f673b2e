import type { Registry } from '../metrics/prom.js';
import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { Fifo } from './fifo.js';
import { QueueMetricsRecorder, noopQueueMetrics } from './metrics.js';
import type { QueueMetrics, WorkqueueMetricsProvider } from './metrics.js';
import { prometheusMetricsProvider } from './prometheus-metrics.js';

/**
 * The basic work queue (client-go `util/workqueue/queue.go`, `Typed[T]`).
 *
 * Contract:
 * - De-duplication: an item added while it is already waiting in the queue is not queued twice.
 * - Exclusive processing: an item handed out by `get()` is "processing" until `done(item)`; it is never handed to
 *   a second worker meanwhile. Adding it while processing marks it dirty and it is queued again (once) on `done`.
 * - Items are compared with SameValueZero (`===` except NaN), so keys are normally strings like `namespace/name`.
 * - After `shutDown()` adds are ignored, queued items are still handed out, and pending/future `get()`s resolve
 *   with `{ shutdown: true }` once the queue is empty.
 * Every caller of `get()` that receives an item must call `done(item)` exactly once.
 */

/** What `get()` resolves with: the next item, or `{ shutdown: true }` once the queue is shut down and empty. */
export type QueueGetResult<T> = { item: T; shutdown: false } | { item?: undefined; shutdown: true };

/** client-go `TypedInterface`. */
export interface QueueInterface<T> {
  add(item: T): void;
  /** Number of items waiting to be handed out (not counting items in processing). */
  len(): number;
  /** Resolves with the next item (now processing) or with `{ shutdown: true }` once shut down and empty. */
  get(): Promise<QueueGetResult<T>>;
  /** Marks `item` as done processing; re-queues it if it was added meanwhile. */
  done(item: T): void;
  /** Stops accepting items and wakes waiters; does not wait for workers. */
  shutDown(): void;
  /** Like `shutDown`, then resolves once no item is in processing (or a plain `shutDown()` is called). */
  shutDownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

/** Settings of a work queue (client-go's `TypedQueueConfig`): name (unnamed: no metrics), clock, metrics provider. */
export interface QueueOptions {
  /** Queue name; named queues record metrics labelled with it, unnamed queues record none. */
  name?: string;
  /** Time source for metrics and delays. Defaults to the real clock. */
  clock?: Clock;
  /** Registry for the default Prometheus metrics provider. Defaults to the runtime `metricsRegistry`. */
  registry?: Registry;
  /** Replaces the Prometheus provider entirely (client-go `MetricsProvider`). */
  metricsProvider?: WorkqueueMetricsProvider;
}

/**
 * The basic FIFO work queue with de-duplication and exclusive processing (client-go's `workqueue.Typed[T]`), under
 * the module comment's contract. It has no delays or rate limiting: see `DelayingQueue` and `RateLimitingQueue`.
 */
export class WorkQueue<T> implements QueueInterface<T> {
  readonly name: string | undefined;
  protected readonly clock: Clock;
  protected readonly metrics: QueueMetrics<T>;
  /** Items waiting to be handed out, in order. Every entry is also in `dirty`. */
  private readonly queue = new Fifo<T>();
  /** Items that need processing (queued, or re-added while processing). */
  private readonly dirty = new Set<T>();
  /** Items handed out and not yet done. */
  private readonly processing = new Set<T>();
  private readonly waiters = new Fifo<(result: QueueGetResult<T>) => void>();
  private drainWaiters: (() => void)[] = [];
  private isShuttingDown = false;

  constructor(options: QueueOptions = {}) {
    this.name = options.name === '' ? undefined : options.name;
    this.clock = options.clock ?? realClock;
    this.metrics =
      this.name === undefined
        ? (noopQueueMetrics as QueueMetrics<T>)
        : new QueueMetricsRecorder<T>(
            this.name,
            options.metricsProvider ?? prometheusMetricsProvider(options.registry),
            this.clock,
          );
  }

  add(item: T): void {
    if (this.isShuttingDown || this.dirty.has(item)) return;
    this.metrics.add(item);
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.dispatch();
  }

  len(): number {
    return this.queue.length;
  }

  get(): Promise<QueueGetResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ item: this.take(), shutdown: false });
    if (this.isShuttingDown) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: T): void {
    this.metrics.done(item);
    if (!this.processing.delete(item)) return;
    if (this.dirty.has(item)) {
      this.queue.push(item);
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

  /** Called once when shutdown begins, after adds stop being accepted; subclasses stop their timers here. */
  protected onShutdown(): void {}

  private beginShutdown(): void {
    if (!this.isShuttingDown) {
      this.isShuttingDown = true;
      this.onShutdown();
      this.metrics.stop();
    }
    this.dispatch();
  }

  /** Moves the head of the queue into processing. The queue must be non-empty. */
  private take(): T {
    const item = this.queue.shift() as T;
    this.metrics.get(item);
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  /** Hands queued items to waiting `get()`s, or tells them about shutdown once the queue is empty. */
  private dispatch(): void {
    while (this.waiters.length > 0) {
      if (this.queue.length > 0) {
        const resolve = this.waiters.shift()!;
        resolve({ item: this.take(), shutdown: false });
      } else if (this.isShuttingDown) {
        this.waiters.shift()!({ shutdown: true });
      } else {
        return;
      }
    }
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
