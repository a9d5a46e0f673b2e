/**
 * The Node.js process and runtime collectors (prom-client `collectDefaultMetrics`: `process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, `nodejs_gc_duration_seconds`, event loop lag, ...),
 * the counterpart of the Go and process collectors controller-runtime registers.
 */
import { collectDefaultMetrics, type Registry } from './prom.js';
import { metricsRegistry } from './registry.js';

const registered = new WeakSet<Registry>();

/** Registers the default collectors on `registry` once; later calls for the same registry do nothing. */
export function registerDefaultMetrics(registry: Registry = metricsRegistry): void {
  if (registered.has(registry)) return;
  registered.add(registry);
  // Another copy of this module (or the user) may have registered them already: prom-client throws on duplicates.
  if (registry.getSingleMetric('process_cpu_user_seconds_total') !== undefined) return;
  collectDefaultMetrics({ register: registry });
}
