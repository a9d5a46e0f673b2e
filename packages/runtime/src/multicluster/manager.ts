/**
 * `MultiClusterManager` (multicluster-runtime's `mcmanager.Manager`): a `Manager` for the hub — its own cluster, with
 * the metrics and probe servers, leader election and runnables — plus the member clusters a {@link ClusterProvider}
 * engages on it. Multi-cluster controllers (built with `newMultiClusterControllerManagedBy`) run a lane in the hub
 * and in every engaged member; `getCluster(name)` gives a reconciler that cluster's cached client, recorder and
 * RESTMapper.
 *
 * Lifecycle: `start(signal)` starts the hub manager, which runs the provider (on every replica) and the controllers
 * (while leading, or at once without leader election). A cluster engaged by the provider is started (its cache runs;
 * informers are made when a controller's lane first watches a kind) and added to every controller; when the
 * provider aborts its signal, the controllers drain their lanes, the cluster's cache stops and the manager forgets
 * it, so its memory can be reclaimed.
 *
 * With `clusterSharding`, replicas split the engaged clusters between them (see `ClusterSharder`): every replica
 * engages every cluster (cheap: nothing is watched yet), but only the replica the ring assigns a cluster to — and
 * that holds the cluster's fence Lease in the hub — runs its lanes. `clusterSharding` excludes leader election and
 * the object `sharding` of `ManagerOptions`.
 */
import type { Cluster } from '../cluster/cluster.js';
import { Manager } from '../manager/manager.js';
import type { ManagerOptions } from '../manager/manager-options.js';
import type { Runnable } from '../manager/runnables.js';
import { runWithSignals } from '../manager/signals.js';
import type { Logger } from '../log.js';
import { ClusterSharder, type ClusterShardingOptions } from './cluster-sharding.js';
import type { ClusterLaneStatus, MultiClusterController } from './controller.js';
import { multiClusterMetrics, type MultiClusterMetrics } from './metrics.js';
import { ClusterNotEngagedError, type ClusterAware, type ClusterProvider } from './provider.js';
import { HUB_CLUSTER } from './request.js';

/** Settings of a {@link MultiClusterManager}: the hub manager's, plus where the clusters come from. */
export interface MultiClusterManagerOptions extends ManagerOptions {
  /** Discovers the member clusters and engages them (none: only clusters engaged by hand with `engage`). */
  provider?: ClusterProvider;
  /** Split the clusters between replicas (see the module comment). */
  clusterSharding?: ClusterShardingOptions;
}

/** How one engaged cluster is doing (`MultiClusterManager.clusterStatus`). */
export interface ClusterStatus {
  cluster: string;
  /** This replica drives it (always, without cluster sharding). */
  owned: boolean;
  /** Its lane in each multi-cluster controller (none while not owned). */
  controllers: { controller: string; status: ClusterLaneStatus }[];
}

interface Engagement {
  readonly name: string;
  readonly cluster: Cluster;
  /** Set while this replica drives the cluster: aborting it drains the cluster's lanes. */
  active: { stop: AbortController; lanes: Promise<void>[] } | undefined;
}

/** The hub manager plus engaged member clusters (see the module comment). */
export class MultiClusterManager implements ClusterAware {
  /** The hub's manager: its own cluster, servers, probes, leader election and runnables. */
  readonly local: Manager;
  readonly provider: ClusterProvider | undefined;
  /** With `clusterSharding`: the replica's view of which clusters it drives. */
  readonly sharder: ClusterSharder | undefined;
  private readonly log: Logger;
  private readonly metrics: MultiClusterMetrics;
  private readonly engaged = new Map<string, Engagement>();
  private readonly controllers: MultiClusterController[] = [];
  private stopped = false;

