/**
 * `informer_processing_latency_seconds` (client-go 1.36, its buckets): a histogram per informer of the time its
 * handlers take for one notification. Kept here rather than in a prom-client `Histogram`, which validates and
 * hashes the labels of every observation (about 8 µs each: 60 times the cost of handing an event to a handler
 * that does little); a registry serves it as it serves a prom-client histogram.
 */
import type { Clock } from '../clock.js';
import type { Metric, Registry } from '../metrics/prom.js';

/** client-go's buckets of `informer_processing_latency_seconds`. */
export const INFORMER_PROCESSING_LATENCY_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Histogram (client-go 1.36): seconds a handler took for one notification. */
export const INFORMER_PROCESSING_LATENCY_SECONDS = 'informer_processing_latency_seconds';

/**
 * One informer's series: counts per bucket (not cumulative), sum and count, with the labels it is published under
 * and the clock its handlers' notifications are timed on. Made with the informer; published while it runs.
 */
export class InformerLatency {
  readonly counts = new Float64Array(INFORMER_PROCESSING_LATENCY_BUCKETS.length);
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<'name' | 'group' | 'version' | 'resource', string>>,
    private readonly clock: Clock,
  ) {}

  /** The time on the informer's clock, in ms. */
  now(): number {
    return this.clock.now();
  }

  observe(seconds: number): void {
    const bounds = INFORMER_PROCESSING_LATENCY_BUCKETS;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += seconds;
    this.count++;
  }
}

interface Sample {
  labels: Record<string, string>;
  value: number;
  metricName: string;
}

/**
 * The metric a registry serves: what prom-client's `Registry` asks of a metric (`name`, `help`, `type`, `get()`,
 * `reset()`), giving per published series `_bucket{le}` (cumulative, `+Inf` last), `_sum` and `_count`, exactly as a
 * prom-client `Histogram` would.
 */
export class LatencyHistogram {
  readonly name = INFORMER_PROCESSING_LATENCY_SECONDS;
  readonly help = 'Time taken to process events after popping from the queue.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames = ['name', 'group', 'version', 'resource'] as const;
  /** The published series; an informer adds its own when it starts and deletes it when it stops. */
  readonly series = new Set<InformerLatency>();

  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    for (const s of this.series) {
      let cumulative = 0;
      INFORMER_PROCESSING_LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { ...s.labels, le: String(bound) }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const s of this.series) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }

  /** The registry's histogram, registered on first use (one registered by another copy of this module is not shared). */
  static of(registry: Registry): LatencyHistogram {
    const existing = registry.getSingleMetric(INFORMER_PROCESSING_LATENCY_SECONDS);
    if (existing instanceof LatencyHistogram) return existing;
    const h = new LatencyHistogram();
    if (existing === undefined) registry.registerMetric(h as unknown as Metric);
    return h;
  }
}
