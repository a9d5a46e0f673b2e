/**
 * Client-side request throttling: a token bucket as client-go's `flowcontrol.NewTokenBucketRateLimiter(qps, burst)`.
 * The bucket starts full (`burst` tokens) and refills at `qps` tokens per second; each request takes one token and
 * waits (in FIFO order) when none is left. The HTTP transport uses it only when `qps` is set: like
 * controller-runtime, client-side throttling is off by default and the apiserver's Priority and Fairness is relied on.
 */
import { realClock, type Clock } from '../clock.js';
import { sleep } from '../deadline.js';

export interface ThrottleOptions {
  /** Sustained requests per second; must be > 0. */
  qps: number;
  /** Largest burst; defaults to `max(1, ceil(qps))`. */
  burst?: number;
  /** Time source; a `FakeClock` in tests. */
  clock?: Clock;
}

/**
 * A token bucket. `acquire()` reserves the next token at once (so waiters are served in call order) and sleeps until
 * that token is due. An aborted waiter gives its reservation back.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private readonly clock: Clock;
  /** Tokens available at `last` (may be negative: reserved by waiters). */
  private tokens: number;
  private last: number;

  constructor(opts: ThrottleOptions) {
    if (!(opts.qps > 0)) throw new RangeError(`qps must be > 0, got ${opts.qps}`);
    this.qps = opts.qps;
    this.burst = Math.max(1, Math.floor(opts.burst ?? Math.ceil(opts.qps)));
    this.clock = opts.clock ?? realClock;
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  /** Takes a token without waiting; false when none is available now. */
  tryAcquire(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Waits for a token. Rejects with the signal's reason if `signal` aborts while waiting. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    const waitMs = (-this.tokens / this.qps) * 1000;
    try {
      await sleep(this.clock, waitMs, signal);
    } catch (err) {
      this.tokens += 1;
      throw err;
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = now - this.last;
    this.last = now;
    if (elapsed > 0) this.tokens = Math.min(this.burst, this.tokens + (elapsed / 1000) * this.qps);
  }
}
