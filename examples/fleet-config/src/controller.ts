/**
 * Wiring of the fleet-config controller on a `MultiClusterManager`, shared by main.ts and the benchmark:
 *
 * - FleetConfigs are watched in the hub and fan out: each one is reconciled once per member cluster, in that
 *   member's lane (a member engaged later gets every FleetConfig at once). Status-only updates (the lanes' own
 *   results) are filtered out (`generationChanged`), so a status write does not reconcile every member again.
 * - The member kind (ConfigMaps) is watched in every member: a managed ConfigMap changed or deleted there is
 *   reconciled in that member's lane, so drift is undone. Member caches hold only the managed ones
 *   ({@link memberClusterOptions}).
 */
import { builtinResources, enqueueForObject, generationChanged } from '@kubegen/runtime';
import type { ResourceInfo } from '@kubegen/runtime/client';
import {
  newMultiClusterControllerManagedBy, type MemberClusterOptions, type MultiClusterController,
  type MultiClusterManager,
} from '@kubegen/runtime/multicluster';
import { fleetConfigResource } from './generated/fleet.kubegen.io/v1alpha1/register.js';
import { FleetConfigReconciler, MANAGED_LABEL } from './reconciler.js';

export interface FleetConfigControllerOptions {
  /** What is written in members (default ConfigMaps). */
  memberKind?: ResourceInfo;
  /** Reconciles at once, per cluster (default 2). */
  workers?: number;
}

/** Cache settings of each member cluster: only ConfigMaps (or `memberKind`) fleet-config manages are cached. */
export function memberClusterOptions(memberKind: ResourceInfo = builtinResources.configMaps): Pick<MemberClusterOptions, 'clusterOptions'> {
  return { clusterOptions: { cache: { byObject: [{ resource: memberKind, labelSelector: `${MANAGED_LABEL}=true` }] } } };
}

/** Adds the fleet-config controller to `mgr` (see the module comment). */
export function addFleetConfigController(mgr: MultiClusterManager, opts: FleetConfigControllerOptions = {}): MultiClusterController {
  const memberKind = opts.memberKind ?? builtinResources.configMaps;
  const reconciler = new FleetConfigReconciler(mgr, memberKind);
  return newMultiClusterControllerManagedBy(mgr)
    .named('fleet-config')
    .for(fleetConfigResource, { clusters: 'hub', fanOut: true, predicates: [generationChanged()] })
    .watches(memberKind, enqueueForObject(), { clusters: 'members' })
    .withOptions({ maxConcurrentReconciles: opts.workers ?? 2 })
    .complete(reconciler);
}
