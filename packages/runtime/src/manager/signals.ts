/**
 * `setupSignalHandler` (controller-runtime `SetupSignalHandler`): an AbortSignal that aborts on the first SIGTERM
 * or SIGINT. A second signal exits the process with code 1 at once (the operator insisted). Call it once per process.
 */
export function setupSignalHandler(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): AbortSignal {
  return installSignalHandler(signals).signal;
}

/**
 * `setupSignalHandler` that can be taken back: `dispose()` removes the handlers, so that a signal arriving after
 * the work they guarded has ended gets Node's default effect (the process ends) instead of aborting a signal nobody
 * listens to any more.
 */
export function installSignalHandler(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) process.exit(1);
    ac.abort(new Error(`received ${sig}`));
  };
  for (const s of signals) process.on(s, onSignal);
  return { signal: ac.signal, dispose: () => signals.forEach((s) => process.off(s, onSignal)) };
}

/**
 * Runs `start` with a signal that aborts on the first SIGTERM/SIGINT (a second exits with 1), the handler installed
 * only while it runs (see {@link installSignalHandler}); settles as `start` does. What `startWithSignals` of the
 * managers is made of.
 */
export async function runWithSignals(start: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const { signal, dispose } = installSignalHandler();
  try {
    await start(signal);
  } finally {
    dispose();
  }
}
