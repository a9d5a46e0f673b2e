/** How a resource is registered with the in-memory `ObjectTracker`, and the naming helpers the fakes share. */
import type { ResourceDescriptor, ResourceInfo, ScalePaths } from '../../client/types.js';

/**
 * Where a resource keeps the numbers its scale subresource reads and writes (CRD `subresources.scale`): JSON paths
 * such as `.spec.replicas`, `.status.replicas` and (to a label selector *string*) `.status.selector`.
 */
export type FakeScaleSpec = ScalePaths;

/**
 * A resource the tracker serves: its URL/kind info plus which subresources it has (the same shape generated
 * `register.ts` modules export as `ResourceDescriptor`). With a status subresource, writes to the main resource
 * ignore `status`, and status writes touch only `status`.
 *
 * The fake's discovery lists it with its singular (default: the lower-cased kind), short names, categories,
 * `verbs` (default: all eight) and subresources (`status` and `scale` when it has them, plus `subresources`).
 */
export interface FakeResource extends ResourceDescriptor {
  /** The verbs discovery lists (default: create, delete, deletecollection, get, list, patch, update, watch). */
  verbs?: string[];
  /** Subresources discovery lists besides `status` and `scale` (which follow `statusSubresource` and `scale`). */
  subresources?: { name: string; kind?: string; verbs: string[] }[];
}

/** `foos.example.com`, or `pods` for the core group: how the apiserver names a resource in error messages. */
export function groupResourceOf(r: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** `Foo.example.com`, or `Pod` for the core group: how validation errors name the kind. */
export function groupKindOf(r: Pick<ResourceInfo, 'group' | 'kind'>): string {
  return r.group ? `${r.kind}.${r.group}` : r.kind;
}
