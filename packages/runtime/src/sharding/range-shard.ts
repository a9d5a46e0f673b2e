/**
 * `RangeShard`: one replica of a sharded controller when no object is labelled to assign it (issue 27): every replica
 * computes the same ring (`ring.ts`) over the live shards of its shard Leases and owns the buckets of the KEP-5866
 * hash space the ring gives it. Its informers select them — on the server with a `shardSelector` (Kubernetes 1.36
 * `ShardedListAndWatch`), or on the client with the same function — and objects it creates for an owner carry the
 * owner's bucket (`bucket.shard.kubegen.io/<ring>`, written once, never moved), so owned kinds are selected by a
 * label set. No per-object write assigns or reassigns anything.
 *
 * Handoff, with no object reconciled by two shards at once:
 * - `desired`: the buckets the ring over the live shards (this one included) gives this shard; its `generation` is a
 *   digest of that member set. `active`: the buckets this shard reconciles now; only an active bucket's objects are
 *   reconciled (`tryEnter`).
 * - A bucket no longer desired is taken out of `active` at once (no new reconcile of it starts) and, once its
 *   in-flight reconciles have finished, the shard publishes the generation on its Lease
 *   (`shard.kubegen.io/generation`): "I hold nothing outside my part of this ring".
 * - A desired bucket becomes active only when every other shard that is not dead has published the same generation.
 *   Shards that agree on a generation agree on the owner of every bucket, so that owner is the only one to activate it.
 * - A shard that dies is declared dead once its Lease has gone unrenewed for its lease duration and it has been
 *   fenced (`ShardLeaseTracker`; a shard gives up reconciling `retryPeriod + renewDeadline` after its last renewal,
 *   before that): the others then compute a ring without it and take its buckets. The Lease expiry is the bound.
 * - A shard that has just acquired its Lease computes no ring for a join window (default one retry period): shards
 *   started together (a Deployment's replicas) see each other's Leases first, so none of them takes the whole ring
 *   for a moment — lists every object of the ring, and starts reconciling others' parts — only to hand most of it
 *   over a second later (Kafka's `group.initial.rebalance.delay.ms` for a consumer group, the same idea).
 * Errors (a failed Lease write) are logged and retried on the next evaluation; `lost` aborts when the shard's own
 * Lease is lost (the caller stops reconciling and exits, as with leader election).
 */