  constructor(opts: MultiClusterManagerOptions) {
    const { provider, clusterSharding, ...managerOptions } = opts;
    if (clusterSharding && managerOptions.leaderElection) throw new TypeError('clusterSharding and leaderElection exclude each other: with cluster sharding every replica runs, each driving its own clusters');
    if (clusterSharding && managerOptions.sharding) throw new TypeError('clusterSharding and sharding exclude each other: a multi-cluster manager splits clusters, not objects');
    this.local = new Manager(managerOptions);
    this.provider = provider;
    this.log = this.local.logger.child({ component: 'multicluster' });
    this.metrics = multiClusterMetrics(this.local.registry);
    if (clusterSharding) {
      this.sharder = new ClusterSharder({
        ...clusterSharding,
        transport: this.local.transport,
        leaseNamespace: clusterSharding.leaseNamespace ?? managerOptions.leaderElectionNamespace ?? managerOptions.namespace,
        clusters: () => [...this.engaged.keys()],
        onChange: () => this.reassign(),
        clock: this.local.clock,
        logger: this.log,
        registry: this.local.registry,
      });
      const sharder = this.sharder;
      this.local.add({ needLeaderElection: false, start: (signal) => sharder.run(signal) });
    }
    if (provider) this.local.add({ needLeaderElection: false, start: (signal) => provider.start(this, signal) });
    // Detail, never a failure: a member that is down parks its own lanes and must not make the replica unready.
    this.local.addReadyzCheck('clusters', () => this.describeClusters());
  }

  /** One line per engaged cluster for `/readyz/clusters`: driven here or not, and each lane synced, parked and why. */
  describeClusters(): string {
    const lines = this.clusterStatus().map((s) => {
      if (!s.owned) return `${s.cluster}: driven by another replica`;
      const lanes = s.controllers.map(({ controller, status }) =>
        `${controller} ${status.healthy ? 'ok' : status.synced ? 'failing' : 'parked'}${status.reason ? ` (${status.reason})` : ''}`);
      return `${s.cluster}: ${lanes.join('; ') || 'no controllers'}`;
    });
    return lines.length > 0 ? lines.join('\n') : 'no member clusters engaged';
  }

  /** The hub: the manager's own cluster. */
  get hub(): Cluster {
    return this.local.cluster;
  }

  /**
   * The cluster named `name`: the hub for {@link HUB_CLUSTER} (`''`), else an engaged member (whether or not this
   * replica drives it). Throws {@link ClusterNotEngagedError} for any other name.
   */
  getCluster(name: string): Cluster {
    if (name === HUB_CLUSTER) return this.local.cluster;
    const e = this.engaged.get(name);
    if (!e) throw new ClusterNotEngagedError(name);
    return e.cluster;
  }

  /** Names of the engaged member clusters, sorted. */
  clusterNames(): string[] {
    return [...this.engaged.keys()].sort();
  }

  /** Names of the member clusters this replica drives (all engaged ones without cluster sharding), sorted. */
  ownedClusterNames(): string[] {
    return [...this.engaged.values()].filter((e) => e.active).map((e) => e.name).sort();
  }

  /** Each engaged cluster: whether this replica drives it, and its lane in each controller. */
  clusterStatus(): ClusterStatus[] {
    return this.clusterNames().map((name) => ({
      cluster: name,
      owned: this.engaged.get(name)?.active !== undefined,
      controllers: this.controllers.flatMap((c) => c.clusterStatus().filter((s) => s.cluster === name).map((status) => ({ controller: c.name, status }))),
    }));
  }

  /**
   * Adds a runnable to the hub manager. A {@link MultiClusterController} also gets a lane in every cluster this
   * replica drives, now and as they are engaged.
   */
  add(r: Runnable | MultiClusterController): void {
    if (isMultiClusterController(r)) {
      this.controllers.push(r);
      for (const e of this.engaged.values()) if (e.active) e.active.lanes.push(this.engageLane(r, e, e.active.stop.signal));
    }
    this.local.add(r as Runnable);
  }

