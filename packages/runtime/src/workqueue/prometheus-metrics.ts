import { Counter, Gauge, Histogram, exponentialBuckets } from '../metrics/prom.js';
import type { Metric, Registry } from '../metrics/prom.js';
import { metricsRegistry } from '../metrics/registry.js';
import type { WorkqueueMetricsProvider } from './metrics.js';

/**
 * Prometheus workqueue metrics with the controller-runtime names (`pkg/internal/metrics/workqueue.go`), labelled
 * `name` and `controller` (both set to the queue name). `workqueue_depth` also has a `priority` label, as in
 * controller-runtime: the item priority for a priority queue (at most 25 distinct values a queue, then
 * `exceeded_cardinality_limit`), empty for a FIFO queue.
 *
 * One provider exists per registry; every queue built against that registry shares the same metric objects, so
 * creating several queues with one name never throws. The unfinished-work gauges are refreshed on scrape.
 */

export const WORKQUEUE_DEPTH = 'workqueue_depth';
export const WORKQUEUE_ADDS_TOTAL = 'workqueue_adds_total';
export const WORKQUEUE_QUEUE_DURATION_SECONDS = 'workqueue_queue_duration_seconds';
export const WORKQUEUE_WORK_DURATION_SECONDS = 'workqueue_work_duration_seconds';
export const WORKQUEUE_UNFINISHED_WORK_SECONDS = 'workqueue_unfinished_work_seconds';
export const WORKQUEUE_LONGEST_RUNNING_PROCESSOR_SECONDS = 'workqueue_longest_running_processor_seconds';
export const WORKQUEUE_RETRIES_TOTAL = 'workqueue_retries_total';

/** `prometheus.ExponentialBuckets(10e-9, 10, 12)`: 10ns up to 1000s. */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = exponentialBuckets(10e-9, 10, 12);

const LABELS = ['name', 'controller'] as const;
type Label = (typeof LABELS)[number];
const DEPTH_LABELS = ['name', 'controller', 'priority'] as const;
type DepthLabel = (typeof DEPTH_LABELS)[number];
/** controller-runtime's `maxRecommendedUniquePriorities`: past this many priorities a queue's depth goes to one series. */
export const MAX_DEPTH_PRIORITIES = 25;
/** The `priority` label of a queue's depth once it has seen more than {@link MAX_DEPTH_PRIORITIES} priorities. */
export const PRIORITY_CARDINALITY_EXCEEDED = 'exceeded_cardinality_limit';

const providers = new WeakMap<Registry, WorkqueueMetricsProvider>();

/** The (cached) workqueue metrics provider for `registry`, by default the runtime's {@link metricsRegistry}. */
export function prometheusMetricsProvider(registry: Registry = metricsRegistry): WorkqueueMetricsProvider {
  let provider = providers.get(registry);
  if (provider === undefined) {
    provider = createProvider(registry);
    providers.set(registry, provider);
  }
  return provider;
}

