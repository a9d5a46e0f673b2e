/**
 * The reflector's errors and how it reports them: a failure tagged with the phase it came from ({@link PhaseError}),
 * a watch that ended at once ({@link VeryShortWatchError}), and the {@link ErrorReporter} that sends every error it
 * recovers from to `onError` and to the log, repeats damped.
 */
import type { Clock } from '../clock.js';
import { isConnectionError } from '../client/errors.js';
import { explainError } from '../client/forbidden.js';
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
