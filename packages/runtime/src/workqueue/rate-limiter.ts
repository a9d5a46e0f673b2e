import type { Clock } from '../clock.js';
import { BucketRateLimiter } from './bucket-rate-limiter.js';
import type { RateLimiter } from './interfaces.js';

export type { RateLimiter } from './interfaces.js';

/**
 * Rate limiters for re-queueing failed items (client-go `util/workqueue/default_rate_limiters.go`).
 * All delays are milliseconds. Per-item limiters keep a failure count per item until `forget(item)`.
 */

/**
 * Per-item exponential backoff: the Nth failure (from 0) waits `baseDelayMs * 2^N`, capped at `maxDelayMs`.
 * Huge failure counts saturate at `maxDelayMs` rather than overflowing.
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly baseDelayMs: number = 5,
    readonly maxDelayMs: number = 1_000_000,
  ) {}

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    if (!(this.baseDelayMs > 0)) return 0;
    const backoff = this.baseDelayMs * 2 ** exp; // Infinity once 2^exp overflows
    return backoff > this.maxDelayMs ? this.maxDelayMs : backoff;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** Per-item: `fastDelayMs` for the first `maxFastAttempts` failures, `slowDelayMs` after that. */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly fastDelayMs: number,
    readonly slowDelayMs: number,
    readonly maxFastAttempts: number,
  ) {}

  when(item: T): number {
    const count = (this.failures.get(item) ?? 0) + 1;
    this.failures.set(item, count);
    return count <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** The worst case of its children: `when` asks every child (so all of them count the failure) and returns the max. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let max = 0;
    for (const limiter of this.limiters) {
      const delay = limiter.when(item);
      if (delay > max) max = delay;
    }
    return max;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.numRequeues(item));
    return max;
  }
}

/** Caps another limiter's delay at `maxDelayMs` (client-go `WithMaxWaitRateLimiter`). */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  constructor(
    readonly limiter: RateLimiter<T>,
    readonly maxDelayMs: number,
  ) {}

  when(item: T): number {
    return Math.min(this.limiter.when(item), this.maxDelayMs);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }
}

/**
 * client-go `DefaultTypedControllerRateLimiter`: max of per-item exponential backoff (5ms .. 1000s) and an
 * overall 10 qps / burst 100 token bucket. `clock` drives the bucket (pass the queue's clock in tests).
 */
export function defaultControllerRateLimiter<T>(clock?: Clock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}

/** client-go `DefaultTypedItemBasedRateLimiter`: per-item exponential backoff from 1ms to 1000s. */
export function defaultItemBasedRateLimiter<T>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(1, 1_000_000);
}
