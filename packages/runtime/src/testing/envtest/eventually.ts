/**
 * `eventually(fn)`: Gomega's `Eventually` for envtest tests — calls `fn` until it returns (or resolves) without
 * throwing, and returns that value. Between attempts it waits `intervalMs` (default 100 ms); after `timeoutMs`
 * (default 10 s) it throws the last error, prefixed with how long it tried. `fn` usually reads from the apiserver
 * and asserts, so a failed assertion is simply retried until the controller has caught up.
 */
export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

export async function eventually<T>(fn: () => T | Promise<T>, opts: EventuallyOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() + intervalMs > deadline) {
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`eventually: still failing after ${timeoutMs} ms (${attempt} attempts): ${message}`, { cause: err });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