import { createHash } from 'node:crypto';
import type { Lease } from '../builtin/types.js';
import { builtinResources } from '../builtin/resources.js';
import { SharedInformerFactory } from '../cache/factory.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeObject, Transport } from '../client/types.js';
import { realClock, type Clock, type TimerHandle } from '../clock.js';
import { getLogger, type Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { RING_LEASE_LABEL, shardLeaseName, validateRingName, validateShardIdentity } from './labels.js';
import { FENCE_HOLDER_PREFIX, ShardLeaseTracker } from './lease-tracker.js';
import { HashRing } from './ring.js';
import { shardingMetrics } from './metrics.js';
import { bucketOfHash, rangesOfBuckets, shardHash, shardRangeSelector, type HashRange } from './shard-hash.js';
import { ShardLease, shardLeaseTimings, type ShardLeaseTimings } from './shard-lease.js';

/** Annotation on a shard Lease: the generation (ring digest) the shard has handed off to. */
export const GENERATION_ANNOTATION = 'shard.kubegen.io/generation';
/** Prefix of the label an owned object carries: `bucket.shard.kubegen.io/<ring>` = its owner's bucket (two hex digits). */
export const BUCKET_LABEL_PREFIX = 'bucket.shard.kubegen.io/';

/** `bucket.shard.kubegen.io/<ring>`. */
export function bucketLabel(ring: string): string {
  return BUCKET_LABEL_PREFIX + ring;
}

/** The generation of a ring: a digest of its sorted members. */
export function ringGeneration(members: readonly string[]): string {
  return createHash('sha1').update([...members].sort().join('\n')).digest('hex').slice(0, 16);
}

/** Settings of a {@link RangeShard}. Timings default to leader election's (15 s lease, 10 s renew deadline, 2 s retry). */
export interface RangeShardOptions extends ShardLeaseTimings {
  transport: Transport;
  /** Name of the ring: an RFC 1123 label. */
  ringName: string;
  /** This replica's identity (a label value, unique in the ring, stable across restarts). */
  identity: string;
  /** Namespace of the shard Leases. */
  namespace: string;
  /** Points per shard on the ring (default 100). */
  virtualNodes?: number;
  /**
   * How long a shard waits, once it first holds its Lease, before it takes any bucket: the time within which shards
   * started together create their Leases (default `retryPeriodMs`; 0 takes the ring's part at once).
   */
  joinWindowMs?: number;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
}

/** A shard's join window: `ms` (0 or more), by default `retryPeriodMs`. Throws a RangeError naming the option. */
export function joinWindow(ms: number | undefined, retryPeriodMs: number): number {
  if (ms !== undefined && !(ms >= 0 && Number.isFinite(ms))) throw new RangeError(`sharding joinWindowMs must be a finite number of milliseconds, 0 or more, not ${ms}`);
  return ms ?? retryPeriodMs;
}

/** The buckets a shard reconciles or watches, as the informers of its kinds select them. */
export interface ShardScope {
  /** Buckets desired or still active: what the informers hold. */
  watched: readonly number[];
  /** Their hash ranges (the sharded kind's `shardSelector`). */
  ranges: readonly HashRange[];
  /** The label selector of owned objects: `bucket.shard.kubegen.io/<ring> in (…)`; selects nothing when empty. */
  ownedLabelSelector: string;
  /** Bumped on every change of `watched`. */
  version: number;
}

/** One replica's part of a ring, handed over without double reconciles (see the module comment). */
export class RangeShard {
  readonly ringName: string;
  readonly identity: string;
  readonly namespace: string;
  /** `bucket.shard.kubegen.io/<ring>`. */
  readonly bucketLabel: string;
  /** Aborts when the shard Lease is lost (renew deadline missed); never on a graceful stop. */
  readonly lost: AbortSignal;
  private readonly opts: RangeShardOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly lease: ShardLease;
  private readonly lostController = new AbortController();
  private readonly joinWindowMs: number;
  private desired = new Set<number>();
  private readonly active = new Set<number>();
  private readonly inFlight = new Map<number, number>();
  private readonly drained: (() => void)[] = [];
  private readonly scopeListeners = new Set<(scope: ShardScope) => void>();
  private readonly activationListeners = new Set<(buckets: readonly number[]) => void>();
  private scopeCache: ShardScope = { watched: [], ranges: [], ownedLabelSelector: '', version: 0 };
  private published: string | undefined;
  private held = false;
  /** The join window after the first acquisition has passed (see the module comment). */
  private joined = false;
  private heldResolve!: () => void;
  private readonly heldPromise: Promise<void>;
  private evaluating: Promise<void> | undefined;
  private reevaluate = false;
  private tracker: ShardLeaseTracker | undefined;
  private leaseInformerStore: (() => Lease[]) | undefined;
  private leasesSynced: () => boolean = () => false;

  constructor(opts: RangeShardOptions) {
    validateRingName(opts.ringName);
    validateShardIdentity(opts.identity);
    if (!opts.namespace) throw new TypeError('sharding needs the namespace of its Leases');
    const timings = shardLeaseTimings(opts);
    this.joinWindowMs = joinWindow(opts.joinWindowMs, timings.retryPeriodMs);
    this.opts = opts;
    this.ringName = opts.ringName;
    this.identity = opts.identity;
    this.namespace = opts.namespace;
    this.bucketLabel = bucketLabel(opts.ringName);
    this.lost = this.lostController.signal;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ component: 'range-shard', ring: opts.ringName, shard: opts.identity });
    this.lease = new ShardLease({ ...shardLeaseTimings(opts), transport: opts.transport, ring: opts.ringName, identity: opts.identity, namespace: opts.namespace, clock: this.clock, logger: this.log, ...(opts.registry ? { registry: opts.registry } : {}) });
    this.heldPromise = new Promise((resolve) => (this.heldResolve = resolve));
  }

  /** Resolves once the shard Lease was first acquired. */
  whenHeld(): Promise<void> {
    return this.heldPromise;
  }

  /** The labels an object created for `owner` carries: its owner's bucket, so it is cached where its owner is. */
  labelsFor(owner: KubeObject): Record<string, string> {
    const uid = owner.metadata?.uid;
    if (!uid) return {};
    return { [this.bucketLabel]: bucketOfHash(shardHash(uid)).toString(16).padStart(2, '0') };
  }

  /** Whether this shard reconciles the object with this UID now (its bucket is active). */
  owns(uid: string): boolean {
    return this.active.has(bucketOfHash(shardHash(uid)));
  }

  /**
   * Marks a reconcile of the object with this UID as in flight, if its bucket is active: returns the function that
   * ends it (a released bucket is handed over only once its reconciles have ended), or undefined — then do not
   * reconcile, the object is not this shard's now.
   */
  tryEnter(uid: string): (() => void) | undefined {
    const b = bucketOfHash(shardHash(uid));
    if (!this.active.has(b)) return undefined;
    this.inFlight.set(b, (this.inFlight.get(b) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const n = (this.inFlight.get(b) ?? 1) - 1;
      if (n > 0) this.inFlight.set(b, n);
      else this.inFlight.delete(b);
      if (n <= 0) for (const w of this.drained.splice(0)) w();
    };
  }

  /** What the informers of the sharded and owned kinds select now (see {@link ShardScope}). */
  scope(): ShardScope {
    return this.scopeCache;
  }

  /** Calls `listener` when the watched buckets change; returns the function that removes it. */
  onScopeChange(listener: (scope: ShardScope) => void): () => void {
    this.scopeListeners.add(listener);
    return () => this.scopeListeners.delete(listener);
  }

  /** Calls `listener` with buckets that became active (enqueue their cached objects); returns the remover. */
  onActivated(listener: (buckets: readonly number[]) => void): () => void {
    this.activationListeners.add(listener);
    return () => this.activationListeners.delete(listener);
  }

  /** The active buckets, sorted (for metrics and tests). */
  activeBuckets(): number[] {
    return [...this.active].sort((a, b) => a - b);
  }

  /**
   * Holds the shard Lease and hands buckets over while holding it (see the module comment). Resolves once `signal`
   * aborted (or the Lease was lost) and the Lease was released; never rejects. Stop reconciling before aborting it.
   */
  async run(signal: AbortSignal): Promise<void> {
    const factory = new SharedInformerFactory(this.opts.transport, { informerName: `shard/${this.ringName}`, namespace: this.namespace, clock: this.clock, logger: this.log, ...(this.opts.registry ? { registry: this.opts.registry } : {}) });
    const informer = factory.informerFor<Lease>(builtinResources.leases, { labelSelector: `${RING_LEASE_LABEL}=${this.ringName}` });
    this.leaseInformerStore = () => informer.getIndexer().list();
    this.leasesSynced = () => informer.hasSynced();
    const evaluate = (): void => this.evaluate();
    this.tracker = new ShardLeaseTracker({
      ring: this.ringName,
      namespace: this.namespace,
      transport: this.opts.transport,
      informer,
      sharderIdentity: this.identity,
      clock: this.clock,
      logger: this.log,
      onChange: evaluate,
      assignedShards: () => [],
    });
    // Generations published by others do not change states: re-evaluate on every Lease event too.
    informer.addEventHandler({ onAdd: evaluate, onUpdate: evaluate, onDelete: evaluate });
    factory.start();
    const trackerRun = this.tracker.run(signal);
    const metrics = shardingMetrics(this.opts.registry);
    const stopMetrics = metrics.collectBuckets((set) => {
      set({ ring: this.ringName, shard: this.identity, state: 'desired' }, this.desired.size);
      set({ ring: this.ringName, shard: this.identity, state: 'active' }, this.active.size);
    });
    let joinTimer: TimerHandle | undefined;
    try {
      await this.lease.run(signal, async (held) => {
        this.held = true;
        this.log.info('shard lease acquired', { joinWindowMs: this.joined ? 0 : this.joinWindowMs });
        this.heldResolve();
        if (joinTimer === undefined) {
          joinTimer = this.clock.setTimeout(() => {
            this.joined = true;
            this.evaluate();
          }, this.joinWindowMs);
        }
        held.addEventListener('abort', () => {
          this.held = false;
          if (signal.aborted) return;
          this.log.error('shard lease lost: stop reconciling');
          this.active.clear();
          this.lostController.abort(new Error(`shard ${this.identity} of ring ${this.ringName} lost its Lease`));
        }, { once: true });
        this.evaluate();
        await new Promise<void>((resolve) => (held.aborted ? resolve() : held.addEventListener('abort', () => resolve(), { once: true })));
      });
    } finally {
      if (joinTimer !== undefined) this.clock.clearTimeout(joinTimer);
      stopMetrics();
      this.active.clear();
      await trackerRun;
      await factory.shutdown();
    }
  }

  /** One evaluation at a time; a trigger during one runs another after it. */
  private evaluate(): void {
    if (this.evaluating) {
      this.reevaluate = true;
      return;
    }
    this.evaluating = this.evaluateOnce()
      .catch((err: unknown) => this.log.error('handoff step failed; retrying on the next change', { error: err }))
      .finally(() => {
        this.evaluating = undefined;
        if (this.reevaluate) {
          this.reevaluate = false;
          this.evaluate();
        }
      });
  }

  private async evaluateOnce(): Promise<void> {
    // Before the ring's Leases are known, a shard would think itself alone and take everything.
    if (!this.held || !this.joined || !this.tracker || !this.leasesSynced()) return;
    this.tracker.refresh();
    const members = [...new Set([...this.tracker.liveShards(), this.identity])].sort();
    const generation = ringGeneration(members);
    const ring = new HashRing(members, this.opts.virtualNodes !== undefined ? { virtualNodes: this.opts.virtualNodes } : {});
    this.desired = new Set(ring.bucketsOf(this.identity));
    const releasing = [...this.active].filter((b) => !this.desired.has(b));
    for (const b of releasing) this.active.delete(b);
    this.updateScope();
    if (releasing.length > 0) {
      this.log.info('releasing buckets', { buckets: releasing.length, active: this.active.size, generation, members });
      await this.whenDrained(releasing);
    }
    if (this.published !== generation) {
      await this.publish(generation);
      this.published = generation;
    }
    const gaining = [...this.desired].filter((b) => !this.active.has(b));
    if (gaining.length === 0 || !this.othersAgree(generation)) return;
    for (const b of gaining) this.active.add(b);
    this.log.info('activated buckets', { buckets: gaining.length, active: this.active.size, generation, members });
    this.updateScope();
    for (const l of this.activationListeners) l(gaining);
  }

  /** Whether every other shard that is not dead has published `generation`. */
  private othersAgree(generation: string): boolean {
    for (const lease of this.leaseInformerStore?.() ?? []) {
      const holder = lease.spec?.holderIdentity ?? '';
      const name = lease.metadata?.name ?? '';
      if (name === shardLeaseName(this.ringName, this.identity) || holder.startsWith(FENCE_HOLDER_PREFIX)) continue;
      // A released or expired Lease is not dead until it is fenced (the tracker does it): wait for that.
      const state = holder ? this.tracker!.state(holder) : 'uncertain';
      if (state === 'dead') continue;
      if (lease.metadata?.annotations?.[GENERATION_ANNOTATION] !== generation) return false;
    }
    return true;
  }

  /** Resolves once no reconcile of `buckets` is in flight. */
  private async whenDrained(buckets: readonly number[]): Promise<void> {
    while (buckets.some((b) => (this.inFlight.get(b) ?? 0) > 0)) await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  private async publish(generation: string): Promise<void> {
    const client = new ResourceClient<Lease>(this.opts.transport, builtinResources.leases, this.namespace);
    await client.patch(shardLeaseName(this.ringName, this.identity), { type: 'merge', patch: { metadata: { annotations: { [GENERATION_ANNOTATION]: generation } } } });
  }

  private updateScope(): void {
    const watched = [...new Set([...this.desired, ...this.active])].sort((a, b) => a - b);
    if (watched.join() === this.scopeCache.watched.join()) return;
    const values = watched.map((b) => b.toString(16).padStart(2, '0'));
    this.scopeCache = {
      watched,
      ranges: rangesOfBuckets(watched),
      // An empty set selects nothing: `in ()` is not valid, a value no bucket has is.
      ownedLabelSelector: `${this.bucketLabel} in (${values.length > 0 ? values.join(',') : 'none'})`,
      version: this.scopeCache.version + 1,
    };
    for (const l of this.scopeListeners) l(this.scopeCache);
  }
}

/**
 * A shard selector that selects nothing in practice: the one hash `0x0000000000000000` (a server refuses an empty
 * selector, and an empty range, as invalid).
 */
export const NOTHING_SHARD_SELECTOR = "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')";

/**
 * The `shardSelector` of a scope; {@link NOTHING_SHARD_SELECTOR} while it has no bucket (before the ring is known):
 * no selector at all would list every object, only to be replaced once the shard's part is known.
 */
export function scopeShardSelector(scope: ShardScope): string {
  return scope.ranges.length > 0 ? shardRangeSelector(scope.ranges) : NOTHING_SHARD_SELECTOR;
}
