/**
 * `ShardLeaseTracker`: the sharder's view of which shards of a ring are alive, from their Leases.
 *
 * A shard's state, from its Lease `<ring>-shard-<identity>`:
 * - **live**: the Lease is held by the identity and has changed within its `leaseDurationSeconds`, measured on this
 *   process's clock since the change was observed (as `LeaderElector` measures expiry: the remote `renewTime` is
 *   never compared with local time, so clock skew does not matter; a newly started sharder gives every held Lease a
 *   full duration).
 * - **dead**: there is no such Lease, or the sharder has **fenced** it: written it, at the resourceVersion it just
 *   read, with the holder `sharder-fence/<sharder identity>` and the shard's lease duration. Only a dead shard's
 *   objects are moved without its consent. The fence makes "the shard is dead" an atomic decision (a renewal racing
 *   it wins or loses by optimistic concurrency) and makes a restarted replica of that identity wait a lease duration
 *   (its `LeaderElector` sees someone else's lease) while the sharder moves its objects away, so the new process
 *   cannot start reconciling objects that are being moved.
 * - **uncertain**: anything else (released, expired but not fenced yet, held by someone else). Its objects stay
 *   where they are. Released and expired Leases are fenced on the next check; an expired one is read again first
 *   and counts as renewed if it changed (a stalled watch must not kill a live shard).
 *
 * A fenced Lease is deleted once its fence has lapsed (one lease duration after it was written, on this clock) and
 * `assignedShards()` no longer names its shard, with the fence's resourceVersion as precondition (a returning replica
 * that took the Lease over meanwhile keeps it). Without that, every replica that ever ran (pods named by a
 * ReplicaSet get a new identity on each restart) would leave a Lease behind.
 *
 * States are computed from the informer's store (never from events alone), on every Lease event and every
 * `checkIntervalMs`; `onChange` is called when any state changed.
 * Errors are logged and retried on the next check.
 */
import { CoordinationV1Client } from '../api/coordination/v1/client.js';
import type { Lease, LeaseList } from '../builtin/types.js';
import type { ResourceInterface } from '../client/interfaces.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { Transport } from '../client/types.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { Logger } from '../log.js';
import { formatMicroTime } from '../leaderelection/lease-lock.js';
import { shardLeaseName } from './labels.js';

/** Prefix of the holder the sharder writes into a dead shard's Lease; never a valid identity (it has a `/`). */
export const FENCE_HOLDER_PREFIX = 'sharder-fence/';

/** State of one shard (see the module comment). */
export type ShardState = 'live' | 'dead' | 'uncertain';

/** Settings of a {@link ShardLeaseTracker}. */
export interface ShardLeaseTrackerOptions {
  ring: string;
  /** Namespace of the shard Leases. */
  namespace: string;
  transport: Transport;
  /** Informer over the ring's shard Leases (selected by `shard.kubegen.io/ring=<ring>`), not yet started or running. */
  informer: SharedIndexInformer<Lease>;
  /** Identity of the sharder, written into fences. */
  sharderIdentity: string;
  clock: Clock;
  logger: Logger;
  /** Period of the expiry check (default 1 s). */
  checkIntervalMs?: number;
  /** Called (synchronously) after the states changed. */
  onChange: () => void;
  /**
   * Identities that still have objects assigned (the sharder's cache). Fenced Leases of other shards are deleted once
   * the fence lapsed (see the module comment); unset, fenced Leases are kept.
   */
  assignedShards?: () => Iterable<string>;
}

interface Observation {
  raw: string;
  /** resourceVersion of the Lease observed. */
  rv: string;
  seenAt: number;
  holder: string;
  durationMs: number;
}

