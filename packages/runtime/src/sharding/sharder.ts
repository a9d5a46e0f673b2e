/**
 * `Sharder`: assigns the objects of a sharded kind to the live shards of a ring, by labels. One replica of the ring
 * runs it at a time (the holder of the `<ring>-sharder` Lease; see `Shard`); it is a plain component otherwise.
 *
 * It watches the ring's shard Leases ({@link ShardLeaseTracker}), the sharded kind (metadata only) and the kinds
 * those objects control (metadata only, indexed by controller owner). Every object event, every change of shard
 * states and every controlled-object event queues the owner's key; a worker applies {@link decideAssignment}:
 * - `assign`: the controlled objects get the new shard label first, then the object gets it (drain label dropped),
 *   so the new shard finds the object's dependents in its cache as soon as it sees the object;
 * - `drain`: only the drain label is set; the current shard acknowledges by removing both labels (`Shard.handleDrain`,
 *   between reconciles), which makes the object unassigned and queues it again → `assign` (no reason counted twice);
 * - `keep` / `cancelDrain`: controlled objects are brought to the current shard.
 *
 * Writes are JSON merge patches of `metadata.labels` carrying the `resourceVersion` the decision was made on
 * (optimistic concurrency: a Conflict means the object changed and it is decided again), paced by a token bucket
 * (`writesPerSecond`, `writeBurst`). NotFound is ignored; other errors requeue the key with the queue's backoff.
 */
import { whenAborted } from '../abort.js';
import type { Lease } from '../builtin/types.js';
import { builtinResources } from '../builtin/resources.js';
import { SharedInformerFactory } from '../cache/factory.js';
import { DeletedFinalStateUnknown } from '../cache/keys.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { isConflict, isNotFound } from '../client/errors.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import { type Clock } from '../clock.js';
import { sleep } from '../deadline.js';
import type { Logger } from '../log.js';
import { BucketRateLimiter } from '../workqueue/bucket-rate-limiter.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import type { Registry } from '../metrics/prom.js';
import { decideAssignment, type Assignment } from './assignment.js';
import { drainLabel, DRAIN_LABEL_VALUE, RING_LEASE_LABEL, shardingKey, shardLabel } from './labels.js';
import { ShardLeaseTracker } from './lease-tracker.js';
import { shardingMetrics, type ShardingMetrics } from './metrics.js';
import { HashRing } from './ring.js';

const OWNER_INDEX = 'sharding.kubegen.io/controller-owner';
/** Index of the sharded objects by the shard they are assigned to. */
const SHARD_INDEX = 'sharding.kubegen.io/shard';

/** Tuning of a `Sharder` (the replica that labels objects with their shard); every field optional. */
export interface SharderTuning {
  /** Points per shard on the ring (default 100). */
  virtualNodes?: number;
  /** Worker loops (default 2). */
  workers?: number;
  /** Label writes per second (default 50) and burst (default 100). */
  writesPerSecond?: number;
  writeBurst?: number;
  /** Period of the Lease expiry check (default 1 s). */
  checkIntervalMs?: number;
}

/** Settings of a {@link Sharder}. */
export interface SharderOptions extends SharderTuning {
  transport: Transport;
  ring: string;
  /** Identity of the replica running it (written into the fences of dead shards' Leases). */
  identity: string;
  /** Namespace of the shard Leases. */
  leaseNamespace: string;
  /** The sharded kind. */
  resource: ResourceInfo;
  /** Kinds whose objects follow their controller (an object of `resource`) to its shard. */
  controlled?: readonly ResourceInfo[];
  /** Namespace of the sharded objects; default all namespaces. */
  watchNamespace?: string;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
}

/** Assigns objects to shards while `run` runs (see the module comment). */
export class Sharder {
  private readonly opts: SharderOptions;
  private readonly log: Logger;
  private readonly shardKey: string;
  private readonly drainKey: string;
  private readonly metrics: ShardingMetrics;
  private ring = new HashRing([]);
  /** Keys drained by this sharder whose reassignment must not be counted again. */
  private readonly drained = new Set<string>();

  constructor(opts: SharderOptions) {
    this.opts = opts;
    this.log = opts.logger.child({ component: 'sharder', ring: opts.ring });
    this.shardKey = shardLabel(opts.ring);
    this.drainKey = drainLabel(opts.ring);
    this.metrics = shardingMetrics(opts.registry);
  }

