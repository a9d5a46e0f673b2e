import { realClock } from '../clock.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from './interfaces.js';

/**
 * Overall (not per-item) token-bucket limiter: client-go `TypedBucketRateLimiter` around
 * `golang.org/x/time/rate.Limiter`, returning `Reserve().Delay()`.
 *
 * The bucket starts full with `burst` tokens and refills at `qps` tokens per second. Each `when()` reserves one
 * token, possibly driving the balance negative: at one instant, the Nth call beyond the burst waits N/qps seconds.
 * With `qps = Infinity` every call returns 0. With `qps <= 0` the first `burst` calls return 0 and the rest
 * `Infinity` (never); a burst below 1 also means never (x/time/rate refuses the reservation).
 * `forget` is a no-op and `numRequeues` is always 0.
 */
export class BucketRateLimiter<T = unknown> implements RateLimiter<T> {
  private tokens: number;
  /** Clock time the token balance was last updated. */
  private last: number;

  constructor(
    readonly qps: number = 10,
    readonly burst: number = 100,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    if (this.qps === Infinity) return 0;
    const now = this.clock.now();
    if (!(this.qps > 0)) {
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return 0;
      }
      return Infinity;
    }
    if (this.burst < 1) return Infinity;
    const tokens = this.advance(now) - 1;
    const waitMs = tokens < 0 ? (-tokens * 1000) / this.qps : 0;
    this.last = Math.max(this.last, now);
    this.tokens = tokens;
    // Go works in whole nanoseconds; rounding there also hides float noise such as 700.0000000000001.
    return Math.round(waitMs * 1e6) / 1e6;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }

  /** Token balance at `now`: refilled for the time elapsed since `last`, capped at the burst. */
  private advance(now: number): number {
    const elapsedMs = Math.max(0, now - this.last);
    return Math.min(this.burst, this.tokens + (elapsedMs * this.qps) / 1000);
  }
}
