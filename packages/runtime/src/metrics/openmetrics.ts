/**
 * The OpenMetrics 1.0 exposition of a prom-client registry, with the trace exemplars kept in exemplars.ts on the
 * histograms' buckets; and whether a scrape's `Accept` header asks for it.
 *
 * Contract:
 * - Rendered from the registry's values (`getMetricsAsJSON`, default labels included), never through prom-client's
 *   OpenMetrics mode: the registry and its metrics are left as they were, so a text-format scrape after an
 *   OpenMetrics one prints the same names (prom-client renames counters for good when it renders OpenMetrics).
 * - Every sample keeps the name and labels it has in the text format (what Prometheus stores is the same series
 *   either way): a counter named `x_total` is the family `x` (type `counter`) with its sample `x_total`; a counter
 *   whose name does not end in `_total` is typed `unknown` (OpenMetrics would rename its sample otherwise).
 *   Histograms, summaries and gauges keep their type; `_created` samples are not written.
 * - Histogram buckets carry `# {trace_id="…",span_id="…"} <value> <timestamp>` when an exemplar was kept for that
 *   label set and bucket, and the bucket has counted something. The body ends with `# EOF`.
 */
import type { Registry } from './prom.js';
import { exemplarsOf, labelKey } from './exemplars.js';

/** The Content-Type of the OpenMetrics exposition. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/**
 * True when `accept` (a request's `Accept` header) prefers OpenMetrics: an `application/openmetrics-text` entry with
 * a q-value above 0 and at least that of any `text/plain` entry (Prometheus asks for OpenMetrics first, q=1, and
 * the text format at q=0.5).
 */
export function acceptsOpenMetrics(accept: string | undefined): boolean {
  if (!accept) return false;
  let om = 0;
  let text = 0;
  for (const entry of accept.split(',')) {
    const [type = '', ...params] = entry.split(';').map((p) => p.trim());
    let q = 1;
    for (const p of params) if (p.startsWith('q=')) q = Number(p.slice(2)) || 0;
    const t = type.toLowerCase();
    if (t === 'application/openmetrics-text') om = Math.max(om, q);
    else if (t === 'text/plain') text = Math.max(text, q);
  }
  return om > 0 && om >= text;
}

/** OpenMetrics escapes a help text and a label value alike: backslash, line feed, double quote. */
const escape = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** A sample value as OpenMetrics writes it (`NaN`, `+Inf`, `-Inf`, else the number). */
function value(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return String(v);
}

function labelsOf(labels: Readonly<Record<string, string | number | undefined>>): string {
  const parts: string[] = [];
  for (const [name, v] of Object.entries(labels)) if (v !== undefined) parts.push(`${name}="${escape(String(v))}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

/** The registry's metrics in the OpenMetrics text format, histogram buckets with their exemplars (module comment). */
export async function renderOpenMetrics(registry: Registry): Promise<string> {
  const out: string[] = [];
  for (const m of await registry.getMetricsAsJSON()) {
    const metric = registry.getSingleMetric(m.name);
    const exemplars = metric ? exemplarsOf(metric) : undefined;
    let family = m.name;
    let type = String(m.type);
    if (type === 'counter') {
      if (m.name.endsWith('_total')) family = m.name.slice(0, -'_total'.length);
      else type = 'unknown';
    } else if (type !== 'gauge' && type !== 'histogram' && type !== 'summary') {
      type = 'unknown';
    }
    out.push(`# HELP ${family} ${escape(m.help)}`, `# TYPE ${family} ${type}`);
    for (const v of m.values as { value: number; labels: Record<string, string | number>; metricName?: string }[]) {
      let line = `${v.metricName ?? m.name}${labelsOf(v.labels)} ${value(v.value)}`;
      if (exemplars && v.metricName === `${m.name}_bucket` && v.value > 0) {
        const e = exemplars.get(labelKey(v.labels), v.labels['le']!);
        if (e) line += ` # {trace_id="${e.traceId}",span_id="${e.spanId}"} ${value(e.value)} ${e.timestamp.toFixed(3)}`;
      }
      out.push(line);
    }
  }
  out.push('# EOF');
  return `${out.join('\n')}\n`;
}
