/**
 * The KVStore controller's wiring: KVStores are reconciled (src/reconciler.ts); the eight kinds a store owns are
 * watched, and an event on one of them (an edit, a deletion, the StatefulSet's status) reconciles its owner, found
 * through its controller reference. The manager's cache holds only the objects of those kinds that this operator
 * manages (label `app.kubernetes.io/managed-by=kv-store`), not every ConfigMap, Service and ServiceAccount of the
 * cluster.
 */
import {
  controllerFor, type CacheOptions, type Controller, type Manager, type ResourceDescriptor,
} from '@kubegen/runtime';
import type { ByObjectCacheOptions } from '@kubegen/runtime/cache';
import { statefulSetResource } from '@kubegen/runtime/api/apps/v1';
import { configMapResource, serviceAccountResource, serviceResource } from '@kubegen/runtime/api/core/v1';
import { networkPolicyResource } from '@kubegen/runtime/api/networking/v1';
import { roleBindingResource, roleResource } from '@kubegen/runtime/api/rbac/v1';
import { kvStoreResource } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { disruptionBudgetResource, type DisruptionBudgetVersion } from './disruption.js';
import { MANAGED_BY_LABEL } from './names.js';
import { KVStoreReconciler } from './reconciler.js';

/** The kinds a KVStore owns, with the PodDisruptionBudget in `version`. */
export function ownedResources(version: DisruptionBudgetVersion): ResourceDescriptor[] {
  return [
    statefulSetResource, serviceResource, configMapResource, serviceAccountResource, roleResource, roleBindingResource,
    networkPolicyResource, disruptionBudgetResource(version),
  ];
}

/** The manager's cache settings: of each owned kind, only the objects this operator manages. */
export function cacheOptions(version: DisruptionBudgetVersion): CacheOptions {
  const byObject: ByObjectCacheOptions[] = ownedResources(version).map((resource) => ({ resource, labelSelector: `${MANAGED_BY_LABEL}=kv-store` }));
  return { byObject };
}

export interface KVStoreControllerOptions {
  disruptionBudgetVersion: DisruptionBudgetVersion;
  /** Stores reconciled at once (default 2). */
  workers?: number;
}

/** Adds the KVStore controller to `mgr` (give the manager `cacheOptions(version)` too). */
export function setupKVStoreController(mgr: Manager, opts: KVStoreControllerOptions): Controller {
  const builder = controllerFor(mgr, kvStoreResource);
  for (const resource of ownedResources(opts.disruptionBudgetVersion)) builder.owns(resource);
  return builder
    .named('kvstore')
    .withOptions({ maxConcurrentReconciles: opts.workers ?? 2 })
    .complete(new KVStoreReconciler(mgr.getClient(), mgr.getEventRecorderFor('kv-store'), opts.disruptionBudgetVersion));
}
