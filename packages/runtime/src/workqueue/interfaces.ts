import type { DelayingQueueInterface } from './delaying-queue.js';
import type { QueueOptions } from './queue.js';

/**
 * The work queue's shared interfaces: what a rate limiter is, what a rate-limiting queue and a priority queue offer
 * (the FIFO `RateLimitingQueue` and the `PriorityQueue` both implement {@link PriorityQueueInterface}), and the
 * options they take. Apart from the implementations so that neither needs the other.
 */

/** client-go `TypedRateLimiter`. */
export interface RateLimiter<T> {
  /** How long to wait before re-adding `item`; counts as one more failure for per-item limiters. */
  when(item: T): number;
  /** Stops tracking `item` (call it when the item finally succeeded); resets its failure count. */
  forget(item: T): void;
  /** How many times `when(item)` was called since it was last forgotten. */
  numRequeues(item: T): number;
}

/** client-go `TypedRateLimitingInterface`. */
export interface RateLimitingQueueInterface<T> extends DelayingQueueInterface<T> {
  /** Adds `item` after the delay the rate limiter assigns to it. */
  addRateLimited(item: T): void;
  /** Clears the rate limiter's memory of `item` (does not remove it from the queue). */
  forget(item: T): void;
  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/** {@link QueueOptions} plus the queue's rate limiter (client-go's `TypedRateLimitingQueueConfig`). */
export interface RateLimitingQueueOptions<T> extends QueueOptions {
  /** Defaults to {@link defaultControllerRateLimiter} on the queue's clock. */
  rateLimiter?: RateLimiter<T>;
}

/** How {@link PriorityQueue.addWithOpts} adds items (controller-runtime's `priorityqueue.AddOpts`). */
export interface AddOptions {
  /** Milliseconds to wait before the item is ready (0 or less: at once). */
  after?: number;
  /** Wait the delay the rate limiter assigns to the item (or `after`, if that is shorter and positive). */
  rateLimited?: boolean;
  /** Higher is handed out first; default 0. Handlers give objects of the initial list -100 ({@link LOW_PRIORITY}). */
  priority?: number;
}

/** What `getWithPriority()` resolves with: the next item and its priority, or `{ shutdown: true }`. */
export type PriorityGetResult<T> =
  | { item: T; priority: number; shutdown: false }
  | { item?: undefined; priority?: undefined; shutdown: true };

/** A rate-limiting queue with priorities (controller-runtime's `priorityqueue.PriorityQueue`). */
export interface PriorityQueueInterface<T> extends RateLimitingQueueInterface<T> {
  /** Adds `items` with `opts` (see {@link PriorityQueue} for how duplicates merge). */
  addWithOpts(opts: AddOptions, ...items: T[]): void;
  /** Like `get()`, also telling the priority the item had. */
  getWithPriority(): Promise<PriorityGetResult<T>>;
}