/** Tracks the states of a ring's shards from their Leases (see the module comment). Start with `run(signal)`. */
export class ShardLeaseTracker {
  private readonly opts: ShardLeaseTrackerOptions;
  private readonly log: Logger;
  /** The ring's Leases on the API, for the direct reads and writes of fencing and clean-up. */
  private readonly leases: ResourceInterface<Lease, LeaseList>;
  private readonly observed = new Map<string, Observation>();
  /** Per Lease, the version in the informer's store that a direct read or the fence has already superseded. */
  private readonly superseded = new Map<string, string>();
  private readonly checkIntervalMs: number;
  private snapshot = '';
  private live: readonly string[] = [];
  private checking: Promise<void> | undefined;
  private recheck = false;
  private stopped = false;

  constructor(opts: ShardLeaseTrackerOptions) {
    this.opts = opts;
    this.log = opts.logger.child({ component: 'shard-lease-tracker' });
    this.checkIntervalMs = opts.checkIntervalMs ?? 1_000;
    this.leases = new CoordinationV1Client(opts.transport).leases(opts.namespace);
    // Events only trigger a check; states are computed from the informer's store, so they never lag behind it.
    const check = (): void => this.check();
    opts.informer.addEventHandler({ onAdd: check, onUpdate: check, onDelete: check });
  }

  /** Identities of the live shards, sorted. */
  liveShards(): readonly string[] {
    return this.live;
  }

  /** The state of shard `identity` (see the module comment). */
  state(identity: string): ShardState {
    const o = this.observed.get(shardLeaseName(this.opts.ring, identity));
    if (o === undefined || o.holder.startsWith(FENCE_HOLDER_PREFIX)) return 'dead';
    return o.holder === identity && this.fresh(o) ? 'live' : 'uncertain';
  }

