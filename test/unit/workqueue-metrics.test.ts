import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { metricsRegistry } from '@kubegen/runtime/internal/metrics/registry.js';
import { WORKQUEUE_DURATION_BUCKETS } from '@kubegen/runtime/internal/workqueue/prometheus-metrics.js';
import { WorkQueue } from '@kubegen/runtime/internal/workqueue/queue.js';
import { ItemExponentialFailureRateLimiter } from '@kubegen/runtime/internal/workqueue/rate-limiter.js';
import { RateLimitingQueue } from '@kubegen/runtime/internal/workqueue/rate-limiting-queue.js';
import type { WorkqueueMetricsProvider } from '@kubegen/runtime/internal/workqueue/metrics.js';

/** Reads one sample of `metric` (optionally a histogram series such as `_sum`) for queue `queue`. */
async function sample(registry: Registry, metric: string, queue: string, series = metric): Promise<number | undefined> {
  const m = registry.getSingleMetric(metric);
  if (m === undefined) return undefined;
  const data = await m.get();
  const values = data.values as { value: number; labels: Record<string, unknown>; metricName?: string }[];
  const value = values.find(
    (v) => v.labels['name'] === queue && v.labels['controller'] === queue && (v.metricName ?? metric) === series,
  );
  return value?.value;
}

test('workqueue metrics move with adds, gets, dones and retries', async () => {
  const registry = new Registry();
  const clock = new FakeClock(1_000_000);
  const q = new RateLimitingQueue<string>({
    name: 'foo',
    clock,
    registry,
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000),
  });
  assert.equal(await sample(registry, 'workqueue_adds_total', 'foo'), 0, 'series exist from creation');
  // The duration histograms too, empty (as Go's WithLabelValues makes them): rate() then sees the first observations.
  for (const h of ['workqueue_queue_duration_seconds', 'workqueue_work_duration_seconds']) {
    assert.equal(await sample(registry, h, 'foo', `${h}_count`), 0, `${h}_count exists from creation`);
  }

  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(await sample(registry, 'workqueue_adds_total', 'foo'), 2);
  assert.equal(await sample(registry, 'workqueue_depth', 'foo'), 2);

  clock.step(2000);
  const r = await q.get();
  assert.equal(r.item, 'a');
  assert.equal(await sample(registry, 'workqueue_depth', 'foo'), 1);
  const qd = 'workqueue_queue_duration_seconds';
  assert.equal(await sample(registry, qd, 'foo', `${qd}_count`), 1);
  assert.equal(await sample(registry, qd, 'foo', `${qd}_sum`), 2);

  clock.step(1500);
  assert.equal(await sample(registry, 'workqueue_unfinished_work_seconds', 'foo'), 1.5);
  assert.equal(await sample(registry, 'workqueue_longest_running_processor_seconds', 'foo'), 1.5);
  await q.get(); // b starts at +3.5s
  clock.step(500);
  assert.equal(await sample(registry, 'workqueue_unfinished_work_seconds', 'foo'), 2.5, '2s (a) + 0.5s (b)');
  assert.equal(await sample(registry, 'workqueue_longest_running_processor_seconds', 'foo'), 2);

  q.done('a');
  const wd = 'workqueue_work_duration_seconds';
  assert.equal(await sample(registry, wd, 'foo', `${wd}_count`), 1);
  assert.equal(await sample(registry, wd, 'foo', `${wd}_sum`), 2);
  q.done('b');
  assert.equal(await sample(registry, 'workqueue_unfinished_work_seconds', 'foo'), 0);
  assert.equal(await sample(registry, 'workqueue_longest_running_processor_seconds', 'foo'), 0);

  q.addRateLimited('a');
  q.addAfter('c', 10);
  assert.equal(await sample(registry, 'workqueue_retries_total', 'foo'), 2);
  assert.equal(await sample(registry, 'workqueue_adds_total', 'foo'), 2, 'a delayed add is not an add yet');
  clock.step(10);
  assert.equal(await sample(registry, 'workqueue_adds_total', 'foo'), 4);
  assert.equal(await sample(registry, 'workqueue_depth', 'foo'), 2);
  q.shutDown();
});

