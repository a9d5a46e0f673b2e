/**
 * `Shard`: what one replica of a sharded controller uses (the reference design is timebertt/kubernetes-controller-
 * sharding, without its separate sharder component).
 *
 * Each replica is a shard of a ring: it holds its own Lease ({@link ShardLease}), and the replica that also holds the
 * `<ring>-sharder` Lease runs the {@link Sharder}, which labels every object of the sharded kind with the shard the
 * consistent-hash ring picks among live shards (`shard.kubegen.io/<ring>=<identity>`), and the objects it controls
 * with their owner's shard. A replica's informers select only its label ({@link Shard.selector}), so it caches and
 * reconciles only its objects. Moving an object off a live shard goes through the drain handshake: the sharder sets
 * `drain.shard.kubegen.io/<ring>`, the shard's reconcile worker acknowledges between reconciles by removing both
 * labels ({@link Shard.handleDrain}), only then does the sharder assign the object to its new shard. A shard whose
 * Lease lapses (killed, partitioned) loses its objects without a handshake once the sharder fenced its Lease.
 *
 * Wiring (see docs/sharding.md): give `shard.selector.apply(...)` to the informers of the sharded kind and of the
 * controlled kinds; put `shard.labelsFor(owner)` on objects the controller creates; in the worker, call
 * `await shard.handleDrain(obj)` before reconciling and skip when it returns true; start reconciling after
 * `whenHeld()`, stop when `lost` aborts; stop the controller before aborting `run`'s signal.
 */
import os from 'node:os';
import type { Registry } from '../metrics/prom.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { isConflict, isNotFound } from '../client/errors.js';
import { ResourceClient } from '../client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import { realClock, type Clock } from '../clock.js';
import { LeaderElector } from '../leaderelection/leader-elector.js';
import { getLogger, type Logger } from '../log.js';
import { drainLabel, sharderLeaseName, shardLabel, validateRingName, validateShardIdentity } from './labels.js';
import { shardingMetrics } from './metrics.js';
import { Sharder, type SharderTuning } from './sharder.js';
import { ShardLease, shardLeaseTimings, type ShardLeaseTimings } from './shard-lease.js';
import { labelShardSelector, type ShardSelector } from './shard-selector.js';

/** Settings of a {@link Shard}. Timings default to leader election's (15 s lease, 10 s renew deadline, 2 s retry). */
export interface ShardOptions extends ShardLeaseTimings {
  transport: Transport;
  /** Name of the ring (the sharded controller): an RFC 1123 label, e.g. `sample-controller`. */
  ringName: string;
  /** This replica's identity, a label value unique in the ring and stable across restarts. Default {@link defaultShardIdentity}. */
  identity?: string;
  /** Namespace of the shard Leases and the sharder Lease. */
  namespace: string;
  /** The sharded kind (the controller's `For`). */
  resource: ResourceInfo;
  /** Kinds whose objects follow their controller (an object of `resource`) to its shard (the controller's `Owns`). */
  controlled?: readonly ResourceInfo[];
  /** Namespace of the sharded objects the sharder watches; default all namespaces. */
  watchNamespace?: string;
  /** Sharder tuning: ring points per shard (100), workers (2), label writes per second (50) and burst (100), Lease check period (1 s). */
  sharder?: SharderTuning;
  /** Called once if the shard Lease is lost (not on a graceful stop): stop reconciling at once. */
  onLost?: () => void;
  logger?: Logger;
  /** Registry of the sharding and leader-election metrics (default the runtime's `metricsRegistry`). */
  registry?: Registry;
  clock?: Clock;
}

/**
 * A shard identity that is stable across restarts: `$POD_NAME` when set (a StatefulSet's or Deployment's pod), else
 * the host name (a pod's host name is its name), lower-cased, with characters a label value cannot hold replaced by
 * `-` and cut to 63 characters. Replicas on one host need explicit identities.
 */
export function defaultShardIdentity(): string {
  const raw = process.env['POD_NAME'] || os.hostname();
  const id = raw.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').slice(0, 63).replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return id || 'shard';
}

/** One replica's membership in a ring (see the module comment). Construct, then `run(signal)`. */
export class Shard {
  readonly ringName: string;
  readonly identity: string;
  /** Namespace of the Leases. */
  readonly namespace: string;
  /** Selects this shard's objects: give `selector.apply(opts)` to the informers of the sharded and controlled kinds. */
  readonly selector: ShardSelector;
  /** `shard.kubegen.io/<ring>` and `drain.shard.kubegen.io/<ring>`. */
  readonly shardLabel: string;
  readonly drainLabel: string;
  /** Aborts when the shard Lease is lost (renew deadline missed); never on a graceful stop. */
  readonly lost: AbortSignal;
  private readonly opts: ShardOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly lostController = new AbortController();
  private readonly lease: ShardLease;
  private sharderElector: LeaderElector | undefined;
  private heldResolve!: () => void;
  private readonly held: Promise<void>;

  constructor(opts: ShardOptions) {
    validateRingName(opts.ringName);
    const identity = opts.identity ?? defaultShardIdentity();
    validateShardIdentity(identity);
    if (!opts.namespace) throw new TypeError('sharding needs the namespace of its Leases');
    shardLeaseTimings(opts);
    this.opts = opts;
    this.ringName = opts.ringName;
    this.identity = identity;
    this.namespace = opts.namespace;
    this.selector = labelShardSelector(opts.ringName, identity);
    this.shardLabel = shardLabel(opts.ringName);
    this.drainLabel = drainLabel(opts.ringName);
    this.lost = this.lostController.signal;
    this.clock = opts.clock ?? realClock;
    this.log = (opts.logger ?? getLogger()).child({ component: 'shard', ring: opts.ringName, shard: identity });
    this.lease = new ShardLease({ ...this.timings(), transport: opts.transport, ring: opts.ringName, identity, namespace: opts.namespace, clock: this.clock, logger: this.log, ...(opts.registry ? { registry: opts.registry } : {}) });
    this.held = new Promise((resolve) => (this.heldResolve = resolve));
  }