  /** Watches, decides and writes until `signal` aborts; resolves once everything has stopped. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const { opts } = this;
    const factory = new SharedInformerFactory(opts.transport, { informerName: `sharder/${opts.ring}`, logger: opts.logger, clock: opts.clock, ...(opts.registry ? { registry: opts.registry } : {}) });
    const queue = new RateLimitingQueue<string>({ clock: opts.clock });
    const leases = factory.informerFor<Lease>(builtinResources.leases, { namespace: opts.leaseNamespace, labelSelector: `${RING_LEASE_LABEL}=${opts.ring}` });
    const main = factory.metadataInformerFor(opts.resource, {
      namespace: opts.watchNamespace ?? '',
      indexers: { [SHARD_INDEX]: (o) => { const shard = o.metadata?.labels?.[this.shardKey]; return shard ? [shard] : []; } },
    });
    const controlled = (opts.controlled ?? []).map((info) =>
      factory.metadataInformerFor(info, { namespace: opts.watchNamespace ?? '', indexers: { [OWNER_INDEX]: (o) => this.ownerIndex(o) } }),
    );
    const enqueueAll = (): void => {
      for (const key of main.getIndexer().listKeys()) queue.add(key);
    };
    const tracker = new ShardLeaseTracker({
      ring: opts.ring,
      namespace: opts.leaseNamespace,
      transport: opts.transport,
      informer: leases,
      sharderIdentity: opts.identity,
      clock: opts.clock,
      logger: opts.logger,
      ...(opts.checkIntervalMs !== undefined ? { checkIntervalMs: opts.checkIntervalMs } : {}),
      assignedShards: () => main.getIndexer().listIndexFuncValues(SHARD_INDEX),
      onChange: () => {
        this.ring = new HashRing(tracker.liveShards(), opts.virtualNodes !== undefined ? { virtualNodes: opts.virtualNodes } : {});
        this.metrics.liveShards.set({ ring: opts.ring }, this.ring.size);
        enqueueAll();
      },
    });
    const enqueue = (o: KubeObject | DeletedFinalStateUnknown<KubeObject>): void => {
      const obj = o instanceof DeletedFinalStateUnknown ? o.obj : o;
      queue.add(shardingKey(obj));
    };
    main.addEventHandler({ onAdd: enqueue, onUpdate: (_old, o) => enqueue(o), onDelete: enqueue });
    for (const inf of controlled) {
      const toOwner = (o: KubeObject): void => {
        for (const key of this.ownerIndex(o)) queue.add(key);
      };
      inf.addEventHandler({ onAdd: toOwner, onUpdate: (_old, o) => toOwner(o) });
    }
    const removeCollector = this.metrics.collectObjects((set) => {
      const counts = new Map<string, number>();
      for (const shard of main.getIndexer().listIndexFuncValues(SHARD_INDEX)) counts.set(shard, main.getIndexer().indexKeys(SHARD_INDEX, shard).length);
      for (const shard of this.ring.members) if (!counts.has(shard)) counts.set(shard, 0);
      for (const [shard, n] of counts) set({ ring: opts.ring, shard }, n);
    });

    this.log.info('starting sharder', { resource: opts.resource.resource, controlled: (opts.controlled ?? []).map((c) => c.resource) });
    factory.start();
    const trackerRun = tracker.run(signal);
    const bucket = new BucketRateLimiter<string>(opts.writesPerSecond ?? 50, opts.writeBurst ?? 100, opts.clock);
    try {
      await factory.waitForCacheSync({ signal });
      tracker.refresh();
      this.log.info('sharder caches synced', { objects: main.getIndexer().size, liveShards: tracker.liveShards() });
      enqueueAll();
      const worker = async (): Promise<void> => {
        for (;;) {
          const next = await queue.get();
          if (next.shutdown) return;
          try {
            await this.sync(next.item, main, controlled, tracker, bucket, signal);
            queue.forget(next.item);
          } catch (err) {
            if (!signal.aborted) {
              if (isConflict(err)) this.log.debug('object changed while assigning it, deciding again', { object: next.item });
              else this.log.warn('failed to assign object, retrying', { object: next.item, error: err });
              queue.addRateLimited(next.item);
            }
          } finally {
            queue.done(next.item);
          }
        }
      };
      const workers = Array.from({ length: opts.workers ?? 2 }, () => worker());
      await whenAborted(signal);
      queue.shutDown();
      await Promise.all(workers);
    } catch (err) {
      if (!signal.aborted) this.log.error('sharder failed', { error: err });
    } finally {
      queue.shutDown();
      removeCollector();
      this.metrics.liveShards.remove({ ring: opts.ring });
      await trackerRun;
      await factory.shutdown();
      this.log.info('stopped sharder');
    }
  }

  /** Decides and writes for one key of the sharded kind. Rejects to have the key retried. */
  private async sync(
    key: string,
    main: SharedIndexInformer<KubeObject>,
    controlled: SharedIndexInformer<KubeObject>[],
    tracker: ShardLeaseTracker,
    bucket: BucketRateLimiter<string>,
    signal: AbortSignal,
  ): Promise<void> {
    const obj = main.getIndexer().getByKey(key);
    if (obj === undefined) {
      this.drained.delete(key);
      return;
    }
    const labels = obj.metadata?.labels ?? {};
    const decision: Assignment = decideAssignment({
      current: labels[this.shardKey],
      draining: labels[this.drainKey] !== undefined,
      // One hash everywhere: the object's UID, as a KEP-5866 shard selector hashes it.
      desired: this.ring.get(obj.metadata?.uid ?? key),
      stateOf: (id) => tracker.state(id),
    });
    if (decision.action === 'wait') return;
    const write = async (info: ResourceInfo, target: KubeObject, set: Record<string, string | null>): Promise<void> => {
      await sleep(this.opts.clock, bucket.when(key), signal);
      const client = new ResourceClient<KubeObject>(this.opts.transport, info, target.metadata?.namespace);
      try {
        await client.patch(target.metadata?.name ?? '', { type: 'merge', patch: { metadata: { resourceVersion: target.metadata?.resourceVersion, labels: set } } });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    };
    // Dependents first: the shard that gets the object finds them in its cache.
    const uid = obj.metadata?.uid;
    for (const [i, inf] of controlled.entries()) {
      for (const dep of inf.getIndexer().byIndex(OWNER_INDEX, key)) {
        if (uid && !dep.metadata?.ownerReferences?.some((r) => r.controller === true && r.uid === uid)) continue;
        if (dep.metadata?.labels?.[this.shardKey] === decision.owner) continue;
        await write(this.opts.controlled![i]!, dep, { [this.shardKey]: decision.owner });
        this.log.debug('moved controlled object', { object: key, controlled: shardingKey(dep), shard: decision.owner });
      }
    }
    switch (decision.action) {
      case 'keep':
        return;
      case 'cancelDrain':
        await write(this.opts.resource, obj, { [this.drainKey]: null });
        this.drained.delete(key);
        this.log.debug('cancelled drain', { object: key, shard: decision.owner });
        return;
      case 'drain':
        await write(this.opts.resource, obj, { [this.drainKey]: DRAIN_LABEL_VALUE });
        this.metrics.reassignments.inc({ ring: this.opts.ring, reason: 'drain' });
        this.drained.add(key);
        this.log.debug('draining object', { object: key, shard: decision.owner, to: decision.to });
        return;
      case 'assign': {
        await write(this.opts.resource, obj, { [this.shardKey]: decision.owner, [this.drainKey]: null });
        const completesDrain = decision.reason === 'new' && this.drained.delete(key);
        if (!completesDrain) this.metrics.reassignments.inc({ ring: this.opts.ring, reason: decision.reason });
        this.log.debug('assigned object', { object: key, shard: decision.owner, from: decision.from, reason: completesDrain ? 'drain' : decision.reason });
      }
    }
  }

  /** Keys (`namespace/name`) of the objects of the sharded kind that control `obj`. */
  private ownerIndex(obj: KubeObject): string[] {
    const { group, kind } = this.opts.resource;
    const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (!ref || ref.kind !== kind || (ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '') !== group) return [];
    const ns = this.opts.resource.namespaced ? obj.metadata?.namespace : undefined;
    return [ns ? `${ns}/${ref.name}` : ref.name];
  }
}
