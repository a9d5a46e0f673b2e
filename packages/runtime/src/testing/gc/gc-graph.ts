/**
 * The dependency graph of the garbage collector (kube-controller-manager's `GraphBuilder.processGraphChanges`): it
 * applies the informers' add/update/delete events, and the collector's "virtual" delete events, to a uid → node map,
 * keeping each owner's set of dependents, and tells the collector which nodes to look at:
 *
 * - `attemptToDelete`: a dependent whose owner went away (or may never have existed), an owner that starts a
 *   foreground deletion (and its dependents), an owner in a foreground deletion when one of its blocking dependents
 *   goes or stops blocking, a virtual owner (to check that it exists), a dependent whose reference does not match
 *   what the graph observed (wrong namespace, kind or name for that uid).
 * - `attemptToOrphan`: an owner that starts an orphaning deletion (finalizer `orphan`).
 *
 * Events are applied synchronously, one at a time (the JS event loop serialises them, as Go's single
 * `graphChanges` queue does). A dependent whose owner reference points to a namespaced owner in another namespace
 * is queued (the collector then finds that owner absent); Go also records a Warning Event `OwnerRefInvalidNamespace`
 * on it — here it is a warning in the log.
 */
import type { OwnerReference } from '../../client/types.js';
import type { Logger } from '../../log.js';
import {
  AbsentOwnerCache,
  alternateOwnerIdentity,
  beingDeleted,
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
  GraphNode,
  hasFinalizer,
  identityOfReference,
  partitionDependents,
  referenceMatches,
  sameIdentity,
  type ObjectIdentity,
  type ObjectMetadata,
} from './gc-node.js';

/** One change to apply: an informer's event (with the old metadata for an update), or a virtual delete. */
export interface GraphEvent {
  type: 'add' | 'update' | 'delete';
  /** The kind's apiVersion and kind (the informer's resource, or the virtual node's coordinates). */
  apiVersion: string;
  kind: string;
  meta: ObjectMetadata;
  oldMeta?: ObjectMetadata;
  /** A delete the collector inferred (a GET found the object absent), not one an informer saw. */
  virtual?: boolean;
}

/** Where the graph sends the nodes the collector must look at. */
export interface GraphQueues {
  attemptToDelete(node: GraphNode): void;
  /** Rate-limited re-add (a replaced virtual node). */
  attemptToDeleteLater(node: GraphNode): void;
  attemptToOrphan(node: GraphNode): void;
}

