/**
 * Reconcile requests (controller-runtime `reconcile.Request`): the namespace/name of an object that may need work,
 * and its work-queue key. Handlers produce requests, controllers queue them by key and hand them to the reconciler.
 */

/** What to reconcile. `namespace` is `''` for cluster-scoped objects. */
export interface Request {
  namespace: string;
  name: string;
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
