/**
 * The load harness's view of the controller's own `/metrics`: queue depth now (sum of `workqueue_depth`), and
 * controller-runtime's reconcile series over the run (`controller_runtime_reconcile_total`, `_errors_total`,
 * `_time_seconds` histogram) as p50/p90/p99 and an error rate. An HTTPS URL is scraped without verifying the
 * certificate, with `bearerToken` when given (a secured metrics endpoint).
 */
import http from 'node:http';
import https from 'node:https';
import { histogramBuckets, histogramQuantile, parsePrometheusText, sumOf, type MetricSample } from './prometheus-text.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';

/** Reconcile figures over an interval, from two scrapes. */
export interface ReconcileSummary {
  total: number;
  errors: number;
  errorRate: number;
  /** Seconds; null without observations. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
}


/** Scrapes one `/metrics` URL (module comment). */
export class MetricsReader {
  constructor(
    readonly url: string,
    private readonly bearerToken?: string,
  ) {}

  /** The samples now; undefined when the endpoint does not answer 200. */
  async scrape(): Promise<MetricSample[] | undefined> {
    const text = await this.get().catch(() => undefined);
    return text === undefined ? undefined : parsePrometheusText(text);
  }

  /** The first successful scrape, polling until `timeoutMs` (the controller is starting); undefined if none. */
  async waitForFirstScrape(timeoutMs: number): Promise<MetricSample[] | undefined> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const s = await this.scrape();
      if (s) return s;
      await sleep(realClock, 250);
    }
    return undefined;
  }

  /** Sum of `workqueue_depth` over all queues now; undefined when not scraped or not exported. */
  async queueDepth(): Promise<number | undefined> {
    const s = await this.scrape();
    return s ? sumOf(s, 'workqueue_depth') : undefined;
  }

  /** Reconcile totals, error rate and latency quantiles between scrape `before` and `after`. */
  static reconcileSummary(after: readonly MetricSample[], before: readonly MetricSample[]): ReconcileSummary {
    const delta = (name: string): number => (sumOf(after, name) ?? 0) - (sumOf(before, name) ?? 0);
    const total = delta('controller_runtime_reconcile_total');
    const errors = delta('controller_runtime_reconcile_errors_total');
    const buckets = histogramBuckets(after, 'controller_runtime_reconcile_time_seconds', before);
    const q = (x: number): number | null => histogramQuantile(x, buckets) ?? null;
    return { total, errors, errorRate: total > 0 ? errors / total : 0, p50: q(0.5), p90: q(0.9), p99: q(0.99) };
  }

  private get(): Promise<string> {
    const u = new URL(this.url);
    const lib = u.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.get(
        u,
        // The token only over HTTPS: a plain-HTTP endpoint needs none, and the admin's token must not travel in clear.
        u.protocol === 'https:' ? { timeout: 5000, rejectUnauthorized: false, headers: this.bearerToken ? { Authorization: `Bearer ${this.bearerToken}` } : {} } : { timeout: 5000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`HTTP ${res.statusCode}`))));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
    });
  }
}
