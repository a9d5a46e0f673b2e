import { DelayingQueue } from './delaying-queue.js';
import type { AddOptions, PriorityGetResult, PriorityQueueInterface, RateLimiter, RateLimitingQueueOptions } from './interfaces.js';
import { defaultControllerRateLimiter } from './rate-limiter.js';

export type { RateLimitingQueueInterface, RateLimitingQueueOptions } from './interfaces.js';

/**
 * A delaying queue whose re-adds are paced by a {@link RateLimiter} (client-go
 * `util/workqueue/rate_limiting_queue.go`). Typical worker loop: `get`, reconcile, then `forget(item)` on success
 * or `addRateLimited(item)` on failure, and always `done(item)`. Remember to call `forget`: otherwise the
 * per-item failure count (and so the backoff) keeps growing.
 */

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
