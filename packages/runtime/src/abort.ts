/** Resolves once `signal` aborts (at once if it already has); never rejects. For `await`ing a stop signal. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