/** The uid → node graph and its event processing (see the module comment). */
export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  constructor(
    private readonly queues: GraphQueues,
    readonly absentOwners: AbsentOwnerCache,
    private readonly log: Logger,
  ) {}

  /** The node of `uid`, if the graph has one. */
  read(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** How many nodes the graph holds. */
  get size(): number {
    return this.nodes.size;
  }

  /** Applies one event (see the module comment). */
  process(ev: GraphEvent): void {
    const uid = ev.meta.uid;
    if (!uid) return;
    let existing = this.nodes.get(uid);
    const observed = identityFromEvent(ev);
    if (existing && !ev.virtual && existing.virtual) {
      // First informer event of a node that was only known from its dependents' references.
      if (!sameIdentity(observed, existing.identity)) {
        const { nonmatching } = partitionDependents(existing.dependents, observed);
        for (const dep of nonmatching) {
          if (observed.namespace && dep.identity.namespace !== observed.namespace) this.warnInvalidNamespace(dep, observed);
          this.queues.attemptToDelete(dep);
        }
        existing = existing.clone();
        existing.identity = observed;
        this.nodes.set(uid, existing);
      }
      existing.virtual = false;
    }
    if (ev.type !== 'delete' && !existing) {
      const node = new GraphNode(observed, [...(ev.meta.ownerReferences ?? [])], false, beingDeleted(ev.meta), beingDeleted(ev.meta) && hasFinalizer(ev.meta, FINALIZER_DELETE_DEPENDENTS));
      this.nodes.set(uid, node);
      this.addDependentToOwners(node, node.owners);
      this.processTransitions(ev.oldMeta, ev.meta, node);
    } else if (ev.type !== 'delete' && existing) {
      const { added, removed, changed } = referencesDiff(existing.owners, ev.meta.ownerReferences ?? []);
      if (added.length + removed.length + changed.length > 0) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        existing.owners = [...(ev.meta.ownerReferences ?? [])];
        this.addDependentToOwners(existing, added);
        this.removeDependentFromOwners(existing, removed);
      }
      if (beingDeleted(ev.meta)) existing.beingDeleted = true;
      this.processTransitions(ev.oldMeta, ev.meta, existing);
    } else if (ev.type === 'delete' && existing) {
      this.processDelete(ev, existing, observed);
    }
  }

  /** Go's `enqueueVirtualDeleteEvent`: the collector found `id` absent; applied at once. */
  virtualDelete(id: ObjectIdentity): void {
    this.process({ type: 'delete', virtual: true, apiVersion: id.apiVersion, kind: id.kind, meta: { name: id.name, namespace: id.namespace, uid: id.uid } });
  }

  private processDelete(ev: GraphEvent, existing: GraphNode, deleted: ObjectIdentity): void {
    let remove = true;
    if (ev.virtual) {
      if (existing.virtual) {
        // Not sure of a virtual node's coordinates: keep it while some dependent names its uid otherwise.
        const { matching, nonmatching } = partitionDependents(existing.dependents, deleted);
        if (nonmatching.length > 0) {
          remove = false;
          if (matching.length > 0) {
            this.absentOwners.add(deleted);
            for (const dep of matching) this.queues.attemptToDelete(dep);
          }
          if (sameIdentity(existing.identity, deleted)) {
            const alternate = alternateOwnerIdentity(nonmatching, deleted);
            if (alternate) {
              const replacement = existing.clone();
              replacement.identity = alternate;
              this.nodes.set(existing.identity.uid, replacement);
              this.queues.attemptToDeleteLater(replacement);
            }
          }
        }
      } else if (!sameIdentity(existing.identity, deleted)) {
        // A virtual delete never removes an observed node; it only settles the dependents that named those coordinates.
        remove = false;
        const { matching } = partitionDependents(existing.dependents, deleted);
        if (matching.length > 0) {
          this.absentOwners.add(deleted);
          for (const dep of matching) this.queues.attemptToDelete(dep);
        }
      }
    }
    if (!remove) return;
    this.nodes.delete(existing.identity.uid);
    this.removeDependentFromOwners(existing, existing.owners);
    if (existing.dependents.size > 0) this.absentOwners.add(deleted);
    for (const dep of existing.dependents) this.queues.attemptToDelete(dep);
    for (const ref of existing.owners) {
      const owner = this.nodes.get(ref.uid);
      // An owner in a foreground deletion may be waiting for exactly this dependent.
      if (owner?.deletingDependents) this.queues.attemptToDelete(owner);
    }
  }

  /** Adds `node` to its owners' dependents, making virtual nodes for owners not seen yet (Go's `addDependentToOwners`). */
  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        owner = new GraphNode(identityOfReference(ref, node.identity.namespace), [], true);
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        // The collector checks whether it exists, and removes it from the graph when it does not.
        this.queues.attemptToDelete(owner);
        continue;
      }
      owner.dependents.add(node);
      if (potentiallyInvalid) continue;
      if (owner.identity.namespace && owner.identity.namespace !== node.identity.namespace) {
        if (!owner.virtual) this.warnInvalidNamespace(node, owner.identity);
        potentiallyInvalid = true;
      } else if (!referenceMatches(ref, owner.identity)) {
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.queues.attemptToDelete(node);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.nodes.get(ref.uid)?.dependents.delete(node);
  }

  /** A blocking reference removed or made non-blocking may release an owner waiting in a foreground deletion. */
  private addUnblockedOwnersToDeleteQueue(removed: OwnerReference[], changed: { before: OwnerReference; after: OwnerReference }[]): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const owner = this.nodes.get(ref.uid);
      if (owner) this.queues.attemptToDelete(owner);
    }
    for (const { before, after } of changed) {
      if (before.blockOwnerDeletion !== true || after.blockOwnerDeletion === true) continue;
      const owner = this.nodes.get(after.uid);
      if (owner) this.queues.attemptToDelete(owner);
    }
  }

  /** An orphaning or foreground deletion that starts with this event (Go's `processTransitions`). */
  private processTransitions(oldMeta: ObjectMetadata | undefined, meta: ObjectMetadata, node: GraphNode): void {
    if (startsDeletionWith(oldMeta, meta, FINALIZER_ORPHAN_DEPENDENTS)) {
      this.queues.attemptToOrphan(node);
      return;
    }
    if (startsDeletionWith(oldMeta, meta, FINALIZER_DELETE_DEPENDENTS)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.queues.attemptToDelete(dep);
      this.queues.attemptToDelete(node);
    }
  }

  private warnInvalidNamespace(dependent: GraphNode, owner: ObjectIdentity): void {
    this.log.warn('owner reference names a namespaced owner in another namespace (OwnerRefInvalidNamespace)', {
      kind: dependent.identity.kind,
      namespace: dependent.identity.namespace,
      name: dependent.identity.name,
      uid: dependent.identity.uid,
      owner: `${owner.kind} ${owner.namespace}/${owner.name} (uid ${owner.uid})`,
    });
  }
}

function identityFromEvent(ev: GraphEvent): ObjectIdentity {
  return { apiVersion: ev.apiVersion, kind: ev.kind, name: ev.meta.name ?? '', uid: ev.meta.uid ?? '', namespace: ev.meta.namespace ?? '' };
}

/** Whether this event is the one where the object starts being deleted with `finalizer` (Go's `deletionStartsWithFinalizer`). */
function startsDeletionWith(oldMeta: ObjectMetadata | undefined, meta: ObjectMetadata, finalizer: string): boolean {
  if (!beingDeleted(meta) || !hasFinalizer(meta, finalizer)) return false;
  return !oldMeta || !beingDeleted(oldMeta) || !hasFinalizer(oldMeta, finalizer);
}

/** Owner references added, removed and changed between two versions, by uid (Go's `referencesDiffs`). */
export function referencesDiff(
  before: readonly OwnerReference[],
  after: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: { before: OwnerReference; after: OwnerReference }[] } {
  const old = new Map(before.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { before: OwnerReference; after: OwnerReference }[] = [];
  for (const ref of after) {
    const prev = old.get(ref.uid);
    if (!prev) {
      added.push(ref);
      continue;
    }
    if (!sameReference(prev, ref)) changed.push({ before: prev, after: ref });
    old.delete(ref.uid);
  }
  return { added, removed: [...old.values()], changed };
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return referenceMatches(a, b) && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}
