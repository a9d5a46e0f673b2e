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
import type { Transport } from '../client/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import type { ShardLeaseTimings } from '../sharding/shard-lease.js';

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

/** This replica's share of the clusters (see the module comment). */
export class ClusterSharder {
  readonly identity: string;
  readonly ringName: string;

  constructor(readonly opts: ClusterSharderOptions) {
    this.identity = opts.identity ?? process.env['POD_NAME'] ?? 'unknown';
    this.ringName = opts.ringName ?? 'clusters';
  }

  /** Holds the peer Lease and follows the ring until `signal` aborts; rejects with `ShardLostError` when it lost it. */
  async run(_signal: AbortSignal): Promise<void> {
    throw new Error('not implemented');
  }

  /** True while this replica may drive `cluster`: the ring assigns it here and this replica holds its fence. */
  drives(_cluster: string): boolean {
    throw new Error('not implemented');
  }

  /** The live peers, sorted. */
  peers(): string[] {
    throw new Error('not implemented');
  }

  /** Releases the fence of `cluster` if this replica holds it (its lanes have drained). */
  async released(_cluster: string): Promise<void> {
    throw new Error('not implemented');
  }

  /** Re-evaluates the assignment (the set of engaged clusters changed). */
  refresh(): void {}
}
