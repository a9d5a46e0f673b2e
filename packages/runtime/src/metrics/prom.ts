/**
 * prom-client's metric classes, loaded from their own files instead of the package index. The index also loads the
 * cluster aggregator, the Pushgateway and the default process collectors, and with them `node:cluster`,
 * `perf_hooks`, `v8` and their native code: about 9 MB of RSS (6 MB of it pages of the node binary) in a controller
 * that may serve no `/metrics` at all (measured on Node 24: `require('prom-client')` after `http`/`https`/`http2`
 * took RssAnon 17.8 MB / RssFile 49.6 MB, these four files 14.3 / 43.4 MB, nothing 13.8 / 43.1 MB). The process
 * collectors load on demand (`registerDefaultMetrics`, when a metrics server is enabled).
 *
 * The classes are prom-client's own (the index requires these same files), so metrics made here and with
 * `import { Counter } from 'prom-client'` live on the same registries.
 */
import { createRequire } from 'node:module';
import type * as prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry: typeof prom.Registry = (require('prom-client/lib/registry') as typeof prom.Registry);
export type Registry = prom.Registry;
export const Counter: typeof prom.Counter = require('prom-client/lib/counter') as typeof prom.Counter;
export type Counter<T extends string = string> = prom.Counter<T>;
export const Gauge: typeof prom.Gauge = require('prom-client/lib/gauge') as typeof prom.Gauge;
export type Gauge<T extends string = string> = prom.Gauge<T>;
export const Histogram: typeof prom.Histogram = require('prom-client/lib/histogram') as typeof prom.Histogram;
export type Histogram<T extends string = string> = prom.Histogram<T>;
export const exponentialBuckets: typeof prom.exponentialBuckets = (require('prom-client/lib/bucketGenerators') as typeof prom).exponentialBuckets;
export type Metric = prom.Metric;

/** prom-client's `collectDefaultMetrics`, loaded on first use. */
export function collectDefaultMetrics(config: prom.DefaultMetricsCollectorConfiguration<prom.RegistryContentType>): void {
  (require('prom-client/lib/defaultMetrics') as typeof prom.collectDefaultMetrics)(config);
}
