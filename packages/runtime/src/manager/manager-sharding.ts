/**
 * How a `Manager` runs as one shard of a ring (`ManagerOptions.sharding`, docs/sharding.md): the builder asks for
 * the shard of the controller it builds ({@link newManagerShard}), which also narrows the cache of the sharded kind
 * and its owned kinds to the shard's label; `start` then runs the shard ({@link runAsShard}) and the controllers
 * only while the shard Lease is held.
 */
import { whenAborted } from '../abort.js';
import type { ResourceInfo, Transport } from '../client/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Registry } from '../metrics/prom.js';
import { Shard } from '../sharding/shard.js';
import type { ClusterCache } from '../cluster/cluster-cache.js';
import type { ManagerShardingOptions } from './manager-options.js';

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
  /** The manager's namespace, if its cache is limited to one: the sharder then watches that one only. */
  namespace: string | undefined;
  logger: Logger;
  registry: Registry;
  clock: Clock;
}

/**
 * The shard of the controller `name`, sharding `info` with `owned` following their owners; their informers in
 * `ctx.cache` select the shard's label from now on.
 */
export function newManagerShard(ctx: ManagerShardContext, name: string, info: ResourceInfo, owned: readonly ResourceInfo[]): Shard {
  if (!ctx.leaseNamespace) throw new TypeError('sharding needs a Lease namespace: set sharding.leaseNamespace (or leaderElectionNamespace) when not running in a cluster');
  const { ringName, identity, leaseNamespace: _ns, sharder, ...timings } = ctx.sharding;
  const shard = new Shard({
    transport: ctx.transport,
    ringName: ringName ?? name,
    ...(identity !== undefined ? { identity } : {}),
    namespace: ctx.leaseNamespace,
    resource: info,
    controlled: owned,
    ...(ctx.namespace ? { watchNamespace: ctx.namespace } : {}),
    ...(sharder ? { sharder } : {}),
    ...timings,
    logger: ctx.logger,
    registry: ctx.registry,
    clock: ctx.clock,
  });
  for (const kind of [info, ...owned]) ctx.cache.selectKind(kind, shard.selector.labelSelector);
  return shard;
}

/**
 * Holds the shard Lease and, once it is held, runs `lead` (the controllers) until `signal` aborts or the Lease is
 * lost; the Lease is released only after `lead` has returned, i.e. after in-flight reconciles finished, so the
 * sharder moves the objects at once and no other shard reconciles them meanwhile. Resolves true when the Lease was
 * lost (not on a stop through `signal`).
 */
export async function runAsShard(shard: Shard, signal: AbortSignal, lead: (signal: AbortSignal) => Promise<void>, log: Logger): Promise<boolean> {
  const shardStop = new AbortController();
  const shardRun = shard.run(shardStop.signal);
  const leading = AbortSignal.any([signal, shard.lost]);
  log.info('running as a shard', { ring: shard.ringName, identity: shard.identity, lease: shard.leaseName, selector: shard.selector.labelSelector });
  const held = await Promise.race([shard.whenHeld().then(() => true), whenAborted(leading).then(() => false)]);
  if (held && !leading.aborted) await lead(leading);
  const lost = shard.lost.aborted && !signal.aborted;
  shardStop.abort();
  await shardRun;
  return lost;
}
