/**
 * What the garbage collector asks of the apiserver, object by object (kube-controller-manager's
 * `garbagecollector/operations.go` and `patch.go`), all metadata-only: GET, DELETE with a uid precondition and a
 * propagation policy, removing owner references (a strategic merge patch with `$patch: delete`, and where the kind
 * does not take one — custom resources answer 415, remembered per resource — a JSON merge patch of the remaining
 * references guarded by the resourceVersion of a fresh GET), and removing a finalizer (GET, then a JSON merge patch guarded by the resourceVersion, retried on
 * conflicts). Kinds are resolved through a RESTMapper; a kind it does not know is a {@link RestMappingError} (retried:
 * a CRD may be about to be served).
 */
import { ApiError, isConflict, isNotFound } from '../../client/errors.js';
import type { Patch } from '../../client/interfaces.js';
import { ResourceClient } from '../../client/resource-client.js';
import { resourceKey, type KubeObject, type OwnerReference, type ResourceInfo, type Transport } from '../../client/types.js';
import { parseGroupVersion } from '../../discovery/types.js';
import { isNoMatchError, type RESTMapper } from '../../restmapper/types.js';
import type { GraphNode, ObjectIdentity, ObjectMetadata } from './gc-node.js';

/** The kind of an owner reference or object is not served (yet): retried later. */
export class RestMappingError extends Error {
  override readonly name = 'RestMappingError';
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    cause: unknown,
  ) {
    super(`unable to get REST mapping for ${kind} ${apiVersion}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A cluster-scoped object names a namespaced owner: never valid, not retried (Go's `namespacedOwnerOfClusterScopedObjectErr`). */
export class NamespacedOwnerOfClusterScopedObjectError extends Error {
  override readonly name = 'NamespacedOwnerOfClusterScopedObjectError';
  constructor(what: string) {
    super(`cluster-scoped objects cannot refer to namespaced owners: ${what}`);
  }
}

/** A metadata-only object as the collector reads it. */
export interface MetadataObject extends KubeObject {
  metadata: ObjectMetadata & KubeObject['metadata'];
}

/** The collector's calls to the apiserver (see the module comment). */
export class GcOperations {
  /** Resources that answered 415 to a strategic merge patch (custom resources): merge patches only. */
  private readonly noStrategicMerge = new Set<string>();

  constructor(
    private readonly transport: Transport,
    private readonly mapper: Pick<RESTMapper, 'restMapping'>,
  ) {}

  /** The resource and scope of `apiVersion`/`kind` (Go's `apiResource`); a {@link RestMappingError} when unknown. */
  async resourceOf(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const gv = parseGroupVersion(apiVersion);
    try {
      return (await this.mapper.restMapping({ group: gv.group, kind }, gv.version)).info;
    } catch (err) {
      if (isNoMatchError(err)) throw new RestMappingError(apiVersion, kind, err);
      throw err;
    }
  }

  /** The client of `id`'s resource in its namespace (none for a cluster-scoped kind). */
  private async client(id: Pick<ObjectIdentity, 'apiVersion' | 'kind' | 'namespace'>): Promise<{ info: ResourceInfo; client: ResourceClient<MetadataObject> }> {
    const info = await this.resourceOf(id.apiVersion, id.kind);
    if (info.namespaced && !id.namespace) throw new NamespacedOwnerOfClusterScopedObjectError(`${id.kind} ${id.apiVersion}`);
    return { info, client: new ResourceClient<MetadataObject>(this.transport, info, info.namespaced ? id.namespace : undefined, { readAs: 'metadata' }) };
  }

  /** GET, metadata only. Rejects with the apiserver's error (a 404 when absent). */
  async get(id: ObjectIdentity): Promise<MetadataObject> {
    return (await this.client(id)).client.get(id.name);
  }

  /** The owner an owner reference of `dependent` names, in the dependent's namespace when the owner's kind is namespaced. */
  async getOwner(ref: OwnerReference, dependent: ObjectIdentity): Promise<{ info: ResourceInfo; owner: MetadataObject | undefined }> {
    const info = await this.resourceOf(ref.apiVersion, ref.kind);
    if (!dependent.namespace && info.namespaced) throw new NamespacedOwnerOfClusterScopedObjectError(`${dependent.kind} ${dependent.name} names ${ref.kind} ${ref.name}`);
    const client = new ResourceClient<MetadataObject>(this.transport, info, info.namespaced ? dependent.namespace : undefined, { readAs: 'metadata' });
    try {
      return { info, owner: await client.get(ref.name) };
    } catch (err) {
      if (isNotFound(err)) return { info, owner: undefined };
      throw err;
    }
  }

  /** DELETE with a uid precondition (never another object of the same name) and `policy`. */
  async delete(id: ObjectIdentity, policy: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
    await (await this.client(id)).client.delete(id.name, { preconditions: { uid: id.uid }, propagationPolicy: policy });
  }

  /** Removes the owner references to `ownerUids` from `node`'s object (strategic merge, else JSON merge; see the module comment). */
  async removeOwnerReferences(node: GraphNode, ownerUids: readonly string[]): Promise<void> {
    const gone = new Set(ownerUids);
    await this.patchOwnerReferences(
      node,
      { metadata: { uid: node.identity.uid, ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })) } },
      (refs) => refs.filter((r) => !gone.has(r.uid)),
    );
  }

  /** Sets `blockOwnerDeletion: false` on every owner reference of `node` (Go's cycle breaker before a foreground delete). */
  async unblockOwnerReferences(node: GraphNode): Promise<void> {
    const blocking = node.owners.filter((o) => o.blockOwnerDeletion === true).map((o) => ({ ...o, blockOwnerDeletion: false }));
    await this.patchOwnerReferences(node, { metadata: { uid: node.identity.uid, ownerReferences: blocking } }, () => node.owners.map((o) => ({ ...o, blockOwnerDeletion: false })));
  }

  private async patchOwnerReferences(node: GraphNode, strategic: Record<string, unknown>, remaining: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const { info, client } = await this.client(node.identity);
    const key = resourceKey(info);
    if (!this.noStrategicMerge.has(key)) {
      try {
        await client.patch(node.identity.name, { type: 'strategic', patch: strategic });
        return;
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 415)) throw err;
        this.noStrategicMerge.add(key);
      }
    }
    // Custom resources take no strategic merge patch: the whole list, guarded by the resourceVersion it came from.
    const current = await client.get(node.identity.name);
    if (current.metadata.uid !== node.identity.uid) return;
    const patch: Patch = { type: 'merge', patch: { metadata: { resourceVersion: current.metadata.resourceVersion, ownerReferences: remaining(current.metadata.ownerReferences ?? []) } } };
    await client.patch(node.identity.name, patch);
  }

  /**
   * Removes `finalizer` from the object of `node` (GET, then a merge patch of the other finalizers with the
   * resourceVersion it read), retrying up to 5 times on a conflict; done when it is absent or already gone.
   */
  async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    const { client } = await this.client(node.identity);
    for (let attempt = 1; ; attempt++) {
      let current: MetadataObject;
      try {
        current = await client.get(node.identity.name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      const finalizers = current.metadata.finalizers ?? [];
      // Another object of the same name is not ours to finalize.
      if (current.metadata.uid !== node.identity.uid || !finalizers.includes(finalizer)) return;
      try {
        await client.patch(node.identity.name, { type: 'merge', patch: { metadata: { resourceVersion: current.metadata.resourceVersion, finalizers: finalizers.filter((f) => f !== finalizer) } } });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 5) throw err;
      }
    }
  }
}
