/**
 * `ClusterSharder`: replicas of a multi-cluster manager split the engaged clusters between them — clusters, not
 * objects, placed by the same consistent-hash ring as object sharding (`HashRing`, keyed by the cluster's name) — and
 * a cluster is driven by at most one replica at a time.
 *
 * - **Peers.** Every replica holds a peer Lease `<ring>-shard-<identity>` in the hub (a `ShardLease`, labelled with
 *   the ring) and follows the ring's Leases with a `ShardLeaseTracker`: the ring is made of the live peers. A replica
 *   that cannot renew its peer Lease stops driving every cluster (the manager then fails: `ShardLostError`).
 * - **Fences.** Driving a cluster takes its fence Lease `<ring>-cluster-<cluster>` in the hub, written with this
 *   replica as holder under optimistic concurrency. A replica takes a fence only when it is free: no holder, released,
 *   or held by a peer the tracker declared dead (fenced). It releases it after the cluster's lanes drained (moved by
 *   the ring, or disengaged). So a killed replica's clusters move once its peer Lease is declared dead — within its
 *   lease duration plus a check — and the new owner never overlaps with a live old one.
 */
import { createHash } from 'node:crypto';
import { CoordinationV1Client } from '../api/coordination/v1/client.js';
import { builtinResources } from '../builtin/resources.js';
import type { Lease } from '../builtin/types.js';
import { SharedInformerFactory } from '../cache/factory.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.js';
import type { ResourceInterface } from '../client/interfaces.js';
import type { Transport } from '../client/types.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { formatMicroTime } from '../leaderelection/lease-lock.js';
import { ShardLostError } from '../manager/manager-sharding.js';
import { leaseNameWithPrefix, RING_LEASE_LABEL, validateRingName } from '../sharding/labels.js';
import { ShardLeaseTracker } from '../sharding/lease-tracker.js';
import { HashRing } from '../sharding/ring.js';
import { defaultShardIdentity } from '../sharding/shard.js';
import { ShardLease, shardLeaseTimings, type ShardLeaseTimings } from '../sharding/shard-lease.js';

/** The label of a cluster's fence Lease: the ring's name. */
export const CLUSTER_FENCE_LABEL = 'multicluster.kubegen.io/ring';
/** The annotation of a fence Lease that names its cluster (the Lease name may be a sanitized form). */
export const CLUSTER_FENCE_ANNOTATION = 'multicluster.kubegen.io/cluster';

/** Cluster sharding of a `MultiClusterManager` (Lease timings default to leader election's 15 s / 10 s / 2 s). */
export interface ClusterShardingOptions extends ShardLeaseTimings {
  /** This replica's identity, stable across restarts (default `$POD_NAME`, else the host name). */
  identity?: string;
  /** Name of the ring, an RFC 1123 label (default `clusters`). */
  ringName?: string;
  /** Namespace of the peer and fence Leases in the hub (default `leaderElectionNamespace`, then `namespace`). */
  leaseNamespace?: string;
}

/** What a {@link ClusterSharder} needs of its manager. */
export interface ClusterSharderOptions extends ClusterShardingOptions {
  /** The hub's transport (the Leases live there). */
  transport: Transport;
  /** The engaged clusters' names. */
  clusters: () => string[];
  /** Called when `drives()` may answer differently (the ring or a fence changed). */
  onChange: () => void;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
}

/** `<ring>-cluster-<cluster>`: the fence Lease of a cluster (sanitized and hashed as shard Lease names are). */
export function clusterFenceLeaseName(ring: string, cluster: string): string {
  return leaseNameWithPrefix(`${ring}-cluster-`, cluster);
}

/**
 * The replica that `ring` (over the live peers) assigns `cluster` to: the ring's owner of the hash of the cluster's
 * name, as object sharding places an object by the hash of its UID. The name is hashed with SHA-1 (its first 64 bits),
 * not the objects' FNV-1a: cluster names are short and alike (`member-1`, `member-2`), and FNV-1a puts such names in
 * the same few buckets. Undefined when the ring is empty.
 */
export function clusterOwner(ring: HashRing, cluster: string): string | undefined {
  return ring.ownerOfHash(createHash('sha1').update(cluster).digest('hex').slice(0, 16));
}

