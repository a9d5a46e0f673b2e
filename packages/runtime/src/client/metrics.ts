/**
 * client-go's REST client metrics (`k8s.io/client-go/tools/metrics`, as component-base registers them), recorded by
 * `HttpTransport` for every request it sends to the apiserver:
 * - `rest_client_requests_total{code,method,host}`: one per response, `code` the HTTP status (`"200"`, `"409"`…) or
 *   `"<error>"` when no response came (connection refused, reset, timeout);
 * - `rest_client_request_duration_seconds{verb,host}`: time from sending the request (after the client-side rate
 *   limiter) to the response headers, as client-go measures it; for a watch, until the stream opens.
 * `method`/`verb` are the HTTP method (`GET`, `POST`…), `host` the apiserver's `host:port`.
 *
 * The metric objects are process-wide, like client-go's: they are registered on the runtime's `metricsRegistry`,
 * and a Manager serving another registry adds them to it (`registerRestClientMetrics`).
 */
import { Counter, Histogram, type Registry } from '../metrics/prom.js';
import { metricsRegistry } from '../metrics/registry.js';

export const REST_CLIENT_REQUESTS_TOTAL = 'rest_client_requests_total';
export const REST_CLIENT_REQUEST_DURATION_SECONDS = 'rest_client_request_duration_seconds';
/** client-go's buckets for request latency: 5 ms … 60 s. */
export const REST_CLIENT_DURATION_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

interface RestClientMetrics {
  requests: Counter<'code' | 'method' | 'host'>;
  duration: Histogram<'verb' | 'host'>;
}

let metrics: RestClientMetrics | undefined;
const registries = new WeakSet<Registry>();

function get(): RestClientMetrics {
  if (!metrics) {
    metrics = {
      requests: new Counter({ name: REST_CLIENT_REQUESTS_TOTAL, help: 'Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'method', 'host'] as const, registers: [] }),
      duration: new Histogram({ name: REST_CLIENT_REQUEST_DURATION_SECONDS, help: 'Request latency in seconds. Broken down by verb, and host.', labelNames: ['verb', 'host'] as const, buckets: [...REST_CLIENT_DURATION_BUCKETS], registers: [] }),
    };
    registerRestClientMetrics(metricsRegistry);
  }
  return metrics;
}

/**
 * Adds the REST client metrics to `registry` (once; later calls do nothing). Skipped when the registry already has
 * metrics of these names (e.g. from a second copy of this package).
 */
export function registerRestClientMetrics(registry: Registry): void {
  const m = get();
  if (registries.has(registry)) return;
  registries.add(registry);
  if (registry.getSingleMetric(REST_CLIENT_REQUESTS_TOTAL) === undefined) registry.registerMetric(m.requests);
  if (registry.getSingleMetric(REST_CLIENT_REQUEST_DURATION_SECONDS) === undefined) registry.registerMetric(m.duration);
}

/** Records one request: its status code (undefined when it failed without a response) and its latency. */
export function recordRestRequest(method: string, host: string, code: number | undefined, seconds: number): void {
  const m = get();
  m.requests.inc({ code: code === undefined ? '<error>' : String(code), method, host });
  m.duration.observe({ verb: method, host }, seconds);
}
