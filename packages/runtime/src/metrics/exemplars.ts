/**
 * Trace exemplars of a histogram, kept beside it rather than in prom-client (whose exemplar support needs
 * `enableExemplars`, which changes `observe`'s signature for every caller, and an OpenMetrics registry, whose
 * rendering renames counters for good; docs/tracing.md).
 *
 * Contract:
 * - {@link HistogramExemplars.observe} keeps, per label set and bucket, the last observation made under a sampled
 *   span: its value, its trace and span ids and when (OpenMetrics: an exemplar's value lies in its bucket). The
 *   caller observes the histogram itself as before; only sampled reconciles (tracing on) come here.
 * - {@link exemplarsOf} finds a histogram's exemplars for the OpenMetrics rendering (openmetrics.ts), which prints
 *   them on the buckets; the Prometheus text format never shows them.
 * - Memory: one entry per label set and bucket at most (the label sets are the histogram's own).
 */

/** One exemplar: the observed value, the span it was made under, and when (seconds since the epoch). */
export interface Exemplar {
  value: number;
  traceId: string;
  spanId: string;
  timestamp: number;
}

/** The key of a label set (the bucket's `le` left out): its pairs sorted by name. */
export function labelKey(labels: Readonly<Record<string, string | number | undefined>>): string {
  let key = '';
  for (const name of Object.keys(labels).sort()) {
    if (name === 'le') continue;
    key += `${name}\u0000${String(labels[name])}\u0001`;
  }
  return key;
}

/** The last exemplar per label set and bucket of one histogram (module comment). */
export class HistogramExemplars {
  /** label key → exemplar per bucket (index into the bounds; the last is `+Inf`). */
  private readonly series = new Map<string, (Exemplar | undefined)[]>();

  /** @param bounds the histogram's bucket upper bounds, ascending, without `+Inf`. */
  constructor(private readonly bounds: readonly number[]) {}

  /** Keeps `value` as the exemplar of its bucket for `labels`, made under the span `ids`. */
  observe(labels: Readonly<Record<string, string>>, value: number, ids: { trace_id: string; span_id: string }, nowMs = Date.now()): void {
    const key = labelKey(labels);
    let buckets = this.series.get(key);
    if (!buckets) this.series.set(key, (buckets = new Array<Exemplar | undefined>(this.bounds.length + 1)));
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    buckets[i] = { value, traceId: ids.trace_id, spanId: ids.span_id, timestamp: nowMs / 1000 };
  }

  /** The exemplar of the bucket `le` (`+Inf` or a bound as prom-client prints it) for the label set `key`. */
  get(key: string, le: string | number): Exemplar | undefined {
    const buckets = this.series.get(key);
    if (!buckets) return undefined;
    const i = le === '+Inf' ? this.bounds.length : this.bounds.indexOf(Number(le));
    return i < 0 ? undefined : buckets[i];
  }
}

const byMetric = new WeakMap<object, HistogramExemplars>();

/** The exemplars kept for `histogram` (made on the first call, with its bucket bounds). */
export function exemplarsFor(histogram: object, bounds: readonly number[]): HistogramExemplars {
  let e = byMetric.get(histogram);
  if (!e) byMetric.set(histogram, (e = new HistogramExemplars(bounds)));
  return e;
}

/** The exemplars kept for `metric`, if any. */
export function exemplarsOf(metric: object): HistogramExemplars | undefined {
  return byMetric.get(metric);
}
