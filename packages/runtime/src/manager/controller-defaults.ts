/**
 * What the builder reads from a manager to make a controller (`Manager.controllerDefaults`): the controller defaults
 * of `ManagerOptions` (`cacheSyncTimeoutMs`, `usePriorityQueue`, `enableWarmup`) and, with `ManagerOptions.sharding`,
 * the one controller the manager shards. Nothing else reads it; a controller made by hand takes these as its own
 * `ControllerOptions`.
 */
import type { ResourceInfo } from '../client/types.js';
import { DEFAULT_CACHE_SYNC_TIMEOUT_MS, type ManagerOptions } from './manager-options.js';
import { newManagerShard, type ManagerShard, type ManagerShardContext } from './manager-sharding.js';

/**
 * The manager's side of a shard: what {@link ManagerShardContext} has but the sharding options, and the Lease
 * namespace to use when `sharding.leaseNamespace` is not set (asked only then).
 */
export type ShardHost = Omit<ManagerShardContext, 'sharding' | 'leaseNamespace'> & { defaultLeaseNamespace(): string | undefined };

/** The controller defaults of one manager and the shard of its sharded controller, once the builder has made it. */
export class ControllerDefaults {
  /** How long a controller waits for its sources before it says so (`ManagerOptions.cacheSyncTimeoutMs`). */
  readonly cacheSyncTimeoutMs: number;
  /** Whether controllers built with this manager use the priority queue (`ManagerOptions.usePriorityQueue`, default true). */
  readonly usePriorityQueue: boolean;
  /** Whether controllers the builder builds warm up before leading (`ManagerOptions.enableWarmup`). */
  readonly enableWarmup: boolean;
  #shard: ManagerShard | undefined;

  constructor(
    private readonly opts: Pick<ManagerOptions, 'cacheSyncTimeoutMs' | 'usePriorityQueue' | 'enableWarmup' | 'sharding'>,
    private readonly host: () => ShardHost,
  ) {
    this.cacheSyncTimeoutMs = opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    this.usePriorityQueue = opts.usePriorityQueue ?? true;
    this.enableWarmup = opts.enableWarmup ?? false;
  }

  /** True when `ManagerOptions.sharding` is set (the builder shards the first controller it builds). */
  get shardingEnabled(): boolean {
    return this.opts.sharding !== undefined;
  }

  /** The shard of the sharded controller, once {@link shardController} has made it; undefined otherwise. */
  get shard(): ManagerShard | undefined {
    return this.#shard;
  }

  /**
   * Called by the builder for a controller with `for(info)`: with sharding on, makes the replica's shard for it
   * (ring name: the controller's, unless set), narrows the cache of `info` and `owned` to the shard's label and
   * returns it; undefined without sharding. A manager shards one controller: a second one is refused.
   */
  shardController(name: string, info: ResourceInfo, owned: readonly ResourceInfo[]): ManagerShard | undefined {
    const sharding = this.opts.sharding;
    if (!sharding) return undefined;
    if (this.#shard) {
      throw new Error(`the manager already shards ${this.#shard.ringName}: a sharded manager runs one sharded controller (${name} would run unsharded on every replica)`);
    }
    const { defaultLeaseNamespace, ...host } = this.host();
    this.#shard = newManagerShard({ ...host, sharding, leaseNamespace: sharding.leaseNamespace ?? defaultLeaseNamespace() }, name, info, owned);
    return this.#shard;
  }
}
