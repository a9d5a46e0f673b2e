/**
 * controller-runtime's webhook metrics (`pkg/webhook/internal/metrics`), labelled by the webhook's path:
 * `controller_runtime_webhook_requests_total{code,webhook}` (HTTP status code of the answer),
 * `controller_runtime_webhook_latency_seconds{webhook}` and `controller_runtime_webhook_requests_in_flight{webhook}`.
 */
import { Counter, Gauge, Histogram, type Registry } from '../metrics/prom.js';
import { metricsRegistry, registeredOr } from '../metrics/registry.js';

export const WEBHOOK_REQUESTS_TOTAL = 'controller_runtime_webhook_requests_total';
export const WEBHOOK_LATENCY_SECONDS = 'controller_runtime_webhook_latency_seconds';
export const WEBHOOK_REQUESTS_IN_FLIGHT = 'controller_runtime_webhook_requests_in_flight';

/** The webhook metric objects of one registry. */
export interface WebhookMetrics {
  requests: Counter<'code' | 'webhook'>;
  latency: Histogram<'webhook'>;
  inFlight: Gauge<'webhook'>;
}

const cache = new WeakMap<Registry, WebhookMetrics>();

/** The webhook metrics registered on `registry` (default `metricsRegistry`), created once per registry. */
export function webhookMetrics(registry: Registry = metricsRegistry): WebhookMetrics {
  let m = cache.get(registry);
  if (m) return m;
  const get = <M>(name: string, make: () => M): M => registeredOr(registry, name, make);
  const registers = [registry];
  m = {
    requests: get(WEBHOOK_REQUESTS_TOTAL, () => new Counter({ name: WEBHOOK_REQUESTS_TOTAL, help: 'Total number of admission requests by HTTP status code.', labelNames: ['code', 'webhook'] as const, registers })),
    latency: get(WEBHOOK_LATENCY_SECONDS, () => new Histogram({ name: WEBHOOK_LATENCY_SECONDS, help: 'Histogram of the latency of processing admission requests', labelNames: ['webhook'] as const, registers })),
    inFlight: get(WEBHOOK_REQUESTS_IN_FLIGHT, () => new Gauge({ name: WEBHOOK_REQUESTS_IN_FLIGHT, help: 'Current number of admission requests being served.', labelNames: ['webhook'] as const, registers })),
  };
  cache.set(registry, m);
  return m;
}

/** Webhook paths whose latency histogram series was made, per histogram (prom-client's zero() resets it). */
const zeroedLatency = new WeakMap<Histogram<'webhook'>, Set<string>>();

/**
 * Makes a newly registered webhook's series exist before its first request, as controller-runtime's
 * `InstrumentedHook` does: requests answered 200 and 500 at 0 (so an error-ratio panel or alert has a series to
 * read, and `rate()` sees the first failure), in flight at 0; and, beyond controller-runtime, the latency
 * histogram with every bucket at 0 (once per path), so that `rate()` sees the first requests' latencies.
 */
export function initWebhookMetrics(m: WebhookMetrics, webhook: string): void {
  for (const code of ['200', '500']) m.requests.inc({ webhook, code }, 0);
  m.inFlight.inc({ webhook }, 0);
  let zeroed = zeroedLatency.get(m.latency);
  if (!zeroed) zeroedLatency.set(m.latency, (zeroed = new Set()));
  if (!zeroed.has(webhook)) {
    zeroed.add(webhook);
    m.latency.zero({ webhook });
  }
}