  /** See {@link ClusterAware.engage}. */
  async engage(name: string, cluster: Cluster, signal: AbortSignal): Promise<void> {
    if (name === HUB_CLUSTER) throw new TypeError('a member cluster needs a name: "" is the hub');
    if (this.stopped) throw new Error(`cannot engage cluster ${JSON.stringify(name)}: the manager has stopped`);
    const previous = this.engaged.get(name);
    if (previous) {
      this.log.info('cluster engaged again; replacing the earlier engagement', { cluster: name });
      await this.disengage(previous);
    }
    if (signal.aborted) return;
    const e: Engagement = { name, cluster, active: undefined };
    this.engaged.set(name, e);
    this.metrics.clusterEngaged.set({ cluster: name }, 1);
    this.log.info('cluster engaged', { cluster: name });
    if (!this.sharder) this.activate(e);
    else this.sharder.refresh();
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await this.disengage(e);
  }

  /** Runs the hub manager (see `Manager.start`) and with it the provider and controllers. */
  async start(signal: AbortSignal): Promise<void> {
    try {
      await this.local.start(signal);
    } finally {
      this.stopped = true;
      await Promise.all([...this.engaged.values()].map((e) => this.disengage(e)));
    }
  }

  /** `start` with SIGTERM/SIGINT handling (see `Manager.startWithSignals`). */
  async startWithSignals(): Promise<void> {
    await runWithSignals((signal) => this.start(signal));
  }

  /** Drives `e` on this replica: starts its cache and adds its lane to every controller. */
  private activate(e: Engagement): void {
    if (e.active || this.engaged.get(e.name) !== e) return;
    const stop = new AbortController();
    e.active = { stop, lanes: [] };
    e.cluster.start();
    for (const c of this.controllers) e.active.lanes.push(this.engageLane(c, e, stop.signal));
    this.metrics.clusterOwned.set({ cluster: e.name }, 1);
  }

  /** Stops driving `e` here: its lanes drain (its informers are released with them). */
  private async deactivate(e: Engagement): Promise<void> {
    const active = e.active;
    if (!active) return;
    e.active = undefined;
    active.stop.abort();
    await Promise.all(active.lanes);
    if (this.engaged.get(e.name) === e) this.metrics.clusterOwned.set({ cluster: e.name }, 0);
  }

  /** Drains `e`, stops its cache and forgets it. */
  private async disengage(e: Engagement): Promise<void> {
    if (this.engaged.get(e.name) === e) this.engaged.delete(e.name);
    else if (!e.active) return;
    await this.deactivate(e);
    await this.sharder?.released(e.name);
    await e.cluster.stop();
    if (!this.engaged.has(e.name)) {
      this.metrics.clusterEngaged.remove({ cluster: e.name });
      this.metrics.clusterOwned.remove({ cluster: e.name });
    }
    this.log.info('cluster disengaged', { cluster: e.name });
    this.sharder?.refresh();
  }

  private engageLane(c: MultiClusterController, e: Engagement, signal: AbortSignal): Promise<void> {
    return c.engage(e.name, e.cluster, signal).catch((err: unknown) => this.log.error('engaging a cluster on a controller failed', { cluster: e.name, controller: c.name, error: err }));
  }

  /** Cluster sharding: activates the clusters this replica may drive now, deactivates the others. */
  private reassign(): void {
    const sharder = this.sharder;
    if (!sharder) return;
    for (const e of this.engaged.values()) {
      if (sharder.drives(e.name)) this.activate(e);
      else if (e.active) {
        void this.deactivate(e).then(() => sharder.released(e.name));
      } else {
        this.metrics.clusterOwned.set({ cluster: e.name }, 0);
      }
    }
  }
}

function isMultiClusterController(r: Runnable | MultiClusterController): r is MultiClusterController {
  return typeof (r as MultiClusterController).engage === 'function' && typeof (r as MultiClusterController).clusterStatus === 'function';
}
