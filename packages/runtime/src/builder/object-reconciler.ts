/**
 * Object reconcilers (controller-runtime's `reconcile.ObjectReconciler` and `reconcile.AsReconciler`): a reconciler
 * given the object rather than its name. `ControllerBuilder.completeObject(fn)` wraps `fn` in a {@link ReconcileFunc}
 * that reads the request's object of the `for` kind through the manager's client — from the cache once it has synced,
 * as a deep copy `fn` may change — and calls `fn(obj, ctx)`; an object that is gone (404) is skipped, `fn` not called
 * (a deletion needs no work, or a finalizer's, which sees the object while it is still there). Any other read error
 * fails the reconcile (rate-limited retry), as does a throwing `fn`; `fn`'s result is the reconcile's.
 */
import { isNotFound } from '../client/errors.js';
import type { KubeObject, ResourceInfo } from '../client/types.js';
import type { CachedClient } from '../cluster/cached-client.js';
import type { ReconcileContext, ReconcileFunc, Result } from '../reconcile/index.js';

/** Reconciles one object of the `for` kind (`T`: its type, e.g. the generated `KVStore`). */
export type ObjectReconcileFunc<T extends KubeObject> = (obj: T, ctx: ReconcileContext) => Promise<Result | void> | Result | void;

/**
 * The {@link ReconcileFunc} of `fn` (see the module comment). `info` gives the `for` kind once its source has it (a
 * kind named by GroupVersionKind is resolved when the controller starts); `metadataOnly` reads metadata only, as the
 * `for` watch does.
 */
export function objectReconciler<T extends KubeObject>(
  client: () => CachedClient,
  info: () => ResourceInfo | undefined,
  metadataOnly: boolean,
  fn: ObjectReconcileFunc<T>,
): ReconcileFunc {
  return async (req, ctx) => {
    const kind = info();
    if (!kind) throw new Error('the for() kind is not resolved yet');
    const resource = metadataOnly ? client().metadata(kind, req.namespace) : client().resource<T>(kind, req.namespace);
    let obj: T;
    try {
      obj = (await resource.get(req.name, { signal: ctx.signal })) as T;
    } catch (err) {
      if (isNotFound(err)) {
        ctx.log.debug('object not found: nothing to reconcile');
        return;
      }
      throw err;
    }
    return fn(obj, ctx);
  };
}
