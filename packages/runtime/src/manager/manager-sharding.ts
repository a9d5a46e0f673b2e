/**
 * How a `Manager` runs as one shard of a ring (`ManagerOptions.sharding`, docs/sharding.md). The builder asks for the
 * shard of the controller it builds ({@link newManagerShard}): a {@link ManagerShard}, which narrows the cache of the
 * sharded kind and its owned kinds to the shard's part and gates reconciles; `start` runs it
 * ({@link ManagerShard.run}), and the controllers only while its shard Lease is held.
 *
 * It shards one of three ways, chosen when the manager starts (`mode: 'auto'`, the default) and logged once:
 * - `server`: the apiserver filters (KEP-5866 `shardSelector`, Kubernetes 1.36 with `ShardedListAndWatch`): the
 *   sharded kind's informers list and watch only the shard's hash ranges; owned objects carry their owner's bucket
 *   and are selected by label set. No object is ever written to assign it (`RangeShard`).
 * - `client`: the same ranges and handoff, filtered here: the sharded kind is cached whole, events and reconciles
 *   outside the shard's part are dropped; owned kinds are selected by bucket as above. For servers that have the
 *   field but not the gate on (1.36+).
 * - `labels`: the sharder labels objects with their shard and replicas select by label (`Shard`, the path before
 *   KEP-5866): for older servers, where it keeps per-replica memory small at the cost of label writes.
 * `auto` lists the sharded kind with a shard selector: a filtering server echoes it in `metadata.shardInfo` (1.36
 * does for built-in kinds, not for custom resources), so it then also sends a deliberately invalid one, which a
 * filtering server refuses ("invalid shard selector") and one without the feature ignores. Then `client` when the
 * server is 1.36 or later, `labels` before.
 */
