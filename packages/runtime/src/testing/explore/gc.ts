/**
 * The garbage collection a real control plane does between two steps of a run (kube-controller-manager's
 * collector, background propagation only): an object with owner references none of whose owners exists any more
 * (no object of the run has the uid) is deleted, and so on down the chain. Explore runs it after the controllers
 * settle, then lets them settle again, so that an owner's deletion ends with its dependents gone in every run, as
 * it does on a cluster (without it, dependents outlive their owner, holding uids that differ between runs).
 */
import type { KubeObject } from '../../client/types.js';
import type { ObjectTracker } from '../fake/object-tracker.js';
import { trackedObjects } from './tracked-objects.js';

/**
 * The entries whose object has owner references, none of which names an object among `entries` (by uid), and is not
 * being deleted already: what the collector deletes next (the rule both control planes of explore apply).
 */
export function orphans<E>(entries: readonly E[], objectOf: (entry: E) => KubeObject): E[] {
  const uids = new Set(entries.map((e) => objectOf(e).metadata?.uid).filter(Boolean));
  return entries.filter((e) => {
    const md = objectOf(e).metadata;
    const refs = md?.ownerReferences ?? [];
    return refs.length > 0 && !md?.deletionTimestamp && refs.every((ref) => !uids.has(ref.uid));
  });
}

/** Deletes every object all of whose owners are gone, until none is left; returns how many were deleted. */
export function collectGarbage(tracker: ObjectTracker): number {
  let deleted = 0;
  for (;;) {
    const found = orphans(trackedObjects(tracker), (e) => e.object);
    if (found.length === 0) return deleted;
    for (const { resource, object } of found) {
      try {
        tracker.delete(resource, object.metadata?.namespace, object.metadata!.name!);
        deleted++;
      } catch {
        // Gone meanwhile: nothing to collect.
      }
    }
  }
}
