import type { Clock } from '../clock.js';

/** Reflector backoff parameters (client-go `reflector.go`: 800 ms → 30 s, factor 2, jitter 1.0, reset after 2 min). */
export interface BackoffOptions {
  /** First delay. Default 800 ms. */
  initialMs?: number;
  /** Largest delay. Default 30 s. */
  maxMs?: number;
  /** Growth factor per failure. Default 2. */
  factor?: number;
  /** Each delay is `d * (1 + jitter * random())`, capped at `maxMs`. Default 1.0. */
  jitter?: number;
  /** When the previous backoff was longer ago than this, start over from `initialMs`. Default 2 min. */
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
 * Exponential backoff with jitter that resets after a healthy period: the delay grows while failures follow each
 * other, and starts again from `initialMs` once nothing needed a backoff for `resetAfterMs`.
 */
export class Backoff {
  private readonly opts: Required<BackoffOptions>;
  private current: number;
  private lastAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    opts: BackoffOptions = {},
  ) {
    this.opts = { ...DEFAULT_BACKOFF, random: Math.random, ...stripUndefined(opts) };
    this.current = this.opts.initialMs;
  }

  /** The delay to wait before the next attempt; advances the backoff. */
  next(): number {
    const now = this.clock.now();
    if (this.lastAt !== undefined && now - this.lastAt > this.opts.resetAfterMs) this.current = this.opts.initialMs;
    this.lastAt = now;
    const base = this.current;
    this.current = Math.min(this.opts.maxMs, base * this.opts.factor);
    return Math.min(this.opts.maxMs, base * (1 + this.opts.jitter * this.opts.random()));
  }

  /** Forgets past failures. */
  reset(): void {
    this.current = this.opts.initialMs;
    this.lastAt = undefined;
  }
}

function stripUndefined<O extends object>(o: O): Partial<O> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<O>;
}