/** This replica's share of the clusters (see the module comment). */
export class ClusterSharder {
  readonly identity: string;
  readonly ringName: string;
  readonly namespace: string;
  private readonly opts: ClusterSharderOptions;
  private readonly timings: Required<ShardLeaseTimings>;
  private readonly log: Logger;
  private readonly leases: ResourceInterface<Lease>;
  private ring = new HashRing([]);
  private tracker: ShardLeaseTracker | undefined;
  private ready = false;
  /** Clusters whose fence this replica holds, with the resourceVersion it last wrote or saw. */
  private readonly held = new Map<string, string>();
  /** Fence writes in flight, one per cluster. */
  private readonly busy = new Set<string>();
  private running = false;
  private timer: TimerHandle | undefined;

  constructor(opts: ClusterSharderOptions) {
    this.opts = opts;
    this.identity = opts.identity ?? defaultShardIdentity();
    this.ringName = opts.ringName ?? 'clusters';
    validateRingName(this.ringName);
    if (!opts.leaseNamespace) throw new TypeError('clusterSharding needs a leaseNamespace (or the manager\'s leaderElectionNamespace or namespace)');
    this.namespace = opts.leaseNamespace;
    this.timings = shardLeaseTimings(opts);
    this.log = opts.logger.child({ component: 'cluster-sharder', ring: this.ringName, identity: this.identity });
    this.leases = new CoordinationV1Client(opts.transport).leases(this.namespace);
  }

  /**
   * Holds the peer Lease and follows the ring and the fences until `signal` aborts; then releases what it holds.
   * Rejects with `ShardLostError` when the peer Lease was lost while running (the manager then stops).
   */
  async run(signal: AbortSignal): Promise<void> {
    const peer = new ShardLease({
      transport: this.opts.transport,
      ring: this.ringName,
      identity: this.identity,
      namespace: this.namespace,
      ...this.timings,
      clock: this.opts.clock,
      logger: this.log,
      ...(this.opts.registry ? { registry: this.opts.registry } : {}),
    });
    await peer.run(signal, (held) => this.whileHeld(held));
    if (!signal.aborted) throw new ShardLostError();
  }

  /** True while this replica may drive `cluster`: the ring assigns it here and this replica holds its fence. */
  drives(cluster: string): boolean {
    return this.running && this.ready && this.held.has(cluster) && clusterOwner(this.ring, cluster) === this.identity;
  }

  /** The live peers on the ring, sorted. */
  peers(): string[] {
    return [...this.ring.members];
  }

  /** The replica the ring assigns `cluster` to now (undefined before the first ring). */
  ownerOf(cluster: string): string | undefined {
    return clusterOwner(this.ring, cluster);
  }