  /** Name of this shard's Lease (`<ring>-shard-<identity>`). */
  get leaseName(): string {
    return this.lease.name;
  }

  /** True while this shard holds its Lease. */
  isHeld(): boolean {
    return this.lease.isHeld();
  }

  /** True while this replica runs the ring's sharder. */
  isSharder(): boolean {
    return this.sharderElector?.isLeader() ?? false;
  }

  /** Resolves once the shard Lease was first acquired: start reconciling then, not before. */
  whenHeld(): Promise<void> {
    return this.held;
  }

  /**
   * The labels an object the controller creates for `owner` (an object of the sharded kind in this shard's cache)
   * must carry to land in the owner's shard's cache at once: `{ 'shard.kubegen.io/<ring>': <owner's shard> }`.
   */
  labelsFor(owner: KubeObject): Record<string, string> {
    return { [this.shardLabel]: owner.metadata?.labels?.[this.shardLabel] || this.identity };
  }

  /**
   * Call from the reconcile worker with the cached object of a key before reconciling it; skip the reconcile when
   * it resolves true. True when the object is not assigned to this shard, or when the sharder asked this shard to
   * let go of it (drain label): then the drain is acknowledged by removing the shard and drain labels, at the
   * object's resourceVersion (after a Conflict the object is read again and decided again, at most 3 times).
   * Acknowledging from the worker guarantees that no reconcile of the key is in flight in this process when the
   * object leaves. False: the object is this shard's, reconcile it. Rejects on API errors (retry the key later).
   */
  async handleDrain(obj: KubeObject, signal?: AbortSignal): Promise<boolean> {
    let current: KubeObject = obj;
    const client = new ResourceClient<KubeObject>(this.opts.transport, this.opts.resource, obj.metadata?.namespace);
    const name = obj.metadata?.name ?? '';
    for (let attempt = 1; ; attempt++) {
      const labels = current.metadata?.labels ?? {};
      if (labels[this.shardLabel] !== this.identity) return true;
      if (labels[this.drainLabel] === undefined) return false;
      try {
        await client.patch(name, { type: 'merge', patch: { metadata: { resourceVersion: current.metadata?.resourceVersion, labels: { [this.shardLabel]: null, [this.drainLabel]: null } } } }, signal ? { signal } : {});
        this.log.info('acknowledged drain', { object: `${current.metadata?.namespace ? `${current.metadata.namespace}/` : ''}${name}` });
        return true;
      } catch (err) {
        if (isNotFound(err)) return true;
        if (!isConflict(err) || attempt >= 3) throw err;
      }
      try {
        current = await client.get(name, signal ? { signal } : {});
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    }
  }

  /**
   * Reports the size of `informer`'s cache as `kubegen_shard_cached_objects{ring,shard,resource}` (default
   * `resource`: the sharded kind's plural). Returns a function that stops reporting it.
   */
  observeCache<T extends KubeObject>(informer: SharedIndexInformer<T>, resource: string = this.opts.resource.resource): () => void {
    return shardingMetrics(this.opts.registry).collectCachedObjects((set) =>
      set({ ring: this.ringName, shard: this.identity, resource }, informer.getIndexer().size),
    );
  }

  /**
   * Holds the shard Lease and, while holding it, campaigns for the `<ring>-sharder` Lease and runs the sharder while
   * leading it. Resolves after `signal` aborted (or the Lease was lost) and everything wound down; never rejects.
   * Abort `signal` only after the controller stopped reconciling: the shard Lease is released on the way out and the
   * sharder moves this shard's objects to others at once.
   */
  async run(signal: AbortSignal): Promise<void> {
    const timings = this.timings();
    await this.lease.run(signal, async (held) => {
      this.log.info('shard lease acquired');
      this.heldResolve();
      held.addEventListener('abort', () => {
        if (signal.aborted) return;
        this.log.error('shard lease lost: stop reconciling');
        this.lostController.abort(new Error(`shard ${this.identity} of ring ${this.ringName} lost its Lease`));
        try {
          this.opts.onLost?.();
        } catch (err) {
          this.log.error('onLost callback threw', { error: err });
        }
      }, { once: true });
      this.sharderElector = new LeaderElector({
        transport: this.opts.transport,
        namespace: this.namespace,
        name: sharderLeaseName(this.ringName),
        identity: this.identity,
        ...timings,
        releaseOnCancel: true,
        clock: this.clock,
        logger: this.log.child({ component: 'sharder-election' }),
        ...(this.opts.registry ? { registry: this.opts.registry } : {}),
        onStartedLeading: (leading) => this.newSharder().run(leading),
      });
      await this.sharderElector.run(held);
    });
  }

  private newSharder(): Sharder {
    const o = this.opts;
    return new Sharder({
      ...o.sharder,
      transport: o.transport,
      ring: this.ringName,
      identity: this.identity,
      leaseNamespace: this.namespace,
      resource: o.resource,
      ...(o.controlled ? { controlled: o.controlled } : {}),
      ...(o.watchNamespace ? { watchNamespace: o.watchNamespace } : {}),
      clock: this.clock,
      logger: this.log,
      ...(o.registry ? { registry: o.registry } : {}),
    });
  }

  private timings(): Required<ShardLeaseTimings> {
    return shardLeaseTimings(this.opts);
  }
}
