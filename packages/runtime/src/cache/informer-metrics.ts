/**
 * Per-informer metrics: client-go 1.36's (`k8s.io/component-base/metrics/prometheus/clientgo/fifo`, KEP-4346), with
 * its names, labels and buckets, plus kubegen's silent-watch series:
 *
 * | metric | type | what |
 * |---|---|---|
 * | `informer_queued_items` | gauge | notifications waiting in the informer's handler buffers (client-go: its FIFO) |
 * | `informer_processing_latency_seconds` | histogram | time a handler took for one notification (until its promise settled) |
 * | `informer_store_resource_version` | gauge | the 15 least significant digits of the resourceVersion the store applied last |
 * | `kubegen_informer_watch_stalled` | gauge | 1 while the informer's watch has been silent past its deadline, else 0 |
 * | `kubegen_informer_watch_stalls_total` | counter | watches stopped for silence |
 *
 * Labels: `name` (the informer's name), `group`, `version`, `resource`. The gauges are read from the informers when
 * the registry is collected (a scrape), so a watch event costs nothing here; only the latency is observed per
 * notification (into a histogram of its own, informer-latency.ts). As client-go's `InformerName`, one label set is one informer: an informer registered while another
 * of the same name and resource runs on the same registry publishes nothing (logged), and a stopped informer's
 * series go away (client-go's `Release`), so informers that come and go (released holds) leave no stale series.
 */
import type { Logger } from '../log.js';
import { Counter, Gauge, type Registry } from '../metrics/prom.js';
import { registeredOr } from '../metrics/registry.js';
import { LatencyHistogram, type InformerLatency } from './informer-latency.js';

export { INFORMER_PROCESSING_LATENCY_BUCKETS, INFORMER_PROCESSING_LATENCY_SECONDS, InformerLatency } from './informer-latency.js';

/** Gauge (client-go 1.36): notifications waiting in an informer's handler buffers. */
export const INFORMER_QUEUED_ITEMS = 'informer_queued_items';
/** Gauge (client-go 1.36): the 15 least significant digits of the resourceVersion an informer's store applied last. */
export const INFORMER_STORE_RESOURCE_VERSION = 'informer_store_resource_version';
/** Gauge (kubegen): 1 while an informer's watch has been silent past its deadline, else 0. */
export const INFORMER_WATCH_STALLED = 'kubegen_informer_watch_stalled';
/** Counter (kubegen): watches of an informer stopped for delivering nothing past their deadline. */
export const INFORMER_WATCH_STALLS_TOTAL = 'kubegen_informer_watch_stalls_total';

type Label = 'name' | 'group' | 'version' | 'resource';

/** An informer's identity in its metrics (client-go's `InformerNameAndResource`): the label values. */
export type InformerMetricLabels = Record<Label, string>;

/** What the scrape-time gauges read from a live informer. */
export interface InformerMetricsSource {
  /** Notifications pushed to handlers and not handled yet. */
  queuedItems(): number;
  /** The resourceVersion the store applied last (`''` before the first list). */
  storeResourceVersion(): string;
  /** True while the watch has been silent past its deadline. */
  watchStalled(): boolean;
}

/** An informer's hold on its series; every method does nothing once released. */
export interface InformerMetricsHandle {
  /** A watch was stopped for silence. */
  countStall(): void;
  /** Drops the informer's series and frees its label set (client-go's `InformerName.Release`). */
  release(): void;
}

interface RegistryMetrics {
  readonly live: Map<string, { labels: InformerMetricLabels; source: InformerMetricsSource }>;
  readonly latency: LatencyHistogram;
  readonly stalls: Counter<Label>;
}

const perRegistry = new WeakMap<Registry, RegistryMetrics>();

/** `informer_store_resource_version`'s value: the last 15 digits (exact in a float64), as client-go; NaN when not a number. */
export function storeResourceVersionValue(rv: string): number {
  if (rv === '') return 0;
  const digits = rv.length > 15 ? rv.slice(-15) : rv;
  return /^\d+$/.test(digits) ? Number(digits) : NaN;
}

/** A gauge whose value per informer is read from the live informers at collection time. */
function scrapeGauge(registry: Registry, name: string, help: string, live: RegistryMetrics['live'], read: (s: InformerMetricsSource) => number): void {
  registeredOr(registry, name, () =>
    new Gauge<Label>({
      name,
      help,
      labelNames: ['name', 'group', 'version', 'resource'],
      registers: [registry],
      collect(this: Gauge<Label>) {
        this.reset();
        for (const { labels, source } of live.values()) {
          const v = read(source);
          if (!Number.isNaN(v)) this.set(labels, v);
        }
      },
    }),
  );
}

function metricsOf(registry: Registry): RegistryMetrics {
  let m = perRegistry.get(registry);
  if (m) return m;
  const live: RegistryMetrics['live'] = new Map();
  const labelNames = ['name', 'group', 'version', 'resource'] as const;
  const registers = [registry];
  scrapeGauge(registry, INFORMER_QUEUED_ITEMS, 'Number of items currently queued in the FIFO.', live, (s) => s.queuedItems());
  scrapeGauge(registry, INFORMER_STORE_RESOURCE_VERSION, 'The 15 least significant digits of the resource version of the store.', live, (s) => storeResourceVersionValue(s.storeResourceVersion()));
  scrapeGauge(registry, INFORMER_WATCH_STALLED, 'Whether the watch of an informer has delivered nothing (no event, no bookmark) past its deadline: 1 stalled, 0 healthy', live, (s) => (s.watchStalled() ? 1 : 0));
  m = {
    live,
    latency: LatencyHistogram.of(registry),
    stalls: registeredOr(registry, INFORMER_WATCH_STALLS_TOTAL, () =>
      new Counter<Label>({ name: INFORMER_WATCH_STALLS_TOTAL, help: 'Watches of an informer stopped because they delivered nothing (no event, no bookmark) past their deadline', labelNames, registers })),
  };
  perRegistry.set(registry, m);
  return m;
}

/**
 * Publishes an informer's series on `registry` under `latency.labels` (see the module comment): `latency` (which its
 * handlers observe into) and, at each scrape, what `source` says. Undefined, with a warning, when a live informer
 * already holds these labels there (client-go: "Duplicate informer registration - metrics will not be published").
 */
export function registerInformerMetrics(registry: Registry, latency: InformerLatency, source: InformerMetricsSource, log: Logger): InformerMetricsHandle | undefined {
  const m = metricsOf(registry);
  const labels = latency.labels;
  const key = `${labels.name}\u0000${labels.group}\u0000${labels.version}\u0000${labels.resource}`;
  if (m.live.has(key)) {
    log.warn('duplicate informer registration: metrics will not be published', { ...labels });
    return undefined;
  }
  m.live.set(key, { labels, source });
  // The histogram and the counter exist, at 0, from the start: rate() sees the first observations, panels show 0.
  m.latency.series.add(latency);
  m.stalls.inc(labels, 0);
  const stalls = m.stalls.labels(labels);
  let released = false;
  return {
    countStall: () => {
      if (!released) stalls.inc();
    },
    release: () => {
      if (released) return;
      released = true;
      m.live.delete(key);
      m.latency.series.delete(latency);
      m.stalls.remove(labels);
    },
  };
}