function createProvider(registry: Registry): WorkqueueMetricsProvider {
  const refreshers = new Set<() => void>();
  const refreshAll = (): void => {
    for (const refresh of refreshers) refresh();
  };
  let ownsCollect = false;

  // Reuse a metric already registered under the name (e.g. by another copy of this module) instead of throwing.
  function existing<M>(name: string): M | undefined {
    return registry.getSingleMetric(name) as Metric | undefined as M | undefined;
  }
  const depth =
    existing<Gauge<DepthLabel>>(WORKQUEUE_DEPTH) ??
    new Gauge({
      name: WORKQUEUE_DEPTH,
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: DEPTH_LABELS,
      registers: [registry],
    });
  const adds =
    existing<Counter<Label>>(WORKQUEUE_ADDS_TOTAL) ??
    new Counter({
      name: WORKQUEUE_ADDS_TOTAL,
      help: 'Total number of adds handled by workqueue',
      labelNames: LABELS,
      registers: [registry],
    });
  const ownsLatency = existing(WORKQUEUE_QUEUE_DURATION_SECONDS) === undefined;
  const ownsWorkDuration = existing(WORKQUEUE_WORK_DURATION_SECONDS) === undefined;
  const latency =
    existing<Histogram<Label>>(WORKQUEUE_QUEUE_DURATION_SECONDS) ??
    new Histogram({
      name: WORKQUEUE_QUEUE_DURATION_SECONDS,
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: LABELS,
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers: [registry],
    });
  const workDuration =
    existing<Histogram<Label>>(WORKQUEUE_WORK_DURATION_SECONDS) ??
    new Histogram({
      name: WORKQUEUE_WORK_DURATION_SECONDS,
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: LABELS,
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers: [registry],
    });
  let unfinished = existing<Gauge<Label>>(WORKQUEUE_UNFINISHED_WORK_SECONDS);
  if (unfinished === undefined) {
    ownsCollect = true;
    unfinished = new Gauge({
      name: WORKQUEUE_UNFINISHED_WORK_SECONDS,
      help:
        'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate ' +
        'at which this increases.',
      labelNames: LABELS,
      registers: [registry],
      collect: refreshAll,
    });
  }
  const longest =
    existing<Gauge<Label>>(WORKQUEUE_LONGEST_RUNNING_PROCESSOR_SECONDS) ??
    new Gauge({
      name: WORKQUEUE_LONGEST_RUNNING_PROCESSOR_SECONDS,
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: LABELS,
      registers: [registry],
      collect: refreshAll,
    });
  const retries =
    existing<Counter<Label>>(WORKQUEUE_RETRIES_TOTAL) ??
    new Counter({
      name: WORKQUEUE_RETRIES_TOTAL,
      help: 'Total number of retries handled by workqueue',
      labelNames: LABELS,
      registers: [registry],
    });

  const labels = (name: string): Record<Label, string> => ({ name, controller: name });
  // Like Go's WithLabelValues, make the counter/gauge series exist (at 0) as soon as a queue is created,
  // without resetting values another queue with the same name already recorded.
  const series = <C extends { inc(value?: number): void }>(child: C): C => {
    child.inc(0);
    return child;
  };
  // The histograms too (every bucket at 0), so that rate() sees a queue's first observations: a series that
  // appeared with them already counted would show no increase, and the latency panels NaN. prom-client's zero()
  // resets, so only the first queue of a name does it, and only on histograms this provider made.
  const zeroed = new Map<Histogram<Label>, Set<string>>([[latency, new Set()], [workDuration, new Set()]]);
  const histogram = (h: Histogram<Label>, owned: boolean, name: string): ReturnType<Histogram<Label>['labels']> => {
    const names = zeroed.get(h)!;
    if (owned && !names.has(name)) {
      names.add(name);
      h.zero(labels(name));
    }
    return h.labels(labels(name));
  };
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: (name) => series(depth.labels({ ...labels(name), priority: '' })),
    newDepthMetricWithPriority: (name) => {
      const seen = new Set<number>();
      let exceeded = false;
      const series = (priority: number) => {
        if (!exceeded && !seen.has(priority)) {
          seen.add(priority);
          exceeded = seen.size > MAX_DEPTH_PRIORITIES;
        }
        return depth.labels({ ...labels(name), priority: exceeded ? PRIORITY_CARDINALITY_EXCEEDED : String(priority) });
      };
      return { inc: (priority) => series(priority).inc(), dec: (priority) => series(priority).dec() };
    },
    newAddsMetric: (name) => series(adds.labels(labels(name))),
    newLatencyMetric: (name) => histogram(latency, ownsLatency, name),
    newWorkDurationMetric: (name) => histogram(workDuration, ownsWorkDuration, name),
    newUnfinishedWorkSecondsMetric: (name) => series(unfinished.labels(labels(name))),
    newLongestRunningProcessorSecondsMetric: (name) => series(longest.labels(labels(name))),
    newRetriesMetric: (name) => series(retries.labels(labels(name))),
  };
  if (ownsCollect) {
    provider.onCollect = (refresh) => {
      refreshers.add(refresh);
      return () => refreshers.delete(refresh);
    };
  }
  return provider;
}
