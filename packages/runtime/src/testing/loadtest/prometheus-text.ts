/**
 * Reading a controller's `/metrics` (Prometheus text format 0.0.4) for the load harness: samples, sums of a family
 * across label sets, and `histogram_quantile` over the cumulative buckets of a histogram.
 */

/** One sample line: metric name, labels and value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition (comments and malformed lines are skipped). */
export function parsePrometheusText(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line.trim());
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const raw = m[3]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** Sum of every sample named `name` (over all label sets); undefined when there is none. */
export function sumOf(samples: readonly MetricSample[], name: string): number | undefined {
  let found = false;
  let sum = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    found = true;
    sum += s.value;
  }
  return found ? sum : undefined;
}

/**
 * The cumulative buckets of histogram `name` summed over all other labels, as `[le, count]` sorted by `le`;
 * `minus` (an earlier scrape) is subtracted bucket by bucket, to get the histogram of an interval.
 */
export function histogramBuckets(samples: readonly MetricSample[], name: string, minus: readonly MetricSample[] = []): [number, number][] {
  const add = (into: Map<number, number>, from: readonly MetricSample[], sign: number): void => {
    for (const s of from) {
      if (s.name !== `${name}_bucket` || s.labels['le'] === undefined) continue;
      const le = s.labels['le'] === '+Inf' ? Infinity : Number(s.labels['le']);
      into.set(le, (into.get(le) ?? 0) + sign * s.value);
    }
  };
  const buckets = new Map<number, number>();
  add(buckets, samples, 1);
  add(buckets, minus, -1);
  return [...buckets.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * Prometheus's `histogram_quantile(q, ...)` over cumulative buckets: linear interpolation inside the bucket the
 * rank falls in; the highest finite bound when it falls in `+Inf`. Undefined when there are no observations.
 */
export function histogramQuantile(q: number, buckets: readonly [number, number][]): number | undefined {
  const total = buckets.find(([le]) => le === Infinity)?.[1] ?? buckets.at(-1)?.[1] ?? 0;
  if (!(total > 0)) return undefined;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Infinity) return prevLe;
      if (count === prevCount) return le;
      return prevLe + ((le - prevLe) * (rank - prevCount)) / (count - prevCount);
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}
