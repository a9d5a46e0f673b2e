/**
 * Keeps repeated log lines readable. The first occurrence of a key is logged; repeats within `intervalMs` are only
 * counted; the first one after the interval is logged again, carrying how many were left out (`repeated`). Used for
 * what retries on its own — conflicts, refused or reset connections, a down apiserver — so an outage costs a few
 * lines, not thousands. At most `maxKeys` keys are remembered (the oldest are forgotten first).
 */
import { realClock, type Clock } from './clock.js';

export const DEFAULT_REPEAT_INTERVAL_MS = 30_000;

/**
 * Decides which repeats of a log line to write, per the module comment (by default: once per key per 30 s, 1000 keys).
 * Only counts; the caller logs when `admit` says so.
 */
export class RepeatFilter {
  private readonly seen = new Map<string, { loggedAt: number; suppressed: number }>();

  constructor(
    private readonly clock: Clock = realClock,
    private readonly intervalMs = DEFAULT_REPEAT_INTERVAL_MS,
    private readonly maxKeys = 1000,
  ) {}

  /**
   * Whether to log this occurrence of `key`: `undefined` to leave it out, else the number of occurrences left out
   * since it was last logged (0 the first time).
   */
  admit(key: string): { repeated: number } | undefined {
    const now = this.clock.now();
    const entry = this.seen.get(key);
    if (entry && now - entry.loggedAt < this.intervalMs) {
      entry.suppressed++;
      return undefined;
    }
    const repeated = entry?.suppressed ?? 0;
    this.seen.delete(key);
    this.seen.set(key, { loggedAt: now, suppressed: 0 });
    if (this.seen.size > this.maxKeys) this.seen.delete(this.seen.keys().next().value!);
    return { repeated };
  }
}
