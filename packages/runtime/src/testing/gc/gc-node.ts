/**
 * The nodes of the garbage collector's dependency graph (kube-controller-manager's `garbagecollector/graph.go`):
 * one node per object uid, with the object's identity (apiVersion, kind, namespace, name, uid), its owner
 * references, the set of nodes that name it as an owner, and three flags — `virtual` (only known from a dependent's
 * owner reference, never seen by an informer), `beingDeleted` (a deletionTimestamp was seen) and
 * `deletingDependents` (being deleted with the `foregroundDeletion` finalizer). Plus the identity helpers the graph
 * and the collector share (owner reference coordinates, the absent-owner cache).
 */
import type { OwnerReference } from '../../client/types.js';

/** The finalizer the apiserver adds for `propagationPolicy: Foreground` (metav1 `FinalizerDeleteDependents`). */
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';
/** The finalizer the apiserver adds for `propagationPolicy: Orphan` (metav1 `FinalizerOrphanDependents`). */
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';

/** Who an object is: its coordinates and uid (Go's `objectReference`); `namespace` is `''` for cluster-scoped ones. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  namespace: string;
}

/** The metadata the graph reads from an object (a metadata-only informer's `PartialObjectMetadata`). */
export interface ObjectMetadata {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
}

/** `Parent.gc.kubegen.dev/v1 ns/name (uid)`: how logs and errors name an object. */
export function describeIdentity(id: ObjectIdentity): string {
  return `${id.kind} ${id.apiVersion} ${id.namespace ? `${id.namespace}/` : ''}${id.name} (uid ${id.uid})`;
}

/** One string per identity, for maps and sets. */
export function identityKey(id: ObjectIdentity): string {
  return `${id.apiVersion}\u0000${id.kind}\u0000${id.namespace}\u0000${id.name}\u0000${id.uid}`;
}

/** Whether two identities are the same coordinates and uid. */
export const sameIdentity = (a: ObjectIdentity, b: ObjectIdentity): boolean => identityKey(a) === identityKey(b);

/** Whether an owner reference names the same apiVersion, kind, name and uid as `id` (namespace aside). */
export function referenceMatches(ref: OwnerReference, id: Pick<ObjectIdentity, 'apiVersion' | 'kind' | 'name' | 'uid'>): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && ref.apiVersion === id.apiVersion;
}

/** The identity an owner reference points to, in `namespace` (the dependent's: owners live beside dependents). */
export function identityOfReference(ref: OwnerReference, namespace: string): ObjectIdentity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/** Whether the metadata carries `finalizer`. */
export const hasFinalizer = (meta: ObjectMetadata | undefined, finalizer: string): boolean => (meta?.finalizers ?? []).includes(finalizer);

/** Whether the object is being deleted (has a deletionTimestamp). */
export const beingDeleted = (meta: ObjectMetadata | undefined): boolean => Boolean(meta?.deletionTimestamp);

/** A node of the dependency graph (see the module comment). */
export class GraphNode {
  readonly dependents = new Set<GraphNode>();

  constructor(
    public identity: ObjectIdentity,
    public owners: OwnerReference[] = [],
    public virtual = false,
    public beingDeleted = false,
    public deletingDependents = false,
  ) {}

  /** A copy with the same dependents (a new set), owners and flags. */
  clone(): GraphNode {
    const c = new GraphNode({ ...this.identity }, [...this.owners], this.virtual, this.beingDeleted, this.deletingDependents);
    for (const d of this.dependents) c.dependents.add(d);
    return c;
  }

  /** Dependents whose reference to this node has `blockOwnerDeletion: true`: they hold a foreground deletion. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion === true));
  }

  toString(): string {
    return describeIdentity(this.identity);
  }
}

/**
 * Owners confirmed absent (Go's `absentOwnerCache`, an LRU of `ReferenceCache`): a dependent's owner that a GET
 * found missing, or whose deletion the graph saw, so that other dependents of it need not ask again. Keyed by the
 * owner's coordinates, with the namespace for a namespaced owner and `''` for a cluster-scoped one.
 */
export class AbsentOwnerCache {
  private readonly keys = new Map<string, true>();

  constructor(private readonly capacity = 500) {}

  add(id: ObjectIdentity): void {
    const key = identityKey(id);
    this.keys.delete(key);
    this.keys.set(key, true);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.keys().next().value!);
  }

  has(id: ObjectIdentity): boolean {
    const key = identityKey(id);
    if (!this.keys.has(key)) return false;
    this.keys.delete(key);
    this.keys.set(key, true);
    return true;
  }
}

/**
 * Splits `dependents` into those whose reference to `owner.uid` matches `owner`'s coordinates (and namespace, for a
 * namespaced owner) and those that do not (Go's `partitionDependents`); one with two references may be in both.
 */
export function partitionDependents(dependents: Iterable<GraphNode>, owner: ObjectIdentity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace && owner.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (referenceMatches(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

function referenceLess(a: ObjectIdentity, b: ObjectIdentity): boolean {
  for (const k of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) if (a[k] !== b[k]) return a[k] < b[k];
  return false;
}

/**
 * Another identity `dependents` refer to `absent.uid` by (Go's `getAlternateOwnerIdentity`): the first, in
 * kind/apiVersion/namespace/name order, that follows `absent`, else the first of all; undefined when there is none.
 */
export function alternateOwnerIdentity(dependents: Iterable<GraphNode>, absent: ObjectIdentity): ObjectIdentity | undefined {
  const clusterScoped = absent.namespace === '';
  const seen = new Set([identityKey(absent)]);
  let first: ObjectIdentity | undefined;
  let firstFollowing: ObjectIdentity | undefined;
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (referenceMatches(ref, absent) && (clusterScoped || absent.namespace === dep.identity.namespace)) continue;
      const alt = identityOfReference(ref, dep.identity.namespace);
      if (clusterScoped && alt.apiVersion === absent.apiVersion && alt.kind === absent.kind) alt.namespace = '';
      const key = identityKey(alt);
      if (seen.has(key)) continue;
      seen.add(key);
      if (!first || referenceLess(alt, first)) first = alt;
      if (referenceLess(absent, alt) && (!firstFollowing || referenceLess(alt, firstFollowing))) firstFollowing = alt;
    }
  }
  return firstFollowing ?? first;
}