test('duration histograms use ExponentialBuckets(10e-9, 10, 12)', async () => {
  assert.equal(WORKQUEUE_DURATION_BUCKETS.length, 12);
  assert.equal(WORKQUEUE_DURATION_BUCKETS[0], 10e-9);
  assert.ok(Math.abs(WORKQUEUE_DURATION_BUCKETS[11]! - 1000) < 1e-9);
  const registry = new Registry();
  const q = new WorkQueue<string>({ name: 'buckets', registry, clock: new FakeClock() });
  q.add('a');
  await q.get();
  const text = await registry.getSingleMetricAsString('workqueue_work_duration_seconds');
  assert.match(text, /# TYPE workqueue_work_duration_seconds histogram/);
  const data = await registry.getSingleMetric('workqueue_queue_duration_seconds')!.get();
  const values = data.values as { labels: Record<string, unknown>; metricName?: string }[];
  const les = values.filter((v) => v.metricName?.endsWith('_bucket')).map((v) => v.labels['le']);
  assert.equal(les.length, 13, '12 buckets plus +Inf');
});

test('unnamed queues record no metrics', async () => {
  const registry = new Registry();
  const q = new RateLimitingQueue<string>({ registry, clock: new FakeClock() });
  q.add('a');
  await q.get();
  q.done('a');
  q.addRateLimited('a');
  assert.equal(registry.getMetricsAsArray().length, 0);
  q.shutDown();
});

test('two queues with the same name on one registry share the metric objects without throwing', async () => {
  const registry = new Registry();
  const clock = new FakeClock();
  const q1 = new WorkQueue<string>({ name: 'dup', registry, clock });
  const q2 = new WorkQueue<string>({ name: 'dup', registry, clock });
  const other = new WorkQueue<string>({ name: 'other', registry, clock });
  q1.add('a');
  q2.add('a');
  other.add('z');
  assert.equal(await sample(registry, 'workqueue_adds_total', 'dup'), 2);
  await q1.get();
  const qd = 'workqueue_queue_duration_seconds';
  assert.equal(await sample(registry, qd, 'dup', `${qd}_count`), 1);
  new WorkQueue<string>({ name: 'dup', registry, clock });
  assert.equal(await sample(registry, qd, 'dup', `${qd}_count`), 1, 'a third queue of the name does not reset the histogram');
  assert.equal(await sample(registry, 'workqueue_adds_total', 'other'), 1);
  assert.equal(registry.getMetricsAsArray().length, 7);
});

test('named queues without a registry use the shared metricsRegistry', async () => {
  const name = `default-registry-${process.pid}`;
  const q = new WorkQueue<string>({ name, clock: new FakeClock() });
  q.add('a');
  q.add('b');
  assert.equal(await sample(metricsRegistry, 'workqueue_depth', name), 2);
});

test('a provider without onCollect gets unfinished-work updates on a 500ms tick while items are processing', async () => {
  const values = new Map<string, number>();
  const sink = (key: string) => ({
    inc: () => values.set(key, (values.get(key) ?? 0) + 1),
    dec: () => values.set(key, (values.get(key) ?? 0) - 1),
    set: (v: number) => values.set(key, v),
    observe: (v: number) => values.set(key, v),
  });
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: (n) => sink(`${n}.depth`),
    newAddsMetric: (n) => sink(`${n}.adds`),
    newLatencyMetric: (n) => sink(`${n}.latency`),
    newWorkDurationMetric: (n) => sink(`${n}.work`),
    newUnfinishedWorkSecondsMetric: (n) => sink(`${n}.unfinished`),
    newLongestRunningProcessorSecondsMetric: (n) => sink(`${n}.longest`),
    newRetriesMetric: (n) => sink(`${n}.retries`),
  };
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ name: 'custom', clock, metricsProvider: provider });
  q.add('a');
  assert.equal(clock.pendingTimers(), 0, 'no tick while nothing is processing');
  await q.get();
  clock.step(499);
  assert.equal(values.get('custom.unfinished'), undefined);
  clock.step(1);
  assert.equal(values.get('custom.unfinished'), 0.5);
  clock.step(1000);
  assert.equal(values.get('custom.longest'), 1.5);
  q.done('a');
  assert.equal(values.get('custom.unfinished'), 0);
  assert.equal(values.get('custom.work'), 1.5);
  assert.equal(clock.pendingTimers(), 0, 'tick stops once processing is empty');
  q.shutDown();
});
