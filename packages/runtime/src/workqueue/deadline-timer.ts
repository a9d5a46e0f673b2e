/**
 * The one clock timer a delaying queue keeps, armed for its earliest waiting entry (no timer per item): arming again
 * for the same deadline keeps the armed timer, another deadline replaces it, none cancels it. Delays are capped at
 * `MAX_TIMER_DELAY_MS`; a timer that fires early re-arms through the queue's callback.
 */
import { MAX_TIMER_DELAY_MS, type Clock, type TimerHandle } from '../clock.js';

export class DeadlineTimer {
  private handle: TimerHandle | undefined;
  /** The deadline the armed timer was scheduled for. */
  private due = Number.NaN;

  /** `fire` runs when the armed deadline is due (the queue then moves what is ready and arms again). */
  constructor(
    private readonly clock: Clock,
    private readonly fire: () => void,
  ) {}

  /** Arms the timer for `at` (clock ms), or cancels it when `at` is undefined or never comes (`Infinity`). */
  arm(at: number | undefined): void {
    if (at === undefined || at === Infinity) return this.cancel();
    if (this.handle !== undefined && this.due === at) return;
    this.cancel();
    this.due = at;
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      this.due = Number.NaN;
      this.fire();
    }, Math.min(MAX_TIMER_DELAY_MS, Math.max(0, at - this.clock.now())));
  }

  cancel(): void {
    if (this.handle === undefined) return;
    this.clock.clearTimeout(this.handle);
    this.handle = undefined;
    this.due = Number.NaN;
  }
}
