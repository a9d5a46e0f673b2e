/**
 * Waiting with a deadline or a way out, on an injectable {@link Clock}: the runtime's one `sleep`, `withTimeout` and
 * `abortable` (client-go's `wait` and context deadlines, as promises and `AbortSignal`s).
 *
 * Contract:
 * - `sleep(clock, ms, signal?)` resolves after `ms` on `clock`, or rejects with the signal's reason as soon as it
 *   aborts (at once when it already has); its timer is cleared either way.
 * - `abortable(promise, signal, dispose?)` settles with `promise`, or rejects with the signal's reason as soon as it
 *   aborts, for work that ignores its signal; a value that arrives after the abort is handed to `dispose` (to close a
 *   watch nobody will read, say), an error after it is dropped.
 * - `withTimeout(clock, ms, fn, options?)` runs `fn` with a signal that aborts when `options.signal` aborts (with its
 *   reason) or after `ms` on `clock` (with `options.timeoutError()`, default a {@link DeadlineExceededError}), and
 *   settles as soon as either happens even when `fn` ignores the signal (`abortable`); its timer and listener are
 *   removed when it settles.
 * Nothing here reads the wall clock or keeps state between calls; timers are the clock's (a `FakeClock` drives them).
 */
import type { Clock } from './clock.js';

/** What {@link withTimeout} rejects with after its time is up, unless told another error. */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(readonly ms: number) {
    super(`deadline of ${ms} ms exceeded`);
  }
}

/** Options of {@link withTimeout}; all optional. */
export interface WithTimeoutOptions<R> {
  /** Aborting it aborts the work at once, with its reason (a manager's or a reflector's stop). */
  signal?: AbortSignal;
  /** The error the work is aborted with, and the call rejects with, when `ms` has passed. */
  timeoutError?: () => unknown;
  /** Receives a value that arrives after the call settled (see `abortable`). */
  dispose?: (value: R) => void;
}

/** Resolves after `ms` on `clock`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `fn` with a signal that aborts when `options.signal` aborts or after `ms` on `clock`; settles as soon as
 * either happens even if `fn` ignores the signal (see the module comment).
 */
export async function withTimeout<R>(clock: Clock, ms: number, fn: (signal: AbortSignal) => Promise<R>, options: WithTimeoutOptions<R> = {}): Promise<R> {
  const { signal: stop, timeoutError = () => new DeadlineExceededError(ms), dispose } = options;
  const ctl = new AbortController();
  const onStop = (): void => ctl.abort(stop!.reason);
  stop?.addEventListener('abort', onStop, { once: true });
  if (stop?.aborted) onStop();
  const timer = clock.setTimeout(() => ctl.abort(timeoutError()), ms);
  try {
    return await abortable(fn(ctl.signal), ctl.signal, dispose);
  } finally {
    clock.clearTimeout(timer);
    stop?.removeEventListener('abort', onStop);
  }
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts (for work that ignores the signal).
 * A value that arrives after the abort is handed to `dispose`.
 */
export function abortable<R>(promise: Promise<R>, signal: AbortSignal, dispose?: (value: R) => void): Promise<R> {
  if (signal.aborted) {
    void promise.then(dispose, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<R>((resolve, reject) => {
    let done = false;
    const onAbort = (): void => {
      if (done) return;
      done = true;
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        if (done) dispose?.(v);
        else {
          done = true;
          resolve(v);
        }
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        if (!done) {
          done = true;
          reject(e);
        }
      },
    );
  });
}