  /**
   * Releases the fence of `cluster` if this replica holds it and no longer drives it (its lanes have drained): the
   * holder is cleared, or the Lease deleted when the cluster is no longer engaged.
   */
  async released(cluster: string): Promise<void> {
    const rv = this.held.get(cluster);
    if (rv === undefined || this.drives(cluster)) return;
    this.held.delete(cluster);
    const name = clusterFenceLeaseName(this.ringName, cluster);
    try {
      const lease = await this.leases.get(name);
      if (lease.spec?.holderIdentity !== this.identity) return;
      if (!this.opts.clusters().includes(cluster)) {
        await this.leases.delete(name, { preconditions: { resourceVersion: lease.metadata?.resourceVersion ?? rv } });
      } else {
        await this.leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: '', renewTime: formatMicroTime(this.opts.clock.now()) } });
      }
      this.log.info('released cluster', { cluster });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) this.log.warn('failed to release the fence of a cluster; its Lease stays held until this replica\'s peer Lease is declared dead', { cluster, lease: name, error: err });
    }
    this.refresh();
  }

  /** Re-evaluates the assignment (the set of engaged clusters changed, or a fence or peer changed). */
  refresh(): void {
    if (!this.running || !this.ready) return;
    const clusters = this.opts.clusters();
    for (const cluster of clusters) {
      if (clusterOwner(this.ring, cluster) === this.identity && !this.held.has(cluster)) void this.tryAcquire(cluster);
    }
    this.opts.onChange();
  }

  /** Follows peers and fences while the peer Lease is held. */
  private async whileHeld(held: AbortSignal): Promise<void> {
    const factory = new SharedInformerFactory(this.opts.transport, { namespace: this.namespace, clock: this.opts.clock, logger: this.log });
    const peers = factory.informerFor<Lease>(builtinResources.leases, { labelSelector: `${RING_LEASE_LABEL}=${this.ringName}` });
    const fences = factory.informerFor<Lease>(builtinResources.leases, { labelSelector: `${CLUSTER_FENCE_LABEL}=${this.ringName}` });
    const tracker = new ShardLeaseTracker({
      ring: this.ringName,
      namespace: this.namespace,
      transport: this.opts.transport,
      informer: peers,
      sharderIdentity: this.identity,
      clock: this.opts.clock,
      logger: this.log,
      onChange: () => this.onPeersChanged(),
    });
    this.tracker = tracker;
    const onFence = (): void => this.refresh();
    fences.addEventHandler({ onAdd: onFence, onUpdate: onFence, onDelete: onFence });
    this.running = true;
    factory.start();
    const trackerRun = tracker.run(held);
    try {
      await factory.waitForCacheSync({ signal: held });
      if (!held.aborted) {
        tracker.refresh();
        this.ready = true;
        this.onPeersChanged();
        this.tick(held);
        await new Promise<void>((resolve) => held.addEventListener('abort', () => resolve(), { once: true }));
      }
    } catch (err) {
      if (!held.aborted) throw err;
    } finally {
      // Lost or stopping: drive nothing more; the manager drains the lanes, then `released` gives back the fences.
      this.running = false;
      this.ready = false;
      if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
      this.opts.onChange();
      await trackerRun;
      await factory.shutdown();
      this.tracker = undefined;
    }
  }

  /** Retries fences it waits for every retry period (a released fence is also seen through the informer). */
  private tick(held: AbortSignal): void {
    if (held.aborted) return;
    this.refresh();
    this.timer = this.opts.clock.setTimeout(() => this.tick(held), this.timings.retryPeriodMs);
  }

  private onPeersChanged(): void {
    const live = this.tracker?.liveShards() ?? [];
    const members = live.includes(this.identity) ? live : [...live, this.identity];
    if (members.join(',') !== this.ring.members.join(',')) {
      this.ring = new HashRing(members);
      this.log.info('cluster ring changed', { peers: this.ring.members });
    }
    this.refresh();
  }

  /**
   * Takes the fence of `cluster` when it is free: missing, released, held by this replica already, or held by a
   * peer the tracker declared dead. Writes under optimistic concurrency, so two replicas never both take it.
   */
  private async tryAcquire(cluster: string): Promise<void> {
    if (this.busy.has(cluster)) return;
    this.busy.add(cluster);
    const name = clusterFenceLeaseName(this.ringName, cluster);
    const now = formatMicroTime(this.opts.clock.now());
    const spec = { holderIdentity: this.identity, leaseDurationSeconds: this.timings.leaseDurationMs / 1000, acquireTime: now, renewTime: now };
    try {
      let lease: Lease | undefined;
      try {
        lease = await this.leases.get(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      let written: Lease;
      if (!lease) {
        written = await this.leases.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace: this.namespace, labels: { [CLUSTER_FENCE_LABEL]: this.ringName }, annotations: { [CLUSTER_FENCE_ANNOTATION]: cluster } },
          spec: { ...spec, leaseTransitions: 0 },
        });
      } else {
        const holder = lease.spec?.holderIdentity ?? '';
        const free = holder === '' || holder === this.identity || this.tracker?.state(holder) === 'dead';
        if (!free) return;
        written = await this.leases.update({ ...lease, spec: { ...lease.spec, ...spec, leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (holder === this.identity ? 0 : 1) } });
        if (holder !== '' && holder !== this.identity) this.log.info('took over the cluster of a dead replica', { cluster, previousHolder: holder });
      }
      if (clusterOwner(this.ring, cluster) !== this.identity || !this.running) {
        // The ring moved on while writing: hand it back at once.
        this.held.set(cluster, written.metadata?.resourceVersion ?? '');
        queueMicrotask(() => void this.released(cluster));
        return;
      }
      this.held.set(cluster, written.metadata?.resourceVersion ?? '');
      this.log.info('acquired cluster', { cluster });
      this.opts.onChange();
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) this.log.warn('failed to take the fence of a cluster, retrying', { cluster, lease: name, error: err });
    } finally {
      this.busy.delete(cluster);
    }
  }
}
