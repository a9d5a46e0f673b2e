import type { Clock, TimerHandle } from '../clock.js';

/**
 * Calls `onIdle(quietMs)` once when `touch()` has not been called for `limit()` ms; `limit` is read again at each
 * check, so it may change (a WatchList waiting for its end bookmark has a shorter one). `stop()` disarms it.
 */
export class IdleTimer {
  private last: number;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly limit: () => number,
    private readonly onIdle: (quietMs: number) => void,
  ) {
    this.last = clock.now();
    this.arm(limit());
  }

  /** Something arrived: the quiet period starts over. Returns the time. */
  touch(): number {
    this.last = this.clock.now();
    return this.last;
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimeout(() => {
      const quiet = this.clock.now() - this.last;
      if (quiet < this.limit()) return this.arm(this.limit() - quiet);
      this.timer = undefined;
      this.onIdle(quiet);
    }, ms);
  }
}
