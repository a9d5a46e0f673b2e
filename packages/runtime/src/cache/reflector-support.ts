import type { Clock, TimerHandle } from '../clock.js';
import { isConnectionError, isGone } from '../client/errors.js';
import { explainError } from '../client/forbidden.js';
import type { ListOptions } from '../client/interfaces.js';
import type { KubeList } from '../client/types.js';
import type { Logger } from '../log.js';
import { RepeatFilter } from '../log-repeats.js';
import type { ReflectorPhase } from './reflector-types.js';

/**
 * How a reflector reports the errors it recovers from: to `onError` always; to the log with connection failures at
 * warn level and other errors at error level, repeats of the same failure at most every 30 s (with a count).
 */
export class ErrorReporter {
  private readonly repeats: RepeatFilter;

  constructor(
    private readonly log: Logger,
    clock: Clock,
    private readonly onError: ((err: unknown, phase: ReflectorPhase) => void) | undefined,
  ) {
    this.repeats = new RepeatFilter(clock);
  }

  /** Reports `err` (a {@link PhaseError} is unwrapped) from `phase`; `resourceVersion` goes into the log line. */
  report(err: unknown, phase: ReflectorPhase, resourceVersion: string): void {
    const cause = causeOf(err);
    // A 403 names the verb, resource, identity and the RBAC marker that grants it; a 404 names the kind and its CRD.
    const message = explainError(cause);
    const connection = isConnectionError(cause);
    const code = (cause as { code?: unknown } | null)?.code;
    const admitted = this.repeats.admit(`${phase}|${connection && typeof code === 'string' ? code : message}`);
    if (admitted) {
      const fields = { error: message, resourceVersion, ...(admitted.repeated > 0 ? { repeated: admitted.repeated } : {}) };
      // The apiserver being away is retried without a person's help: warn. Anything else may need one: error.
      if (connection) this.log.warn(`${phase} failed; retrying`, fields);
      else this.log.error(`${phase} failed`, fields);
    }
    try {
      this.onError?.(cause, phase);
    } catch (e) {
      this.log.error('reflector error handler threw', { error: e instanceof Error ? e.message : String(e) });
    }
  }
}

/** A watch that ended within a second without any event (client-go `VeryShortWatchError`). */
export class VeryShortWatchError extends Error {
  override readonly name = 'VeryShortWatchError';
  constructor() {
    super('very short watch: the watch ended within 1s without any event');
  }
}

/** Tags an error with the phase it came from. */
export class PhaseError extends Error {
  constructor(
    readonly phase: ReflectorPhase,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The error a {@link PhaseError} carries, or `err` itself. */
export function causeOf(err: unknown): unknown {
  return err instanceof PhaseError ? err.cause : err;
}

/** Every page of a list: the items, the list's resourceVersion, and how many pages it took. */
export interface PagedList<T> {
  items: T[];
  resourceVersion: string;
  pages: number;
}

/**
 * Lists every page (client-go's pager): `first` names the selectors, resourceVersion and page size (`limit`; unset:
 * one unpaginated list). A continue token that expires mid-way (410) starts over with one unpaginated list; any
 * other error is thrown as is.
 */
export async function listPages<T>(request: (opts: ListOptions) => Promise<KubeList<T>>, first: ListOptions, log: Logger): Promise<PagedList<T>> {
  const items: T[] = [];
  let limit = first.limit;
  let resourceVersion = '';
  let cont: string | undefined;
  let pages = 0;
  for (;;) {
    let page;
    try {
      page = await request({ ...first, resourceVersion: cont ? undefined : first.resourceVersion, limit, continue: cont });
    } catch (err) {
      if (!isGone(err) || !cont) throw err;
      log.info('list continuation expired; falling back to a full list', { resourceVersion: first.resourceVersion });
      items.length = 0;
      cont = undefined;
      limit = undefined;
      continue;
    }
    pages++;
    for (const item of page.items ?? []) items.push(item);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    cont = page.metadata?.continue || undefined;
    if (!cont) return { items, resourceVersion, pages };
  }
}

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
