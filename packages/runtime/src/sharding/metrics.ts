/**
 * Sharding metrics, registered once per registry and shared by every ring (each writes its own `ring` label):
 *
 * - `kubegen_shard_objects{ring,shard}` (gauge, sharder only): objects of the sharded kind assigned to each shard,
 *   counted from the sharder's cache when scraped; no series while this replica does not run the sharder.
 * - `kubegen_shard_reassignments_total{ring,reason}` (counter, sharder only): assignments the sharder made;
 *   `reason` is `new` (an unassigned object), `dead` (moved off a shard whose Lease lapsed or was released) or
 *   `drain` (a live shard was asked to let go because the ring changed).
 * - `kubegen_shard_live_shards{ring}` (gauge, sharder only): shards the sharder considers live.
 * - `kubegen_shard_cached_objects{ring,shard,resource}` (gauge, every shard): objects in this shard's informer
 *   caches that `Shard.observeCache` was given (a sharded manager: its sharded and owned kinds), counted when scraped —
 *   what this replica actually holds.
 */
import { Counter, Gauge, type Registry } from '../metrics/prom.js';
import { metricsRegistry, registeredOr } from '../metrics/registry.js';

export const SHARD_OBJECTS = 'kubegen_shard_objects';
export const SHARD_REASSIGNMENTS_TOTAL = 'kubegen_shard_reassignments_total';
export const SHARD_LIVE_SHARDS = 'kubegen_shard_live_shards';
export const SHARD_CACHED_OBJECTS = 'kubegen_shard_cached_objects';
export const SHARD_BUCKETS_METRIC = 'kubegen_shard_buckets';
export const SHARD_MODE = 'kubegen_shard_mode';

/** Why the sharder assigned an object (the `reason` label of `kubegen_shard_reassignments_total`). */
export type ReassignmentReason = 'new' | 'dead' | 'drain';

/** Adds one labelled value to a collected gauge. */
export type GaugeSink<L extends string> = (labels: Partial<Record<L, string>>, value: number) => void;
/** Writes current values when the gauge is scraped. */
export type GaugeCollector<L extends string> = (set: GaugeSink<L>) => void;

/** The sharding metrics of one registry. */
export interface ShardingMetrics {
  reassignments: Counter<'ring' | 'reason'>;
  liveShards: Gauge<'ring'>;
  /** Registers a collector of `kubegen_shard_objects`; call the returned function to remove it. */
  collectObjects(collector: GaugeCollector<'ring' | 'shard'>): () => void;
  /** Registers a collector of `kubegen_shard_cached_objects`; call the returned function to remove it. */
  collectCachedObjects(collector: GaugeCollector<'ring' | 'shard' | 'resource'>): () => void;
  /** Registers a collector of `kubegen_shard_buckets{state=desired|active}`; call the returned function to remove it. */
  collectBuckets(collector: GaugeCollector<'ring' | 'shard' | 'state'>): () => void;
  /** 1 for the way this replica shards (`server`, `client` or `labels`). */
  mode: Gauge<'ring' | 'mode'>;
}

const cache = new WeakMap<Registry, ShardingMetrics>();

/** The shared sharding metrics of `registry` (default the runtime's `metricsRegistry`). */
export function shardingMetrics(registry: Registry = metricsRegistry): ShardingMetrics {
  let m = cache.get(registry);
  if (m) return m;
  const registers = [registry];
  const objects = collectedGauge(registry, SHARD_OBJECTS, 'Objects of the sharded kind assigned to each shard, as the sharder sees them', ['ring', 'shard'] as const);
  const cached = collectedGauge(registry, SHARD_CACHED_OBJECTS, 'Objects in the informer caches of this shard, per resource', ['ring', 'shard', 'resource'] as const);
  const buckets = collectedGauge(registry, SHARD_BUCKETS_METRIC, 'Hash buckets of the ring (of 256) this shard is given (desired) and reconciles (active)', ['ring', 'shard', 'state'] as const);
  m = {
    reassignments: registeredOr(registry, SHARD_REASSIGNMENTS_TOTAL, () =>
      new Counter({ name: SHARD_REASSIGNMENTS_TOTAL, help: 'Assignments of objects to shards made by the sharder, by reason (new, dead, drain)', labelNames: ['ring', 'reason'] as const, registers })),
    liveShards: registeredOr(registry, SHARD_LIVE_SHARDS, () =>
      new Gauge({ name: SHARD_LIVE_SHARDS, help: 'Shards of the ring whose Lease the sharder considers held', labelNames: ['ring'] as const, registers })),
    collectObjects: (c) => add(objects, c),
    collectCachedObjects: (c) => add(cached, c),
    collectBuckets: (c) => add(buckets, c),
    mode: registeredOr(registry, SHARD_MODE, () =>
      new Gauge({ name: SHARD_MODE, help: 'How this replica shards its controller: server (KEP-5866 shard selectors), client (the same ranges filtered here) or labels (the sharder labels objects)', labelNames: ['ring', 'mode'] as const, registers })),
  };
  cache.set(registry, m);
  return m;
}

const collectors = new WeakMap<object, Set<GaugeCollector<string>>>();

/** A gauge whose values are written by its registered collectors at scrape time (and only then). */
function collectedGauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return registeredOr(registry, name, () => {
    const set = new Set<GaugeCollector<string>>();
    const gauge: Gauge<L> = new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        gauge.reset();
        for (const c of set) c((labels, value) => gauge.set(labels as Partial<Record<L, string>>, value));
      },
    });
    collectors.set(gauge, set);
    return gauge;
  });
}

function add<L extends string>(gauge: Gauge<L>, collector: GaugeCollector<L>): () => void {
  const set = collectors.get(gauge);
  if (!set) return () => undefined;
  set.add(collector as GaugeCollector<string>);
  return () => set.delete(collector as GaugeCollector<string>);
}