  /** Runs the periodic check until `signal` aborts (the informer is run by its owner). */
  async run(signal: AbortSignal): Promise<void> {
    let timer: TimerHandle | undefined;
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        this.check();
        timer = this.opts.clock.setTimeout(tick, this.checkIntervalMs);
      };
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
      tick();
    });
    this.stopped = true;
    if (timer !== undefined) this.opts.clock.clearTimeout(timer);
    await this.checking;
  }

  /**
   * Brings the observations up to date with the informer's store (a Lease whose spec changed is seen to change now)
   * and reports state changes. Call after the informer synced and before deciding anything.
   */
  refresh(): void {
    const names = new Set<string>();
    for (const lease of this.opts.informer.getIndexer().list()) {
      const name = lease.metadata?.name ?? '';
      names.add(name);
      if (this.superseded.get(name) === lease.metadata?.resourceVersion) continue;
      this.superseded.delete(name);
      this.observe(lease);
    }
    for (const name of [...this.observed.keys()]) if (!names.has(name) && !this.superseded.has(name)) this.observed.delete(name);
    for (const name of [...this.superseded.keys()]) if (!names.has(name) && !this.observed.has(name)) this.superseded.delete(name);
    this.report();
  }

  private observe(lease: Lease): void {
    const name = lease.metadata?.name ?? '';
    const raw = JSON.stringify(lease.spec ?? {});
    if (this.observed.get(name)?.raw === raw) return;
    this.observed.set(name, {
      raw,
      rv: lease.metadata?.resourceVersion ?? '',
      seenAt: this.opts.clock.now(),
      holder: lease.spec?.holderIdentity ?? '',
      durationMs: (lease.spec?.leaseDurationSeconds ?? 0) * 1000,
    });
  }

  private fresh(o: Observation): boolean {
    return o.holder !== '' && o.seenAt + o.durationMs > this.opts.clock.now();
  }

  /** Recomputes the states (reporting changes) and fences what needs it; one check at a time. */
  private check(): void {
    if (this.stopped) return;
    if (this.checking) {
      this.recheck = true;
      return;
    }
    this.checking = this.checkOnce().finally(() => {
      this.checking = undefined;
      if (this.recheck) {
        this.recheck = false;
        this.check();
      }
    });
  }

  private async checkOnce(): Promise<void> {
    this.refresh();
    for (const [name, o] of [...this.observed]) {
      if (this.stopped) return;
      if (o.holder.startsWith(FENCE_HOLDER_PREFIX) || this.fresh(o)) continue;
      await this.fence(name, o);
    }
    await this.deleteLapsedFences();
    this.refresh();
  }

  /** Deletes fenced Leases whose fence lapsed and whose shard has no objects left (see the module comment). */
  private async deleteLapsedFences(): Promise<void> {
    if (this.opts.assignedShards === undefined) return;
    const holding = new Set([...this.opts.assignedShards()].map((id) => shardLeaseName(this.opts.ring, id)));
    for (const [name, o] of [...this.observed]) {
      if (this.stopped) return;
      if (!o.holder.startsWith(FENCE_HOLDER_PREFIX) || this.fresh(o) || holding.has(name)) continue;
      try {
        await this.leases.delete(name, { preconditions: { resourceVersion: o.rv } });
        this.log.info('deleted the Lease of a dead shard that has no objects left', { lease: name });
      } catch (err) {
        // Gone already, or taken over by a returning replica (Conflict): the informer brings what is there now.
        if (!isNotFound(err) && !isConflict(err)) {
          this.log.warn('failed to delete the Lease of a dead shard, retrying', { lease: name, error: err });
          continue;
        }
      }
      // Until the informer shows the deletion (or the new version), the fence it still holds is not acted on again.
      this.superseded.set(name, o.rv);
      this.observed.delete(name);
    }
  }

  /** Publishes the live set and calls `onChange` when any state changed. */
  private report(): void {
    const live: string[] = [];
    const states: string[] = [];
    for (const [name, o] of [...this.observed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const isLive = o.holder !== '' && this.fresh(o) && shardLeaseName(this.opts.ring, o.holder) === name;
      if (isLive) live.push(o.holder);
      states.push(`${name}=${isLive ? 'live' : o.holder.startsWith(FENCE_HOLDER_PREFIX) ? 'dead' : 'uncertain'}`);
    }
    const snapshot = states.join(',');
    if (snapshot === this.snapshot) return;
    this.snapshot = snapshot;
    this.live = live.sort();
    this.log.info('shard states changed', { ring: this.opts.ring, shards: states, live: this.live });
    this.opts.onChange();
  }

  /** Observes `lease`, read or written directly, and ignores the older version `seen` came from when the store still has it. */
  private supersede(name: string, seen: Observation, lease: Lease): void {
    this.superseded.set(name, seen.rv);
    this.observe(lease);
  }

  /** Reads the Lease again and, unless it changed since observed, fences it at the version read. */
  private async fence(name: string, seen: Observation): Promise<void> {
    try {
      const lease = await this.leases.get(name);
      // Changed since observed (a stalled watch?): it counts as seen to change now.
      if (JSON.stringify(lease.spec ?? {}) !== seen.raw) {
        this.supersede(name, seen, lease);
        return;
      }
      const now = formatMicroTime(this.opts.clock.now());
      const durationSeconds = Math.max(1, seen.durationMs / 1000, lease.spec?.leaseDurationSeconds ?? 0);
      const fenced = await this.leases.update({
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: FENCE_HOLDER_PREFIX + this.opts.sharderIdentity,
          leaseDurationSeconds: Math.ceil(durationSeconds),
          acquireTime: now,
          renewTime: now,
          leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1,
        },
      });
      this.log.info('fenced the Lease of a dead shard', { lease: name, previousHolder: seen.holder });
      this.supersede(name, seen, fenced);
    } catch (err) {
      if (isNotFound(err)) return;
      // A Conflict: the shard renewed (or someone else wrote) meanwhile; the informer brings the new version.
      if (isConflict(err)) this.log.debug('Lease changed while fencing it', { lease: name });
      else this.log.warn('failed to fence the Lease of an expired shard, retrying', { lease: name, error: err });
    }
  }
}
