/**
 * What the janitor keeps of the objects it watches, and which of their events reach its queues. Its informers are
 * metadata-only (PartialObjectMetadata: no spec, no status, no managedFields); `slimMetadata` then keeps of each
 * object only what a decision needs — name, namespace, uid, resourceVersion, creation and deletion times and the TTL
 * annotation — and drops labels, other annotations (a `kubectl apply` copy of the whole object, often), owner
 * references and finalizers. So an object costs the janitor a few hundred bytes whatever its size (README: memory).
 */
import type { KubeObject, ObjectMeta, Predicate } from '@kubegen/runtime';
import { TTL_ANNOTATION } from './ttl.js';

/** The cache transform of every informer of the janitor (see the module comment). */
export function slimMetadata(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  const meta: ObjectMeta = {};
  if (m.name !== undefined) meta.name = m.name;
  if (m.namespace !== undefined) meta.namespace = m.namespace;
  if (m.uid !== undefined) meta.uid = m.uid;
  if (m.resourceVersion !== undefined) meta.resourceVersion = m.resourceVersion;
  if (m.creationTimestamp !== undefined) meta.creationTimestamp = m.creationTimestamp;
  if (m.deletionTimestamp !== undefined) meta.deletionTimestamp = m.deletionTimestamp;
  const ttl = m.annotations?.[TTL_ANNOTATION];
  if (ttl !== undefined) meta.annotations = { [TTL_ANNOTATION]: ttl };
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: meta } as KubeObject;
}

/**
 * Lets through the creates and updates of objects that carry the TTL annotation, outside `excludedNamespaces`:
 * nothing else ever needs a reconcile (deletes do not; an object whose annotation is removed has a pending requeue
 * at most, which then finds no TTL).
 */
export function janitorPredicate(excludedNamespaces: readonly string[]): Predicate<KubeObject> {
  const excluded = new Set(excludedNamespaces);
  const wanted = (o: KubeObject): boolean => o.metadata?.annotations?.[TTL_ANNOTATION] !== undefined && !excluded.has(o.metadata?.namespace ?? '');
  return { create: wanted, update: (_old, o) => wanted(o), delete: () => false, generic: wanted };
}
