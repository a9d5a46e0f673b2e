/**
 * `@kubegen/runtime/metrics`: metrics and health endpoints (controller-runtime `pkg/metrics`, `pkg/metrics/server`,
 * `pkg/metrics/filters`, `pkg/healthz`): the metrics server, the authenticating scrape filter, health probes, the REST
 * client's metrics.
 */
export { registerRestClientMetrics } from '../client/metrics.js';
export {
  DEFAULT_METRICS_BIND_ADDRESS, METRICS_PATH, MetricsServer, type MetricsServerOptions
} from '../metrics/server/server.js';
export {
  bearerToken, withAuthenticationAndAuthorization, type AuthFilterOptions, type MetricsFilter,
  type MetricsFilterResult, type ReviewedUser
} from '../metrics/server/auth-filter.js';
export { HealthCheckSet, ping, type HealthChecker } from '../healthz/checks.js';
export { HealthProbeServer, type HealthProbeServerOptions } from '../healthz/health-probe-server.js';
