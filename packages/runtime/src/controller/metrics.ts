/**
 * controller-runtime's reconcile metrics (`pkg/internal/controller/metrics`), registered once per registry and
 * shared by every controller (each controller writes its own `controller` label).
 */
import { Counter, Gauge, Histogram, type Registry } from '../metrics/prom.js';
import { exemplarsFor, type HistogramExemplars } from '../metrics/exemplars.js';
import { metricsRegistry, registeredOr } from '../metrics/registry.js';

export const RECONCILE_TOTAL = 'controller_runtime_reconcile_total';
export const RECONCILE_ERRORS_TOTAL = 'controller_runtime_reconcile_errors_total';
export const TERMINAL_RECONCILE_ERRORS_TOTAL = 'controller_runtime_terminal_reconcile_errors_total';
export const RECONCILE_PANICS_TOTAL = 'controller_runtime_reconcile_panics_total';
export const RECONCILE_TIME_SECONDS = 'controller_runtime_reconcile_time_seconds';
export const MAX_CONCURRENT_RECONCILES = 'controller_runtime_max_concurrent_reconciles';
export const ACTIVE_WORKERS = 'controller_runtime_active_workers';
export const RECONCILE_TIMEOUTS_TOTAL = 'controller_runtime_reconcile_timeouts_total';
/** kubegen's own: 1 when a controller's source (an informer of a kind it watches) has synced, else 0. */
export const SOURCE_SYNCED = 'kubegen_controller_source_synced';
/** kubegen's own: 1 while the kind of a controller's source is served and watched, 0 while it waits for it. */
export const SOURCE_KIND_SERVED = 'kubegen_source_kind_served';

/** controller-runtime's buckets: 5 ms … 60 s. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** The `result` label of `controller_runtime_reconcile_total`, as in controller-runtime. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/** controller-runtime's `controller_runtime_*` metrics as prom-client objects, one shared set per registry. */
export interface ControllerMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  terminalErrors: Counter<'controller'>;
  panics: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  /** The trace exemplars of `reconcileTime` (sampled reconciles only; shown by OpenMetrics scrapes, metrics/openmetrics.ts). */
  reconcileTimeExemplars: HistogramExemplars;
  maxConcurrent: Gauge<'controller'>;
  activeWorkers: Gauge<'controller'>;
  timeouts: Counter<'controller'>;
  sourceSynced: Gauge<'controller' | 'source'>;
  kindServed: Gauge<'controller' | 'source'>;
}

const cache = new WeakMap<Registry, ControllerMetrics>();

/** The shared controller metrics of `registry` (default the runtime's `metricsRegistry`). */
export function controllerMetrics(registry: Registry = metricsRegistry): ControllerMetrics {
  let m = cache.get(registry);
  if (m) return m;
  const get = <M>(name: string, make: () => M): M => registeredOr(registry, name, make);
  const registers = [registry];
  const c = ['controller'] as const;
  const reconcileTime = get(RECONCILE_TIME_SECONDS, () => new Histogram({ name: RECONCILE_TIME_SECONDS, help: 'Length of time per reconciliation per controller', labelNames: c, buckets: [...RECONCILE_TIME_BUCKETS], registers }));
  m = {
    reconcileTotal: get(RECONCILE_TOTAL, () => new Counter({ name: RECONCILE_TOTAL, help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'] as const, registers })),
    reconcileErrors: get(RECONCILE_ERRORS_TOTAL, () => new Counter({ name: RECONCILE_ERRORS_TOTAL, help: 'Total number of reconciliation errors per controller', labelNames: c, registers })),
    terminalErrors: get(TERMINAL_RECONCILE_ERRORS_TOTAL, () => new Counter({ name: TERMINAL_RECONCILE_ERRORS_TOTAL, help: 'Total number of terminal reconciliation errors per controller', labelNames: c, registers })),
    panics: get(RECONCILE_PANICS_TOTAL, () => new Counter({ name: RECONCILE_PANICS_TOTAL, help: 'Total number of reconciliation panics per controller', labelNames: c, registers })),
    reconcileTime,
    reconcileTimeExemplars: exemplarsFor(reconcileTime, RECONCILE_TIME_BUCKETS),
    maxConcurrent: get(MAX_CONCURRENT_RECONCILES, () => new Gauge({ name: MAX_CONCURRENT_RECONCILES, help: 'Maximum number of concurrent reconciles per controller', labelNames: c, registers })),
    activeWorkers: get(ACTIVE_WORKERS, () => new Gauge({ name: ACTIVE_WORKERS, help: 'Number of currently used workers per controller', labelNames: c, registers })),
    timeouts: get(RECONCILE_TIMEOUTS_TOTAL, () => new Counter({ name: RECONCILE_TIMEOUTS_TOTAL, help: 'Total number of reconciliation timeouts per controller', labelNames: c, registers })),
    kindServed: get(SOURCE_KIND_SERVED, () => new Gauge({ name: SOURCE_KIND_SERVED, help: 'Whether the kind of a source of a controller is served and watched: 1 yes, 0 while the source waits for it (not installed yet, or its CRD was deleted)', labelNames: ['controller', 'source'] as const, registers })),
    sourceSynced: get(SOURCE_SYNCED, () => new Gauge({ name: SOURCE_SYNCED, help: 'Whether a source of a controller (an informer of a kind it watches) has synced: 1 synced, 0 not yet', labelNames: ['controller', 'source'] as const, registers })),
  };
  cache.set(registry, m);
  return m;
}

/** Controllers whose reconcile-time histogram series was made, per histogram (prom-client's zero() resets it). */
const zeroedReconcileTime = new WeakMap<Histogram<'controller'>, Set<string>>();

/**
 * Sets a new controller's counters to 0, as controller-runtime does, so that dashboards show 0 (not "No data") for a
 * controller that has not failed yet, and `rate()` sees the first error. The reconcile-time histogram gets its series
 * (every bucket at 0) too, once per controller name, so that `rate()` sees the first reconciles' durations (a series
 * appearing with them already counted shows no increase: the duration panels would read NaN).
 */
export function initControllerMetrics(m: ControllerMetrics, controller: string): void {
  for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) m.reconcileTotal.inc({ controller, result }, 0);
  for (const counter of [m.reconcileErrors, m.terminalErrors, m.panics, m.timeouts]) counter.inc({ controller }, 0);
  m.activeWorkers.set({ controller }, 0);
  let zeroed = zeroedReconcileTime.get(m.reconcileTime);
  if (!zeroed) zeroedReconcileTime.set(m.reconcileTime, (zeroed = new Set()));
  if (!zeroed.has(controller)) {
    zeroed.add(controller);
    m.reconcileTime.zero({ controller });
  }
}
