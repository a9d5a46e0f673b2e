import type { KubeObject } from '../client/types.js';

/**
 * Object keys and tombstones (client-go `tools/cache` `MetaNamespaceKeyFunc`, `DeletedFinalStateUnknown`).
 *
 * A key is `namespace/name` for a namespaced object and `name` for a cluster-scoped one.
 */

/** Returns `namespace/name` (or `name` when the object has no namespace). Throws when `metadata.name` is missing. */
export function metaNamespaceKey(obj: KubeObject): string {
  const meta = obj.metadata;
  const name = meta?.name;
  if (!name) throw new TypeError('object has no metadata.name');
  const ns = meta.namespace;
  return ns ? ns + '/' + name : name;
}

/** Splits a key made by {@link metaNamespaceKey} into its namespace (`''` when cluster-scoped) and name. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  if (i < 0) return { namespace: '', name: key };
  if (key.indexOf('/', i + 1) >= 0) throw new TypeError(`unexpected key format: ${JSON.stringify(key)}`);
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * Handed to `onDelete` in place of the object when the informer learned of a deletion without seeing the
 * final state: the object was gone from a relist (the watch was down, or expired, while it was deleted).
 * `obj` is the last state the cache held, which may be stale.
 */
export class DeletedFinalStateUnknown<T> {
  readonly key: string;
  readonly obj: T;
  constructor(key: string, obj: T) {
    this.key = key;
    this.obj = obj;
  }
}

/** True when `x` is a tombstone. */
export function isTombstone<T>(x: unknown): x is DeletedFinalStateUnknown<T> {
  return x instanceof DeletedFinalStateUnknown;
}

/** The object behind an `onDelete` argument: the object itself, or the tombstone's last known state. */
export function objectFromDeleted<T>(x: T | DeletedFinalStateUnknown<T>): T {
  return x instanceof DeletedFinalStateUnknown ? x.obj : x;
}

/** Like {@link metaNamespaceKey} but also accepts a tombstone (client-go `DeletionHandlingMetaNamespaceKeyFunc`). */
export function deletionHandlingMetaNamespaceKey(obj: KubeObject | DeletedFinalStateUnknown<unknown>): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : metaNamespaceKey(obj);
}