import { whenAborted } from '../abort.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import type { Clock } from '../clock.js';
import type { ClusterCache, KindScope } from '../cluster/cluster-cache.js';
import { DiscoveryClient } from '../discovery/discovery-client.js';
import type { RequestSink } from '../handler/handler.js';
import type { Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import type { Predicate } from '../predicate/predicate.js';
import { requestKey, type ReconcileFunc, type Reconciler } from '../reconcile/index.js';
import { drainRequested, withDrainHandshake } from '../sharding/drain-reconciler.js';
import { validateRingName, validateShardIdentity } from '../sharding/labels.js';
import { shardingMetrics } from '../sharding/metrics.js';
import { joinWindow, RangeShard, scopeShardSelector } from '../sharding/range-shard.js';
import { bucketOfHash, bucketStart, HASH_SPACE_END, shardHash, shardRangeSelector } from '../sharding/shard-hash.js';
import { defaultShardIdentity, Shard } from '../sharding/shard.js';
import type { Source } from '../source/source.js';
import type { ManagerShardingOptions, ShardingMode } from './manager-options.js';

/** `start` rejected: this replica lost its shard Lease while running (exit non-zero; a restart rejoins the ring). */
export class ShardLostError extends Error {
  constructor() {
    super('shard lease lost');
    this.name = 'ShardLostError';
  }
}

/** What {@link newManagerShard} needs from the manager. */
export interface ManagerShardContext {
  transport: Transport;
  cache: ClusterCache;
  sharding: ManagerShardingOptions;
  leaseNamespace: string | undefined;
  /** The manager's namespace, if its cache is limited to one: the sharder (labels mode) then watches that one only. */
  namespace: string | undefined;
  logger: Logger;
  registry: Registry;
  clock: Clock;
}

/** Every hash: a valid selector that selects everything. */
const WHOLE_RANGE_SELECTOR = shardRangeSelector([{ start: bucketStart(0), end: HASH_SPACE_END }]);
/** An invalid selector: a filtering server refuses it, a server without the feature ignores it. */
const PROBE_SELECTOR = "shardRange(object.metadata.uid, '0x0', '0x1')";

/**
 * The way the server lets a ring shard `info` (see the module comment): `server` when a list with a shard selector
 * comes back with the selector echoed in `metadata.shardInfo` (built-in kinds) or the server refuses an invalid one
 * as an invalid shard selector (custom resources, whose lists 1.36 does not annotate), else `client` from
 * Kubernetes 1.36 on, else `labels`.
 */
export async function detectShardingMode(transport: Transport, info: ResourceInfo, namespace?: string): Promise<Exclude<ShardingMode, 'auto'>> {
  const client = new ResourceClient<KubeObject>(transport, info, namespace);
  try {
    const list = await client.list({ limit: 1, shardSelector: WHOLE_RANGE_SELECTOR });
    if (list.metadata?.shardInfo?.selector) return 'server';
  } catch (err) {
    if (err instanceof Error && /shard selector/i.test(err.message)) return 'server';
  }
  try {
    await client.list({ limit: 1, shardSelector: PROBE_SELECTOR });
  } catch (err) {
    if (err instanceof Error && /shard selector/i.test(err.message)) return 'server';
  }
  const version = await new DiscoveryClient(transport).serverVersion();
  const minor = Number.parseInt(version.minor, 10);
  return Number(version.major) > 1 || minor >= 36 ? 'client' : 'labels';
}

/** A replica's shard of the sharded controller, whichever way it shards (see the module comment). */
export class ManagerShard {
  readonly ringName: string;
  readonly identity: string;
  private mode: Exclude<ShardingMode, 'auto'> | undefined;
  private labels: Shard | undefined;
  private range: RangeShard | undefined;
  private readonly lostController = new AbortController();
  /** Aborts when the shard Lease is lost. */
  readonly lost: AbortSignal = this.lostController.signal;
  private readonly scopeListeners = new Set<() => void>();
  private scopeVersion = 0;

  constructor(
    private readonly ctx: ManagerShardContext,
    private readonly info: ResourceInfo,
    private readonly owned: readonly ResourceInfo[],
    ringName: string,
  ) {
    validateRingName(ringName);
    this.ringName = ringName;
    this.identity = ctx.sharding.identity ?? defaultShardIdentity();
    validateShardIdentity(this.identity);
    ctx.cache.scopeKind(info, this.scopeOf('for'));
    for (const kind of owned) ctx.cache.scopeKind(kind, this.scopeOf('owned'));
  }

  /** How this replica shards, once `run` has decided (undefined before). */
  get shardingMode(): Exclude<ShardingMode, 'auto'> | undefined {
    return this.mode;
  }

  /**
   * The labels an object the controller creates for `owner` carries: its owner's shard (labels mode) or its owner's
   * bucket (server and client modes), so it is cached where its owner is.
   */
  labelsFor(owner: KubeObject): Record<string, string> {
    if (this.labels) return this.labels.labelsFor(owner);
    if (this.range) return this.range.labelsFor(owner);
    return {};
  }

  /** The reconciler, gated: a drain handshake (labels), or only objects of active buckets, tracked in flight (ranges). */
  gate(reconciler: Reconciler | ReconcileFunc, forInformers: () => readonly SharedIndexInformer<KubeObject>[]): Reconciler {
    const inner: ReconcileFunc = typeof reconciler === 'function' ? reconciler : (req, ctx) => reconciler.reconcile(req, ctx);
    let drained: Reconciler | undefined;
    return {
      reconcile: async (req, ctx) => {
        if (this.labels) return (drained ??= withDrainHandshake(this.labels, inner, forInformers)).reconcile(req, ctx);
        const key = requestKey(req);
        const obj = forInformers().map((i) => i.getIndexer().getByKey(key)).find((o) => o !== undefined);
        const uid = obj?.metadata?.uid;
        const leave = uid && this.range ? this.range.tryEnter(uid) : undefined;
        if (!leave) return; // not in this shard's part now (or gone): another shard, or nobody, reconciles it
        try {
          return await inner(req, ctx);
        } finally {
          leave();
        }
      },
    };
  }

  /** Admits events of the sharded kind this shard handles: all (labels: the drain predicate is separate), else active buckets only. */
  admits(): Predicate<KubeObject> {
    const ok = (o: KubeObject | undefined): boolean => !this.range || (o?.metadata?.uid !== undefined && this.range.owns(o.metadata.uid));
    return { create: ok, update: (_old, obj) => ok(obj), delete: ok, generic: ok };
  }

  /** Labels mode: the predicate that lets the drain request through whatever the controller's predicates say. */
  drainPredicate(): Predicate<KubeObject> {
    const none = (): boolean => false;
    const pending: Predicate<KubeObject> = { create: none, update: none, delete: none, generic: none };
    return {
      create: (o) => (this.labels ? drainRequested(this.labels) : pending).create!(o),
      update: (o, n) => (this.labels ? drainRequested(this.labels) : pending).update!(o, n),
      delete: (o) => (this.labels ? drainRequested(this.labels) : pending).delete!(o),
      generic: (o) => (this.labels ? drainRequested(this.labels) : pending).generic!(o),
    };
  }

  /** A source that enqueues the cached objects of buckets as they become active (ranges; nothing with labels). */
  activationSource(forInformers: () => readonly SharedIndexInformer<KubeObject>[]): Source {
    return {
      description: `shard activations of ${this.ringName}`,
      start: (sink: RequestSink, signal: AbortSignal) => {
        const off = this.range?.onActivated((buckets) => {
          const set = new Set(buckets);
          for (const informer of forInformers()) {
            for (const obj of informer.getIndexer().list()) {
              const uid = obj.metadata?.uid;
              if (uid && set.has(bucketOfHash(shardHash(uid)))) sink.add({ namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' });
            }
          }
        });
        if (off) signal.addEventListener('abort', off, { once: true });
      },
      hasSynced: () => true,
      whenSynced: () => Promise.resolve(true),
      syncError: () => undefined,
    };
  }

  /**
   * Decides the mode, holds the shard Lease and, once held, runs `lead` (the controllers) until `signal` aborts or
   * the Lease is lost; the Lease is released only after `lead` returned. Resolves true when the Lease was lost.
   */
  async run(signal: AbortSignal, lead: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    const { ctx } = this;
    const wanted = ctx.sharding.mode ?? 'auto';
    this.mode = wanted === 'auto' ? await detectShardingMode(ctx.transport, this.info, ctx.namespace) : wanted;
    shardingMetrics(ctx.registry).mode.set({ ring: this.ringName, mode: this.mode }, 1);
    const timings = { leaseDurationMs: ctx.sharding.leaseDurationMs, renewDeadlineMs: ctx.sharding.renewDeadlineMs, retryPeriodMs: ctx.sharding.retryPeriodMs };
    const common = { transport: ctx.transport, ringName: this.ringName, identity: this.identity, namespace: ctx.leaseNamespace!, logger: ctx.logger, registry: ctx.registry, clock: ctx.clock, ...defined(timings) };
    let member: { run(signal: AbortSignal): Promise<void>; whenHeld(): Promise<void>; lost: AbortSignal };
    if (this.mode === 'labels') {
      member = this.labels = new Shard({ ...common, resource: this.info, controlled: this.owned, ...(ctx.namespace ? { watchNamespace: ctx.namespace } : {}), ...(ctx.sharding.sharder ? { sharder: ctx.sharding.sharder } : {}) });
    } else {
      member = this.range = new RangeShard({ ...common, ...defined({ virtualNodes: ctx.sharding.sharder?.virtualNodes, joinWindowMs: ctx.sharding.joinWindowMs }) });
      this.range.onScopeChange(() => this.scopeChanged());
    }
    this.scopeChanged();
    const uncollect = shardingMetrics(ctx.registry).collectCachedObjects((set) => {
      for (const kind of [this.info, ...this.owned]) {
        const informers = ctx.cache.lookup(kind, undefined, false) ?? ctx.cache.lookup(kind, undefined, true);
        if (informers) set({ ring: this.ringName, shard: this.identity, resource: kind.resource }, informers.reduce((n, i) => n + i.getIndexer().list().length, 0));
      }
    });
    ctx.logger.info('running as a shard', { ring: this.ringName, identity: this.identity, mode: this.mode, how: MODE_TEXT[this.mode] });
    const memberStop = new AbortController();
    const memberRun = member.run(memberStop.signal);
    const leading = AbortSignal.any([signal, member.lost]);
    const held = await Promise.race([member.whenHeld().then(() => true), whenAborted(leading).then(() => false)]);
    if (held && !leading.aborted) await lead(leading);
    const lost = member.lost.aborted && !signal.aborted;
    if (lost) this.lostController.abort(new ShardLostError());
    memberStop.abort();
    await memberRun;
    uncollect();
    return lost;
  }

  /** The selection of the sharded kind (`for`) or an owned kind, following the mode and the shard's part. */
  private scopeOf(role: 'for' | 'owned'): KindScope {
    return {
      current: () => {
        const version = this.scopeVersion;
        if (this.labels) return { labelSelector: this.labels.selector.labelSelector, version };
        if (!this.range) return { version };
        const scope = this.range.scope();
        if (role === 'owned') return { labelSelector: scope.ownedLabelSelector, version };
        return this.mode === 'server' ? { shardSelector: scopeShardSelector(scope), version } : { version };
      },
      onChange: (listener) => {
        this.scopeListeners.add(listener);
        return () => this.scopeListeners.delete(listener);
      },
    };
  }

  private scopeChanged(): void {
    this.scopeVersion++;
    for (const l of this.scopeListeners) l();
  }
}

const MODE_TEXT: Record<Exclude<ShardingMode, 'auto'>, string> = {
  server: 'the apiserver filters by shard selector (KEP-5866); no assignment writes',
  client: 'every object is listed, this replica handles its hash ranges; no assignment writes',
  labels: 'the sharder labels objects with their shard (the server has no shard selectors)',
};

function defined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

/**
 * The shard of the controller `name`, sharding `info` with `owned` following their owners; their informers in
 * `ctx.cache` take the shard's selection from now on.
 */
export function newManagerShard(ctx: ManagerShardContext, name: string, info: ResourceInfo, owned: readonly ResourceInfo[]): ManagerShard {
  if (!ctx.leaseNamespace) throw new TypeError('sharding needs a Lease namespace: set sharding.leaseNamespace (or leaderElectionNamespace) when not running in a cluster');
  joinWindow(ctx.sharding.joinWindowMs, 0); // a bad value fails the build of the controller, not the start
  return new ManagerShard(ctx, info, owned, ctx.sharding.ringName ?? name);
}
