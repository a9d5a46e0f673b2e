/**
 * `@kubegen/runtime/metrics`: metrics and health endpoints (controller-runtime `pkg/metrics`, `pkg/metrics/server`,
 * `pkg/metrics/filters`, `pkg/healthz`): the metrics server, the authenticating scrape filter, health probes, the REST
 * client's metrics.
 */
export { registerRestClientMetrics } from '../client/metrics.js';
export { DEFAULT_METRICS_BIND_ADDRESS, METRICS_PATH, MetricsServer } from '../metrics/server/server.js';
export type { MetricsServerOptions } from '../metrics/server/server.js';
export { bearerToken, withAuthenticationAndAuthorization } from '../metrics/server/auth-filter.js';
export type {
  AuthFilterOptions, MetricsFilter, MetricsFilterResult, ReviewedUser
} from '../metrics/server/auth-filter.js';
export { HealthCheckSet, ping } from '../healthz/checks.js';
export type { HealthChecker } from '../healthz/checks.js';
export { HealthProbeServer } from '../healthz/health-probe-server.js';
export type { HealthProbeServerOptions } from '../healthz/health-probe-server.js';
