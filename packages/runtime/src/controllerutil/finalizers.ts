/**
 * Finalizer list helpers (controller-runtime `controllerutil.AddFinalizer` & co.). They mutate
 * `object.metadata.finalizers` in place and report whether anything changed, so the caller knows to write.
 */
import type { KubeObject } from '../client/types.js';

/** Appends `finalizer` unless present; returns whether it was added. */
export function addFinalizer(object: KubeObject, finalizer: string): boolean {
  object.metadata ??= {};
  const list = object.metadata.finalizers ?? [];
  if (list.includes(finalizer)) return false;
  object.metadata.finalizers = [...list, finalizer];
  return true;
}

/** Removes every occurrence of `finalizer`; returns whether any was removed. */
export function removeFinalizer(object: KubeObject, finalizer: string): boolean {
  const list = object.metadata?.finalizers;
  if (!list?.includes(finalizer)) return false;
  object.metadata!.finalizers = list.filter((f) => f !== finalizer);
  return true;
}

/** Whether `object` lists `finalizer` (controller-runtime's `controllerutil.ContainsFinalizer`); does not mutate. */
export function containsFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** Whether the object is being deleted (has a deletionTimestamp). */
export function isBeingDeleted(object: KubeObject): boolean {
  return Boolean(object.metadata?.deletionTimestamp);
}
