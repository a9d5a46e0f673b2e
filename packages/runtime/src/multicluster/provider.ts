/**
 * Cluster providers (multicluster-runtime's `multicluster.Provider` and `Aware`): a provider discovers clusters —
 * from kubeconfig files, from kubeconfig Secrets in the hub, from an inventory — and engages each one on the
 * multi-cluster manager, which then runs every multi-cluster controller's watches in it.
 *
 * Contract:
 * - `start(aware, signal)` runs until `signal` aborts and resolves then (rejects only when the provider cannot work
 *   at all, e.g. it may not list its Secrets; the manager then stops with that error). For each cluster it calls
 *   `aware.engage(name, cluster, clusterSignal)`; aborting `clusterSignal` disengages that cluster (its controllers
 *   drain, its caches stop and are dropped). A provider that learns that a cluster changed (a new kubeconfig)
 *   aborts the old signal and engages a new `Cluster` under the same name.
 * - The `Cluster` a provider hands over has its own transport; it creates nothing in the API until a controller
 *   watches a kind in it (informers are made on first use). The manager stops it on disengage; the provider closes
 *   its transport once the cluster is disengaged (`engage` resolves when it is).
 * - `get(name)` is the cluster engaged under `name`, or throws {@link ClusterNotEngagedError}.
 * - One cluster's trouble is its own: a provider never fails because one cluster's kubeconfig is bad; it logs it
 *   (naming the cluster and the source, e.g. the Secret) and engages the others.
 */
import type { Cluster } from '../cluster/cluster.js';

/** What a provider engages clusters on: the multi-cluster manager (multicluster-runtime's `multicluster.Aware`). */
export interface ClusterAware {
  /**
   * Runs `cluster` under `name` until `signal` aborts: starts its cache, adds it to every multi-cluster controller,
   * and on abort drains those (in-flight reconciles finish or see their signal abort), stops the cache and forgets
   * the cluster. Resolves once the cluster is disengaged again; rejects at once with a `TypeError` for an invalid
   * name (the hub's `''`) or when the manager has stopped. A name engaged twice: the later engagement replaces the
   * earlier one (which is disengaged first).
   */
  engage(name: string, cluster: Cluster, signal: AbortSignal): Promise<void>;
}

/** Discovers clusters and engages them (see the module comment for the contract). */
export interface ClusterProvider {
  /** Engages the clusters it finds on `aware` until `signal` aborts; resolves then. Called once, by the manager. */
  start(aware: ClusterAware, signal: AbortSignal): Promise<void>;
  /** The cluster engaged under `name`; throws {@link ClusterNotEngagedError} when there is none. */
  get(name: string): Cluster;
  /** Names of the clusters it has engaged now, sorted. */
  list(): string[];
}

/** `getCluster(name)` found no engaged cluster of that name (never engaged, or disengaged since). */
export class ClusterNotEngagedError extends Error {
  constructor(readonly cluster: string) {
    super(`cluster ${JSON.stringify(cluster)} is not engaged`);
    this.name = 'ClusterNotEngagedError';
  }
}
