import { Registry } from 'prom-client';

/**
 * The process-wide Prometheus registry of the runtime (controller-runtime's `metrics.Registry`).
 *
 * Runtime components register their metrics here unless given another `Registry`; the manager serves it on
 * `/metrics`. Components must tolerate being constructed more than once against the same registry (reuse the
 * existing metric objects instead of registering a duplicate name, which prom-client rejects).
 */
export const metricsRegistry: Registry = new Registry();
