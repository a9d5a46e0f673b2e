/**
 * The multi-cluster metrics, one shared set per registry. Every series carries the `cluster` label (the hub is
 * `cluster=""`); a cluster's series are removed when it is disengaged, so a fleet that churns does not grow the
 * registry. The `controller_runtime_*` and workqueue series of a multi-cluster controller are its per-cluster lanes'
 * sums (they share the controller's name); these say which cluster.
 */
import { Counter, Gauge, Histogram, type Registry } from '../metrics/prom.js';
import { metricsRegistry, registeredOr } from '../metrics/registry.js';
import { RECONCILE_TIME_BUCKETS, type ReconcileResultLabel } from '../controller/metrics.js';

/** Reconciles per multi-cluster controller, cluster and result (`success`, `error`, `requeue`, `requeue_after`). */
export const MC_RECONCILE_TOTAL = 'kubegen_multicluster_reconcile_total';
/** Reconcile durations per multi-cluster controller and cluster (controller-runtime's buckets). */
export const MC_RECONCILE_TIME_SECONDS = 'kubegen_multicluster_reconcile_time_seconds';
/** 1 while a controller's lane in a cluster has synced and no informer of it fails; 0 while it is parked. */
export const MC_CLUSTER_SYNCED = 'kubegen_multicluster_cluster_synced';
/** 1 for each cluster engaged on the manager. */
export const MC_CLUSTER_ENGAGED = 'kubegen_multicluster_cluster_engaged';
/** 1 for each engaged cluster this replica drives, 0 for one another replica drives (cluster sharding). */
export const MC_CLUSTER_OWNED = 'kubegen_multicluster_cluster_owned';

/** The metrics of multi-cluster managers and controllers. */
export interface MultiClusterMetrics {
  /** Reconciles per controller, cluster and result (`success`, `error`, `requeue`, `requeue_after`). */
  reconcileTotal: Counter<'controller' | 'cluster' | 'result'>;
  reconcileTime: Histogram<'controller' | 'cluster'>;
  /** 1 once every source of the controller's lane for the cluster has synced; 0 while it is parked (retrying). */
  clusterSynced: Gauge<'controller' | 'cluster'>;
  /** 1 for every cluster a provider has engaged on the manager. */
  clusterEngaged: Gauge<'cluster'>;
  /** 1 for every engaged cluster this replica drives (all of them without cluster sharding), else 0. */
  clusterOwned: Gauge<'cluster'>;
}

const cache = new WeakMap<Registry, MultiClusterMetrics>();

/** The shared multi-cluster metrics of `registry` (default the runtime's `metricsRegistry`). */
export function multiClusterMetrics(registry: Registry = metricsRegistry): MultiClusterMetrics {
  let m = cache.get(registry);
  if (m) return m;
  const registers = [registry];
  const cc = ['controller', 'cluster'] as const;
  m = {
    reconcileTotal: registeredOr(registry, MC_RECONCILE_TOTAL, () => new Counter({ name: MC_RECONCILE_TOTAL, help: 'Total number of reconciliations per multi-cluster controller and cluster', labelNames: ['controller', 'cluster', 'result'] as const, registers })),
    reconcileTime: registeredOr(registry, MC_RECONCILE_TIME_SECONDS, () => new Histogram({ name: MC_RECONCILE_TIME_SECONDS, help: 'Length of time per reconciliation per multi-cluster controller and cluster', labelNames: cc, buckets: [...RECONCILE_TIME_BUCKETS], registers })),
    clusterSynced: registeredOr(registry, MC_CLUSTER_SYNCED, () => new Gauge({ name: MC_CLUSTER_SYNCED, help: 'Whether every source of a multi-cluster controller in a cluster has synced: 1 synced, 0 parked (its informers retry with backoff)', labelNames: cc, registers })),
    clusterEngaged: registeredOr(registry, MC_CLUSTER_ENGAGED, () => new Gauge({ name: MC_CLUSTER_ENGAGED, help: 'Clusters engaged on the multi-cluster manager by its provider (1 each)', labelNames: ['cluster'] as const, registers })),
    clusterOwned: registeredOr(registry, MC_CLUSTER_OWNED, () => new Gauge({ name: MC_CLUSTER_OWNED, help: 'Whether this replica drives an engaged cluster: 1 yes, 0 another replica does (cluster sharding)', labelNames: ['cluster'] as const, registers })),
  };
  cache.set(registry, m);
  return m;
}

/** Sets a lane's counters to 0 (as `initControllerMetrics` does for a controller). */
export function initLaneMetrics(m: MultiClusterMetrics, controller: string, cluster: string): void {
  for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const satisfies readonly ReconcileResultLabel[]) m.reconcileTotal.inc({ controller, cluster, result }, 0);
  m.clusterSynced.set({ controller, cluster }, 0);
}

/** Removes a lane's series (its cluster was disengaged). */
export function removeLaneMetrics(m: MultiClusterMetrics, controller: string, cluster: string): void {
  for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) m.reconcileTotal.remove({ controller, cluster, result });
  m.reconcileTime.remove({ controller, cluster });
  m.clusterSynced.remove({ controller, cluster });
}
