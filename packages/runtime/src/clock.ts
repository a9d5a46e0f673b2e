/**
 * Injectable time source for the runtime (client-go's `k8s.io/utils/clock`).
 *
 * Every runtime component that reads the time or schedules work takes a `Clock` so tests can drive it with a
 * {@link FakeClock} instead of sleeping on real time. Times are milliseconds since the Unix epoch.
 */
import { performance } from 'node:perf_hooks';

/** Opaque handle returned by {@link Clock.setTimeout}; only meaningful to the clock that issued it. */
export interface TimerHandle {
  readonly __timerHandle?: never;
}

/** A time source with timers (client-go's `clock.Clock`): {@link RealClock} normally, {@link FakeClock} in tests. */
export interface Clock {
  /** Current time in milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `fn` once, no earlier than `ms` milliseconds from now (negative or NaN delays mean "as soon as possible").
   * `fn` must not throw; clocks do not catch for the caller.
   */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or already-fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** Largest delay Node's `setTimeout` accepts; longer delays are re-armed in steps of at most this size. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

interface RealTimer extends TimerHandle {
  current: ReturnType<typeof globalThis.setTimeout> | undefined;
}

/**
 * Real time with Node timers. Timers keep the process alive (they are not unref'd).
 *
 * `now()` is monotonic: the wall-clock time at process start plus the monotonic time elapsed since (Go's
 * `time.Now()` carries a monotonic reading for the same reason). A wall clock stepped forward or back while the
 * process runs does not make a held Lease look expired or a backoff look over; timestamps written to the API
 * (lease renewals, events) stay the wall-clock time unless the system clock is stepped after start.
 */
export class RealClock implements Clock {
  now(): number {
    return monotonicNow();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const due = monotonicNow() + normalizeDelay(ms);
    const timer: RealTimer = { current: undefined };
    // Delays beyond Node's 32-bit limit (or Infinity) are re-armed in chunks instead of firing after 1ms.
    const arm = (): void => {
      const remaining = due - monotonicNow();
      if (remaining > MAX_TIMER_DELAY_MS) {
        timer.current = globalThis.setTimeout(arm, MAX_TIMER_DELAY_MS);
      } else {
        timer.current = globalThis.setTimeout(() => {
          timer.current = undefined;
          fn();
        }, Math.max(0, remaining));
      }
    };
    arm();
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = handle as RealTimer;
    if (timer.current !== undefined) {
      globalThis.clearTimeout(timer.current);
      timer.current = undefined;
    }
  }
}

/** Read once: `performance.timeOrigin` is a getter that costs about as much as `performance.now()` itself. */
const TIME_ORIGIN = performance.timeOrigin;

function monotonicNow(): number {
  return TIME_ORIGIN + performance.now();
}

/** Shared real clock; the default wherever a `clock` option is omitted. */
export const realClock: Clock = new RealClock();

interface FakeTimer extends TimerHandle {
  due: number;
  seq: number;
  fn: () => void;
}

/**
 * Manually driven clock for tests. Time only moves through {@link FakeClock.step} / {@link FakeClock.setTime};
 * timers fire synchronously inside those calls, in due-time order (ties in scheduling order), with `now()`
 * reading each timer's due time while it runs. Timers scheduled by a firing timer also fire if they fall due
 * within the same step.
 */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  /** Pending timers sorted by (due, seq). */
  private timers: FakeTimer[] = [];

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { due: this.time + normalizeDelay(ms), seq: this.seq++, fn };
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1]!.due > timer.due) i--;
    this.timers.splice(i, 0, timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    const i = this.timers.indexOf(handle as FakeTimer);
    if (i >= 0) this.timers.splice(i, 1);
  }

  /** Advances time by `ms` (>= 0), firing every timer that falls due on the way. */
  step(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.step: ms must be >= 0, got ${ms}`);
    this.setTime(this.time + ms);
  }

  /** Moves time to `t` (never backwards), firing every timer due at or before `t`. */
  setTime(t: number): void {
    if (t < this.time) throw new RangeError(`FakeClock.setTime: cannot move backwards (${t} < ${this.time})`);
    for (;;) {
      const next = this.timers[0];
      if (next === undefined || next.due > t) break;
      this.timers.shift();
      this.time = Math.max(this.time, next.due);
      next.fn();
    }
    this.time = t;
  }

  /** Number of scheduled, unfired timers. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Due time of the earliest pending timer, if any. */
  nextTimerDue(): number | undefined {
    return this.timers[0]?.due;
  }
}

function normalizeDelay(ms: number): number {
  return Number.isNaN(ms) || ms < 0 ? 0 : ms;
}
