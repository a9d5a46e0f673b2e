/** Liveness and readiness endpoints from named checks (controller-runtime `pkg/healthz`). */
export * from './checks.js';
export * from './health-probe-server.js';
