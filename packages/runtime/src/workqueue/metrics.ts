import type { Clock } from '../clock.js';

/**
 * Workqueue metrics plumbing (client-go `util/workqueue/metrics.go`).
 *
 * A {@link WorkqueueMetricsProvider} hands out one sink per metric and queue name; a {@link QueueMetrics}
 * recorder owned by a single queue does the bookkeeping (when an item was added, when processing started) and
 * feeds the sinks. Queues without a name get {@link noopQueueMetrics} and record nothing.
 */

/** A counter sink (client-go's `CounterMetric`): adds and retries. */
export interface CounterMetric {
  inc(): void;
}
/** A gauge sink moved up and down (client-go's `GaugeMetric`): the queue depth. */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}
/** A gauge sink set outright (client-go's `SettableGaugeMetric`): unfinished work, longest-running processor, in s. */
export interface SettableGaugeMetric {
  set(value: number): void;
}
/**
 * A depth gauge by priority (controller-runtime's `DepthMetricWithPriority`): a priority queue moves the series of the
 * item's priority.
 */
export interface DepthMetricWithPriority {
  inc(priority: number): void;
  dec(priority: number): void;
}
/** A histogram sink (client-go's `HistogramMetric`): queue latency and work duration, in seconds. */
export interface HistogramMetric {
  /** Observes a duration in seconds. */
  observe(value: number): void;
}

/** Source of metric sinks, one call per queue (client-go `MetricsProvider`). */
export interface WorkqueueMetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Optional (controller-runtime's `MetricsProviderWithPriority`): the depth of a priority queue by priority. A
   * priority queue uses it instead of `newDepthMetric` when the provider has it.
   */
  newDepthMetricWithPriority?(name: string): DepthMetricWithPriority;
  /**
   * Optional pull hook: `refresh` is called right before the provider's metrics are read (e.g. on a Prometheus
   * scrape), so queues can update the unfinished-work gauges lazily. Returns a function that unregisters it.
   * Providers without this hook get the client-go behaviour: the queue refreshes the gauges on a 500ms tick
   * while it has items in processing.
   */
  onCollect?(refresh: () => void): () => void;
}

/** Per-queue metrics recorder; the queue calls these under its own bookkeeping rules. */
export interface QueueMetrics<T> {
  /** An item became dirty (was added and was not already queued); a priority queue passes its priority. */
  add(item: T, priority?: number): void;
  /** An item was handed to a worker; a priority queue passes the priority it had. */
  get(item: T, priority?: number): void;
  /** A queued item of a priority queue moved from priority `from` to `to`. */
  changePriority(from: number, to: number): void;
  /** A worker finished an item. */
  done(item: T): void;
  /** A delayed / rate-limited re-add was requested. */
  retry(): void;
  /** Recomputes the unfinished-work and longest-running-processor gauges from the items in processing. */
  updateUnfinishedWork(): void;
  /** The queue shut down: final gauge update, then stop refreshing. */
  stop(): void;
}

/** Records nothing. */
export const noopQueueMetrics: QueueMetrics<never> = {
  add() {},
  get() {},
  changePriority() {},
  done() {},
  retry() {},
  updateUnfinishedWork() {},
  stop() {},
};

/** client-go `defaultUnfinishedWorkUpdatePeriod`. */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/**
 * The client-go `queueMetrics` bookkeeping on top of a provider's sinks. Items are tracked by identity, so an
 * item added twice before being taken measures its queue time from the first add.
 */
export class QueueMetricsRecorder<T> implements QueueMetrics<T> {
  private readonly depth: GaugeMetric | undefined;
  private readonly depthByPriority: DepthMetricWithPriority | undefined;
  private readonly adds: CounterMetric;
  private readonly latency: HistogramMetric;
  private readonly workDuration: HistogramMetric;
  private readonly unfinishedWorkSeconds: SettableGaugeMetric;
  private readonly longestRunningProcessor: SettableGaugeMetric;
  private readonly retries: CounterMetric;
  private readonly addTimes = new Map<T, number>();
  private readonly processingStartTimes = new Map<T, number>();
  private readonly unregisterCollect: (() => void) | undefined;
  private ticker: ReturnType<Clock['setTimeout']> | undefined;
  private stopped = false;

  constructor(
    name: string,
    provider: WorkqueueMetricsProvider,
    private readonly clock: Clock,
    /** A priority queue's recorder: depth by priority when the provider can. */
    byPriority = false,
  ) {
    if (byPriority && provider.newDepthMetricWithPriority) this.depthByPriority = provider.newDepthMetricWithPriority(name);
    else this.depth = provider.newDepthMetric(name);
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
    this.retries = provider.newRetriesMetric(name);
    this.unregisterCollect = provider.onCollect?.(() => this.updateUnfinishedWork());
  }

  add(item: T, priority = 0): void {
    this.adds.inc();
    if (this.depthByPriority) this.depthByPriority.inc(priority);
    else this.depth!.inc();
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
  }

  get(item: T, priority = 0): void {
    if (this.depthByPriority) this.depthByPriority.dec(priority);
    else this.depth!.dec();
    this.processingStartTimes.set(item, this.clock.now());
    const added = this.addTimes.get(item);
    if (added !== undefined) {
      this.latency.observe(this.secondsSince(added));
      this.addTimes.delete(item);
    }
    this.startTicker();
  }

  changePriority(from: number, to: number): void {
    if (!this.depthByPriority) return;
    this.depthByPriority.dec(from);
    this.depthByPriority.inc(to);
  }

  done(item: T): void {
    const started = this.processingStartTimes.get(item);
    if (started !== undefined) {
      this.workDuration.observe(this.secondsSince(started));
      this.processingStartTimes.delete(item);
    }
    if (this.processingStartTimes.size === 0 && this.ticker !== undefined) {
      this.clock.clearTimeout(this.ticker);
      this.ticker = undefined;
      this.updateUnfinishedWork();
    }
  }

  retry(): void {
    this.retries.inc();
  }

  updateUnfinishedWork(): void {
    let total = 0;
    let oldest = 0;
    for (const started of this.processingStartTimes.values()) {
      const age = this.secondsSince(started);
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinishedWorkSeconds.set(total);
    this.longestRunningProcessor.set(oldest);
  }

  stop(): void {
    if (this.stopped) return;
    this.updateUnfinishedWork();
    this.stopped = true;
    this.unregisterCollect?.();
    if (this.ticker !== undefined) {
      this.clock.clearTimeout(this.ticker);
      this.ticker = undefined;
    }
  }

  /** Fallback for providers without `onCollect`: tick every 500ms while items are in processing. */
  private startTicker(): void {
    if (this.unregisterCollect !== undefined || this.stopped || this.ticker !== undefined) return;
    const tick = (): void => {
      this.updateUnfinishedWork();
      this.ticker = this.clock.setTimeout(tick, UNFINISHED_WORK_UPDATE_PERIOD_MS);
    };
    this.ticker = this.clock.setTimeout(tick, UNFINISHED_WORK_UPDATE_PERIOD_MS);
  }

  private secondsSince(t: number): number {
    return Math.max(0, this.clock.now() - t) / 1000;
  }
}
