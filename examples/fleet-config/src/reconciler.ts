/**
 * The fleet-config reconciler. Every FleetConfig of the hub fans out to every member cluster: a request
 * `{ cluster, namespace, name }` per member. For one member it
 *
 * - makes the ConfigMap `namespace/name` in that member hold `spec.data` (created with the label
 *   `fleet.kubegen.io/managed=true`, updated when its data differs; a ConfigMap of that name without the label is
 *   someone else's and is left alone, reported as not synced);
 * - writes that member's entry of `status.clusters` (`name`, `synced`, `message`, `observedGeneration`) with
 *   server-side apply under the field manager `fleet-config/<cluster>`: each member's lane owns its own entry of the
 *   list map, so lanes never conflict and never overwrite each other's results; entries of clusters no longer
 *   engaged are removed the same way (applying an empty list as their manager);
 * - when the FleetConfig is gone, deletes the member's managed ConfigMap (a member ConfigMap has no owner reference
 *   across clusters; a managed ConfigMap whose FleetConfig was deleted while the controller was down is found through
 *   the member watch at start and removed too).
 *
 * Reads come from the caches (the hub's for FleetConfigs, the member's for its managed ConfigMaps); writes go to the
 * API. A member error is recorded in its entry and returned, so the request is retried with backoff in that
 * member's lane only; the other members are not held back.
 */
import { isAlreadyExists, isNotFound, type KubeObject } from '@kubegen/runtime';
import type { CachedResourceClient } from '@kubegen/runtime/cache';
import type { ResourceInfo } from '@kubegen/runtime/client';
import {
  HUB_CLUSTER, type ClusterReconcileContext, type ClusterRequest, type MultiClusterManager,
} from '@kubegen/runtime/multicluster';
import { API_VERSION, fleetConfigResource } from './generated/fleet.kubegen.io/v1alpha1/register.js';
import type { FleetConfig } from './generated/fleet.kubegen.io/v1alpha1/types.js';

/** The label of the ConfigMaps fleet-config manages in member clusters (value `true`). */
export const MANAGED_LABEL = 'fleet.kubegen.io/managed';

/** The field manager of a member's entry in `status.clusters`. */
export function statusFieldManager(cluster: string): string {
  return `fleet-config/${cluster}`;
}

/** A ConfigMap, or a custom kind of the same shape (top-level `data`). */
export interface DataObject extends KubeObject {
  data?: Record<string, string>;
}

/** One member's entry of `status.clusters`. */
export interface ClusterResult {
  name: string;
  synced: boolean;
  message: string;
  observedGeneration: number;
}

/** Reconciles one FleetConfig in one member cluster (see the module comment). */
export class FleetConfigReconciler {
  private readonly memberApiVersion: string;

  /**
   * `memberKind` is what is written in members: ConfigMaps (`builtinResources.configMaps`) in the controller; the
   * benchmark uses a custom kind of the same shape on control planes that serve no ConfigMaps.
   */
  constructor(
    private readonly mgr: MultiClusterManager,
    private readonly memberKind: ResourceInfo,
  ) {
    this.memberApiVersion = memberKind.group ? `${memberKind.group}/${memberKind.version}` : memberKind.version;
  }

