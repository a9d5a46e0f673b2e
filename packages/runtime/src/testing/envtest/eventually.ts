/**
 * `eventually(fn)`: Gomega's `Eventually` for envtest tests — calls `fn` until it returns (or resolves) without
 * throwing, and returns that value. Between attempts it waits `intervalMs` (default 100 ms); after `timeoutMs`
 * (default 10 s) it throws the last error, prefixed with how long it tried. `fn` usually reads from the apiserver
 * and asserts, so a failed assertion is simply retried until the controller has caught up. `failFast` ends the wait
 * early on what no retry will fix.
 */
/**
 * Options of {@link eventually}: `timeoutMs` (default 10 000), `intervalMs` between attempts (default 100), and
 * `failFast`.
 */
export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /**
   * Called before every attempt; an error it throws ends the wait at once and is thrown as it is (not retried), e.g.
   * `() => recorder.assertNoneForbidden()` to stop waiting once the manager was refused a request.
   */
  failFast?: () => void;
}

/**
 * Retries `fn` until it does not throw and returns its value; throws its last error once `timeoutMs` has passed
 * (default 10 s; retried every `intervalMs`, default 100 ms). Uses real time, not a `Clock`.
 */
export async function eventually<T>(fn: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    opts.failFast?.();
    try {
      return await fn();
    } catch (err) {
      if (performance.now() + intervalMs > deadline) {
        opts.failFast?.();
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`eventually: still failing after ${timeoutMs} ms (${attempt} attempts): ${message}`, { cause: err });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
