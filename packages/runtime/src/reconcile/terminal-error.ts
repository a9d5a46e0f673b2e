/**
 * Errors a reconciler throws to say "do not retry" (controller-runtime `reconcile.TerminalError`): the controller
 * logs and counts them but does not requeue the request.
 */

/** An error that retrying will not fix (controller-runtime `reconcile.TerminalError`). */
export class TerminalError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'TerminalError';
  }
}

/** True for a {@link TerminalError} or an error whose `cause` chain contains one. */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 16; e = e.cause, depth++) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}
