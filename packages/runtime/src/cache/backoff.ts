import type { Clock } from '../clock.js';

/**
 * Backoff parameters. Defaults are client-go's reflector backoff (800 ms → 30 s, factor 2, jitter 1.0, reset after
 * 2 min); the reflector itself resets after 10 s of health (`REFLECTOR_BACKOFF`).
 */
export interface BackoffOptions {
  /** First delay. Default 800 ms. */
  initialMs?: number;
  /** Largest delay. Default 30 s. */
  maxMs?: number;
  /** Growth factor per failure. Default 2. */
  factor?: number;
  /** Each delay is `d * (1 + jitter * random())`, capped at `maxMs`. Default 1.0. */
  jitter?: number;
  /**
   * A failure that comes more than this after the previous retry started (the previous wait ended) follows a
   * healthy period: the backoff starts over from `initialMs`. Default 2 min.
   */
  resetAfterMs?: number;
  /** Source of randomness in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

export const DEFAULT_BACKOFF: Required<Omit<BackoffOptions, 'random'>> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1.0,
  resetAfterMs: 120_000,
};

/**
 * The reflector's: client-go's growth, but a healthy period of 10 s resets it, so an apiserver that restarts every
 * half minute is found again within a few seconds each time instead of after a backoff carried over from the last.
 */
export const REFLECTOR_BACKOFF: Required<Omit<BackoffOptions, 'random'>> = { ...DEFAULT_BACKOFF, resetAfterMs: 10_000 };

/**
 * Exponential backoff with jitter that resets after a healthy period: the delay grows while failures follow each
 * other, and starts again from `initialMs` when a failure comes more than `resetAfterMs` after the previous retry
 * started (so the time spent waiting does not count as health).
 */
export class Backoff {
  private readonly opts: Required<BackoffOptions>;
  private current: number;
  /** When the wait handed out last ends (the retry starts). */
  private retryAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    opts: BackoffOptions = {},
    defaults: Required<Omit<BackoffOptions, 'random'>> = DEFAULT_BACKOFF,
  ) {
    this.opts = { ...defaults, random: Math.random, ...stripUndefined(opts) };
    this.current = this.opts.initialMs;
  }

  /** The delay to wait before the next attempt; advances the backoff. */
  next(): number {
    const now = this.clock.now();
    if (this.retryAt !== undefined && now - this.retryAt > this.opts.resetAfterMs) this.current = this.opts.initialMs;
    const base = this.current;
    this.current = Math.min(this.opts.maxMs, base * this.opts.factor);
    const delay = Math.min(this.opts.maxMs, base * (1 + this.opts.jitter * this.opts.random()));
    this.retryAt = now + delay;
    return delay;
  }

  /** Forgets past failures. */
  reset(): void {
    this.current = this.opts.initialMs;
    this.retryAt = undefined;
  }
}

function stripUndefined<O extends object>(o: O): Partial<O> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<O>;
}
