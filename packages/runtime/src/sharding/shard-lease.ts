/**
 * `ShardLease`: the Lease that makes one replica a live shard of a ring (`<ring>-shard-<identity>`, labelled
 * `shard.kubegen.io/ring=<ring>`, holder = the identity).
 *
 * It is a `LeaderElector` on a Lease no other replica campaigns for, with the same timings and semantics: acquired
 * (created if missing) on start, renewed every `retryPeriod`; a renewal round that cannot succeed within
 * `renewDeadline` ends the holding, which aborts the signal given to `onHeld`; on a graceful stop the Lease is
 * released (no holder) so the sharder moves this shard's objects at once. A restarted process of the same identity
 * takes over its own Lease at once, unless the sharder fenced it (then it waits the fence out, see
 * `ShardLeaseTracker`).
 *
 * Safety needs `leaseDuration > renewDeadline + retryPeriod`: a shard whose renewals fail gives up at most
 * `retryPeriod + renewDeadline` after its last successful renewal, and the sharder declares it dead no earlier than
 * `leaseDuration` after observing that renewal, so the shard has stopped by then. The constructor enforces it.
 */
import type { Transport } from '../client/types.js';
import type { Clock } from '../clock.js';
import { LeaderElector, DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS } from '../leaderelection/leader-elector.js';
import type { Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { RING_LEASE_LABEL, shardLeaseName } from './labels.js';

/** Lease timings of shards; defaults as leader election's (15 s, 10 s, 2 s). */
export interface ShardLeaseTimings {
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Settings of a {@link ShardLease}. */
export interface ShardLeaseOptions extends ShardLeaseTimings {
  transport: Transport;
  ring: string;
  identity: string;
  /** Namespace of the Lease. */
  namespace: string;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
}

/** Resolved timings, validated: `leaseDuration > renewDeadline + retryPeriod` (see the module comment). */
export function shardLeaseTimings(t: ShardLeaseTimings): Required<ShardLeaseTimings> {
  const leaseDurationMs = t.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadlineMs = t.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriodMs = t.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  if (!(leaseDurationMs > renewDeadlineMs + retryPeriodMs)) {
    throw new RangeError(`shard leaseDuration (${leaseDurationMs} ms) must be greater than renewDeadline + retryPeriod (${renewDeadlineMs} + ${retryPeriodMs} ms)`);
  }
  if (leaseDurationMs % 1000 !== 0) throw new RangeError(`shard leaseDuration must be whole seconds, got ${leaseDurationMs} ms`);
  return { leaseDurationMs, renewDeadlineMs, retryPeriodMs };
}

/** Holds one shard's Lease (see the module comment). */
export class ShardLease {
  readonly name: string;
  readonly namespace: string;
  private readonly elector: LeaderElector;
  private onHeld: ((held: AbortSignal) => Promise<void>) | undefined;

  constructor(opts: ShardLeaseOptions) {
    const timings = shardLeaseTimings(opts);
    this.name = shardLeaseName(opts.ring, opts.identity);
    this.namespace = opts.namespace;
    this.elector = new LeaderElector({
      transport: opts.transport,
      namespace: opts.namespace,
      name: this.name,
      identity: opts.identity,
      ...timings,
      releaseOnCancel: true,
      labels: { [RING_LEASE_LABEL]: opts.ring },
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.logger ? { logger: opts.logger.child({ component: 'shard-lease' }) } : {}),
      ...(opts.registry ? { registry: opts.registry } : {}),
      onStartedLeading: (held) => this.onHeld?.(held),
    });
  }

  /** True while the Lease is held. */
  isHeld(): boolean {
    return this.elector.isLeader();
  }

  /**
   * Acquires the Lease, calls `onHeld` with a signal that aborts when the holding ends (renew deadline missed, or
   * `signal` aborted), awaits it, releases the Lease and resolves. Resolves without calling `onHeld` if `signal`
   * aborts before the Lease was acquired. Never rejects.
   */
  async run(signal: AbortSignal, onHeld: (held: AbortSignal) => Promise<void>): Promise<void> {
    this.onHeld = onHeld;
    await this.elector.run(signal);
  }
}

