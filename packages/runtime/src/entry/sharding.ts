/**
 * `@kubegen/runtime/sharding`: sharding: replicas as shards of a consistent-hash ring, objects assigned by label, the
 * drain handshake.
 */
export { defaultShardIdentity, Shard, type ShardOptions } from '../sharding/shard.js';
export { labelShardSelector, type SelectableOptions, type ShardSelector } from '../sharding/shard-selector.js';
export { DEFAULT_LOAD_FACTOR, DEFAULT_VIRTUAL_NODES, HashRing, type HashRingOptions } from '../sharding/ring.js';
export {
  inRanges, rangesOfBuckets, SHARD_BUCKETS, shardHash, shardRangeSelector, type HashRange, type ShardField
} from '../sharding/shard-hash.js';
export { shardLeaseTimings, type ShardLeaseTimings } from '../sharding/shard-lease.js';
export { type SharderTuning } from '../sharding/sharder.js';
export {
  DRAIN_LABEL_PREFIX, DRAIN_LABEL_VALUE, drainLabel, RING_LEASE_LABEL, SHARD_LABEL_PREFIX, sharderLeaseName,
  shardingKey, shardLabel, shardLeaseName, validateRingName, validateShardIdentity
} from '../sharding/labels.js';
