/**
 * `setupSignalHandler` (controller-runtime `SetupSignalHandler`): an AbortSignal that aborts on the first SIGTERM
 * or SIGINT. A second signal exits the process with code 1 at once (the operator insisted). Call it once per process.
 */
export function setupSignalHandler(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): AbortSignal {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) process.exit(1);
    ac.abort(new Error(`received ${sig}`));
  };
  for (const s of signals) process.on(s, onSignal);
  return ac.signal;
}
