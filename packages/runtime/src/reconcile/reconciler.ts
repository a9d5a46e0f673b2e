/**
 * The reconciler contract (controller-runtime `reconcile.Reconciler`): a reconciler gets the namespace/name of an
 * object that may need work and drives actual state towards desired state. It reads the object itself (from the
 * cache); the request carries no object and no event type.
 */
import type { Logger } from '../log.js';
import type { Request } from './request.js';

/**
 * What to do after a successful reconcile. `requeueAfterMs > 0` re-adds the request after that delay (and forgets
 * its failure count); `requeue: true` (without a delay) re-adds it rate-limited. Ignored when the reconcile failed.
 */
export interface Result {
  requeue?: boolean;
  requeueAfterMs?: number;
  /**
   * Priority of the re-add (`requeue`, `requeueAfterMs`) on the controller's priority queue; higher is handed out
   * first. Default: the priority the request was handed out with (an object of the initial list stays at -100).
   * Ignored by the FIFO queue (`usePriorityQueue: false`).
   */
  priority?: number;
}

/** Per-reconcile context. `signal` aborts on controller shutdown and when the reconcile timeout passes. */
export interface ReconcileContext {
  signal: AbortSignal;
  /** Carries `controller`, `namespace`, `name` and `reconcileID`. */
  log: Logger;
  reconcileID: string;
}

/**
 * Reconciler: may throw or reject (→ rate-limited retry), throw a `TerminalError` (→ logged and counted, not
 * retried), or return a {@link Result}. Must not mutate objects read from the cache.
 */
export type ReconcileFunc = (request: Request, ctx: ReconcileContext) => Promise<Result | void> | Result | void;

/** A reconciler as an object (controller-runtime's `reconcile.Reconciler`): `reconcile` is a {@link ReconcileFunc}. */
export interface Reconciler {
  reconcile: ReconcileFunc;
}
