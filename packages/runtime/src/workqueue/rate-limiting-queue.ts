import { DelayingQueue } from './delaying-queue.js';
import type { AddOptions, PriorityGetResult, PriorityQueueInterface } from './priority-queue.js';
import type { DelayingQueueInterface } from './delaying-queue.js';
import type { QueueOptions } from './queue.js';
import { defaultControllerRateLimiter } from './rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * A delaying queue whose re-adds are paced by a {@link RateLimiter} (client-go
 * `util/workqueue/rate_limiting_queue.go`). Typical worker loop: `get`, reconcile, then `forget(item)` on success
 * or `addRateLimited(item)` on failure, and always `done(item)`. Remember to call `forget`: otherwise the
 * per-item failure count (and so the backoff) keeps growing.
 */

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

/**
 * The FIFO queue of controllers (client-go's `NewTypedRateLimitingQueueWithConfig`; the priority queue is the
 * default): a {@link DelayingQueue} whose `addRateLimited` delay comes from `rateLimiter`. Call `forget` after a
 * success, or the backoff keeps growing. It takes `addWithOpts` and `getWithPriority` as controller-runtime's
 * wrapper of a FIFO queue does: priorities are ignored (every item has priority 0).
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> implements PriorityQueueInterface<T> {
  readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** `addRateLimited` when `opts.rateLimited`, else `addAfter` when `opts.after > 0`, else `add`; no priority. */
  addWithOpts(opts: AddOptions, ...items: T[]): void {
    for (const item of items) {
      if (opts.rateLimited) this.addRateLimited(item);
      else if (opts.after !== undefined && opts.after > 0) this.addAfter(item, opts.after);
      else this.add(item);
    }
  }

  /** `get()`, with priority 0. */
  async getWithPriority(): Promise<PriorityGetResult<T>> {
    const next = await this.get();
    return next.shutdown ? { shutdown: true } : { item: next.item, priority: 0, shutdown: false };
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
