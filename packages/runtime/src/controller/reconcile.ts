/**
 * The reconcile contract (controller-runtime `pkg/reconcile`): a reconciler gets the namespace/name of an object
 * that may need work and drives actual state towards desired state. It reads the object itself (from the cache);
 * the request carries no object and no event type.
 */
import type { Logger } from '../log.js';

/** What to reconcile. `namespace` is `''` for cluster-scoped objects. */
export interface Request {
  namespace: string;
  name: string;
}

/**
 * What to do after a successful reconcile. `requeueAfterMs > 0` re-adds the request after that delay (and forgets
 * its failure count); `requeue: true` (without a delay) re-adds it rate-limited. Ignored when the reconcile failed.
 */
export interface Result {
  requeue?: boolean;
  requeueAfterMs?: number;
}

/** Per-reconcile context. `signal` aborts on controller shutdown and when the reconcile timeout passes. */
export interface ReconcileContext {
  signal: AbortSignal;
  /** Carries `controller`, `namespace`, `name` and `reconcileID`. */
  log: Logger;
  reconcileID: string;
}

/**
 * Reconciler: may throw or reject (→ rate-limited retry), throw a {@link TerminalError} (→ logged and counted, not
 * retried), or return a {@link Result}. Must not mutate objects read from the cache.
 */
export type ReconcileFunc = (request: Request, ctx: ReconcileContext) => Promise<Result | void> | Result | void;

export interface Reconciler {
  reconcile: ReconcileFunc;
}

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

/** The queue key of a request: `namespace/name`, or `name` when cluster-scoped (client-go `ObjectName.String`). */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

/** Inverse of {@link requestKey}. */
export function requestFromKey(key: string): Request {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
