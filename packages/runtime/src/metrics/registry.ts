import { Registry } from './prom.js';

/**
 * The process-wide Prometheus registry of the runtime (controller-runtime's `metrics.Registry`).
 *
 * Runtime components register their metrics here unless given another `Registry`; the manager serves it on
 * `/metrics`. Components must tolerate being constructed more than once against the same registry (reuse the
 * existing metric objects instead of registering a duplicate name, which prom-client rejects).
 */
export const metricsRegistry: Registry = new Registry();

/**
 * The metric `name` already registered on `registry`, or the one `make` creates (and registers): how components
 * built more than once against one registry share their metrics instead of failing on a duplicate name.
 */
export function registeredOr<M>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}