  async reconcile(req: ClusterRequest, ctx: ClusterReconcileContext): Promise<void> {
    if (req.cluster === HUB_CLUSTER) return; // FleetConfigs fan out to members; the hub holds no ConfigMaps of theirs
    const hub = this.mgr.hub.getClient().resource<FleetConfig>(fleetConfigResource, req.namespace);
    const member = ctx.cluster.getClient().resource<DataObject>(this.memberKind, req.namespace);
    let config: FleetConfig | undefined;
    try {
      config = await hub.get(req.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!config || config.metadata?.deletionTimestamp) {
      await this.removeFromMember(member, req, ctx);
      return;
    }
    const generation = config.metadata?.generation ?? 0;
    let failure: unknown;
    let result: ClusterResult;
    try {
      await this.syncMember(member, config, req, ctx);
      result = { name: req.cluster, synced: true, message: `${this.memberKind.kind} has the data of generation ${generation}`, observedGeneration: generation };
    } catch (err) {
      failure = err;
      result = { name: req.cluster, synced: false, message: err instanceof Error ? err.message : String(err), observedGeneration: generation };
    }
    await this.report(config, result, ctx);
    if (failure !== undefined) throw failure;
  }

  /** Creates or updates the member's ConfigMap; throws (naming the cluster) when it cannot. */
  private async syncMember(member: CachedResourceClient<DataObject>, config: FleetConfig, req: ClusterRequest, ctx: ClusterReconcileContext): Promise<void> {
    const data = config.spec?.data ?? {};
    const what = `${this.memberKind.kind} ${req.namespace}/${req.name} in cluster ${req.cluster}`;
    let current: DataObject | undefined;
    try {
      current = await member.get(req.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!current) {
      try {
        await member.create(
          { apiVersion: this.memberApiVersion, kind: this.memberKind.kind, metadata: { name: req.name, namespace: req.namespace, labels: { [MANAGED_LABEL]: 'true' } }, data },
          { signal: ctx.signal },
        );
        ctx.log.info('created', { what });
      } catch (err) {
        // The member cache holds only managed ConfigMaps: an unmanaged one of this name is found by the create.
        if (isAlreadyExists(err)) throw new Error(`${what} exists and is not managed by fleet-config (no label ${MANAGED_LABEL}=true); left alone`);
        if (isNotFound(err)) throw new Error(`create ${what}: namespace ${req.namespace} does not exist in cluster ${req.cluster}`);
        throw err;
      }
      return;
    }
    if (sameData(current.data, data)) return;
    await member.update({ ...current, apiVersion: this.memberApiVersion, kind: this.memberKind.kind, data }, { signal: ctx.signal });
    ctx.log.info('updated', { what });
  }

  /** Writes this member's entry of `status.clusters` (when it changed) and drops entries of clusters not engaged. */
  private async report(config: FleetConfig, result: ClusterResult, ctx: ClusterReconcileContext): Promise<void> {
    const hub = this.mgr.hub.getClient().resource<FleetConfig>(fleetConfigResource, config.metadata!.namespace!);
    const entries = config.status?.clusters ?? [];
    const entry = entries.find((c) => c.name === result.name);
    const current = entry !== undefined && entry.synced === result.synced && (entry.message ?? '') === result.message && entry.observedGeneration === result.observedGeneration;
    const apply = (clusters: ClusterResult[], cluster: string): Promise<FleetConfig> =>
      hub.applyStatus(
        { apiVersion: API_VERSION, kind: 'FleetConfig', metadata: { name: config.metadata!.name!, namespace: config.metadata!.namespace! }, status: { clusters } },
        { fieldManager: statusFieldManager(cluster), force: true, signal: ctx.signal },
      );
    if (!current) await apply([result], result.name);
    const engaged = new Set(this.mgr.clusterNames());
    for (const stale of entries.filter((c) => !engaged.has(c.name))) {
      await apply([], stale.name);
      ctx.log.info('removed the status of a cluster no longer engaged', { stale: stale.name });
    }
  }

  /** The FleetConfig is gone: delete the member's ConfigMap if fleet-config manages it. */
  private async removeFromMember(member: CachedResourceClient<DataObject>, req: ClusterRequest, ctx: ClusterReconcileContext): Promise<void> {
    let current: DataObject;
    try {
      current = await member.get(req.name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (current.metadata?.labels?.[MANAGED_LABEL] !== 'true') return;
    await member.delete(req.name, { signal: ctx.signal }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    ctx.log.info('deleted: its FleetConfig is gone', { what: `${this.memberKind.kind} ${req.namespace}/${req.name} in cluster ${req.cluster}` });
  }

}

/** Equal string maps (a missing map is empty). */
function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a![k] === b[k]);
}
