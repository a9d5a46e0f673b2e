/**
 * The objects of an in-process run as explore sees them: every object the fake tracker holds of every served kind
 * but Events (not state) and CustomResourceDefinitions (the run's schema, not its state), with the resource each is
 * listed under. The end state compared between runs and the garbage collector read the same set.
 */
import type { KubeObject, ResourceInfo } from '../../client/types.js';
import type { ObjectTracker } from '../fake/object-tracker.js';

/** Every tracked object but Events and CRDs, each with its resource (module comment). */
export function trackedObjects(tracker: ObjectTracker): { resource: ResourceInfo; object: KubeObject }[] {
  const out: { resource: ResourceInfo; object: KubeObject }[] = [];
  for (const resource of tracker.resources()) {
    if (resource.resource === 'events' || resource.resource === 'customresourcedefinitions') continue;
    for (const object of tracker.list(resource, undefined).items) out.push({ resource, object });
  }
  return out;
}
