import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Controller, type ControllerOptions } from '@kubegen/runtime/internal/controller/controller.js';
import {
  RECONCILE_TOTAL,
  RECONCILE_ERRORS_TOTAL,
  TERMINAL_RECONCILE_ERRORS_TOTAL,
  RECONCILE_TIMEOUTS_TOTAL,
  MAX_CONCURRENT_RECONCILES,
  ACTIVE_WORKERS,
} from '@kubegen/runtime/internal/controller/metrics.js';
import { TerminalError, type ReconcileContext, type Request } from '@kubegen/runtime/internal/reconcile/index.js';

/** Lets queued promise callbacks and immediates run (no real time passes). */
async function flush(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

async function metric(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) return 0;
  const data = await m.get();
  const v = (data.values as { value: number; labels: Record<string, unknown> }[]).find((s) =>
    Object.entries(labels).every(([k, val]) => s.labels[k] === val),
  );
  return v?.value ?? 0;
}

function make(opts: Partial<ControllerOptions> & Pick<ControllerOptions, 'reconciler'>) {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const ctrl = new Controller({ name: 'test', clock, registry, logger: nullLogger, ...opts });
  const stop = new AbortController();
  const run = ctrl.start(stop.signal);
  return { ctrl, clock, registry, stop, run };
}

const foo: Request = { namespace: 'ns', name: 'foo' };

test('a rejected reconcile is retried with the exact exponential backoff delays', async () => {
  const calls: number[] = [];
  const { ctrl, clock, registry, stop, run } = make({
    reconciler: async () => {
      calls.push(clock.now());
      throw new Error('boom');
    },
  });
  ctrl.sink.add(foo);
  await flush();
  assert.equal(calls.length, 1);
  assert.equal(ctrl.queue.numRequeues('ns/foo'), 1);
  clock.step(4);
  await flush();
  assert.equal(calls.length, 1, 'not before 5 ms');
  clock.step(1);
  await flush();
  assert.equal(calls.length, 2);
  clock.step(9);
  await flush();
  assert.equal(calls.length, 2, 'not before 10 ms');
  clock.step(1);
  await flush();
  assert.equal(calls.length, 3);
  assert.deepEqual(calls.map((t) => t - 1_000_000), [0, 5, 15]);
  assert.equal(await metric(registry, RECONCILE_ERRORS_TOTAL, { controller: 'test' }), 3);
  assert.equal(await metric(registry, RECONCILE_TOTAL, { controller: 'test', result: 'error' }), 3);
  stop.abort();
  await run;
});

test('a synchronous throw is handled like a rejection and does not crash', async () => {
  let n = 0;
  const { ctrl, clock, stop, run } = make({
    reconciler: () => {
      n++;
      throw new Error('sync boom');
    },
  });
  ctrl.sink.add(foo);
  await flush();
  assert.equal(n, 1);
  clock.step(5);
  await flush();
  assert.equal(n, 2);
  stop.abort();
  await run;
});

test('a TerminalError is counted and not retried', async () => {
  let n = 0;
  const { ctrl, clock, registry, stop, run } = make({
    reconciler: async () => {
      n++;
      throw new TerminalError(new Error('bad spec'));
    },
  });
  ctrl.sink.add(foo);
  await flush();
  clock.step(10_000);
  await flush();
  assert.equal(n, 1);
  assert.equal(ctrl.queue.numRequeues('ns/foo'), 0);
  assert.equal(await metric(registry, TERMINAL_RECONCILE_ERRORS_TOTAL, { controller: 'test' }), 1);
  assert.equal(await metric(registry, RECONCILE_ERRORS_TOTAL, { controller: 'test' }), 1);
  stop.abort();
  await run;
});

test('requeueAfterMs forgets the failure count and re-adds after the delay', async () => {
  let n = 0;
  const { ctrl, clock, registry, stop, run } = make({
    reconciler: async () => {
      n++;
      if (n === 1) throw new Error('first fails');
      return n === 2 ? { requeueAfterMs: 1000 } : undefined;
    },
  });
  ctrl.sink.add(foo);
  await flush();
  clock.step(5);
  await flush();
  assert.equal(n, 2);
  assert.equal(ctrl.queue.numRequeues('ns/foo'), 0, 'requeueAfter forgets');
  clock.step(999);
  await flush();
  assert.equal(n, 2);
  clock.step(1);
  await flush();
  assert.equal(n, 3);
  assert.equal(await metric(registry, RECONCILE_TOTAL, { controller: 'test', result: 'requeue_after' }), 1);
  assert.equal(await metric(registry, RECONCILE_TOTAL, { controller: 'test', result: 'success' }), 1);
  clock.step(100_000);
  await flush();
  assert.equal(n, 3, 'success does not requeue');
  stop.abort();
  await run;
});

test('requeue: true re-adds rate-limited; success forgets', async () => {
  let n = 0;
  const { ctrl, clock, registry, stop, run } = make({
    reconciler: async () => (++n < 3 ? { requeue: true } : {}),
  });
  ctrl.sink.add(foo);
  await flush();
  assert.equal(ctrl.queue.numRequeues('ns/foo'), 1);
  clock.step(5);
  await flush();
  clock.step(10);
  await flush();
  assert.equal(n, 3);
  assert.equal(ctrl.queue.numRequeues('ns/foo'), 0);
  assert.equal(await metric(registry, RECONCILE_TOTAL, { controller: 'test', result: 'requeue' }), 2);
  assert.equal(await metric(registry, RECONCILE_TOTAL, { controller: 'test', result: 'success' }), 1);
  stop.abort();
  await run;
});

test('a hanging reconcile times out: signal aborts, timeout counted, worker freed, key stays exclusive', async () => {
  const signals: AbortSignal[] = [];
  const seen: string[] = [];
  const { ctrl, clock, registry, stop, run } = make({
    reconcileTimeoutMs: 100,
    reconciler: (req, ctx) => {
      seen.push(req.name);
      signals.push(ctx.signal);
      if (req.name === 'foo' && signals.length === 1) return new Promise(() => {}); // hangs forever, ignores signal
      return undefined;
    },
  });
  ctrl.sink.add(foo);
  await flush();
  ctrl.sink.add({ namespace: 'ns', name: 'bar' });
  await flush();
  assert.deepEqual(seen, ['foo'], 'single worker busy');
  clock.step(100);
  await flush();
  assert.equal(signals[0]!.aborted, true);
  assert.equal(await metric(registry, RECONCILE_TIMEOUTS_TOTAL, { controller: 'test' }), 1);
  assert.deepEqual(seen, ['foo', 'bar'], 'worker moved on');
  clock.step(10_000);
  await flush();
  assert.deepEqual(seen, ['foo', 'bar'], 'foo is never reconciled while its first call is still running');
  stop.abort();
});

test('maxConcurrentReconciles bounds parallelism and a key never runs twice at once', async () => {
  let active = 0;
  let peak = 0;
  const activeKeys = new Set<string>();
  const releases: (() => void)[] = [];
  let overlap = false;
  const { ctrl, registry, stop, run } = make({
    maxConcurrentReconciles: 3,
    reconciler: async (req) => {
      if (activeKeys.has(req.name)) overlap = true;
      activeKeys.add(req.name);
      active++;
      peak = Math.max(peak, active);
      await new Promise<void>((r) => releases.push(r));
      active--;
      activeKeys.delete(req.name);
    },
  });
  for (let i = 0; i < 6; i++) ctrl.sink.add({ namespace: 'ns', name: `o${i}` });
  await flush();
  assert.equal(active, 3);
  assert.equal(await metric(registry, ACTIVE_WORKERS, { controller: 'test' }), 3);
  assert.equal(await metric(registry, MAX_CONCURRENT_RECONCILES, { controller: 'test' }), 3);
  ctrl.sink.add({ namespace: 'ns', name: 'o0' }); // re-added while processing
  while (releases.length > 0) {
    releases.shift()!();
    await flush();
  }
  assert.equal(peak, 3);
  assert.equal(overlap, false);
  assert.equal(await metric(registry, RECONCILE_TOTAL, { controller: 'test', result: 'success' }), 7);
  stop.abort();
  await run;
});

test('shutdown aborts in-flight signals, waits for them, and takes no new work', async () => {
  let ctxSeen: ReconcileContext | undefined;
  let release!: () => void;
  let finished = false;
  let n = 0;
  const { ctrl, stop, run } = make({
    reconciler: async (_req, ctx) => {
      n++;
      ctxSeen = ctx;
      await new Promise<void>((r) => (release = r));
      finished = true;
    },
  });
  ctrl.sink.add(foo);
  ctrl.sink.add({ namespace: 'ns', name: 'queued' });
  await flush();
  assert.equal(n, 1);
  assert.equal(ctxSeen!.log !== undefined && typeof ctxSeen!.reconcileID, 'string');
  let resolved = false;
  void run.then(() => (resolved = true));
  stop.abort();
  await flush();
  assert.equal(ctxSeen!.signal.aborted, true);
  assert.equal(resolved, false, 'waits for the in-flight reconcile');
  release();
  await run;
  assert.equal(finished, true);
  assert.equal(n, 1, 'the queued item was not reconciled after shutdown');
});

test('a new controller\'s series exist before its first reconcile: counters at 0, the reconcile-time histogram empty', async () => {
  const registry = new Registry();
  const clock = new FakeClock();
  const ctrl = new Controller({ name: 'fresh', clock, registry, logger: nullLogger, reconciler: async () => undefined });
  const before = await registry.metrics();
  assert.match(before, /^controller_runtime_reconcile_errors_total\{controller="fresh"\} 0$/m);
  assert.match(before, /^controller_runtime_reconcile_total\{controller="fresh",result="error"\} 0$/m);
  // Every bucket, the sum and the count at 0: rate() over the scrapes before and after the first reconcile sees it.
  assert.match(before, /^controller_runtime_reconcile_time_seconds_bucket\{le="0.005",controller="fresh"\} 0$/m);
  assert.match(before, /^controller_runtime_reconcile_time_seconds_count\{controller="fresh"\} 0$/m);
  const stop = new AbortController();
  const run = ctrl.start(stop.signal);
  ctrl.sink.add(foo);
  await flush();
  stop.abort();
  await run;
  assert.match(await registry.metrics(), /^controller_runtime_reconcile_time_seconds_count\{controller="fresh"\} 1$/m);
  // A controller of the same name made again on the registry (removed and added back) keeps what was recorded.
  new Controller({ name: 'fresh', clock, registry, logger: nullLogger, reconciler: async () => undefined });
  assert.match(await registry.metrics(), /^controller_runtime_reconcile_time_seconds_count\{controller="fresh"\} 1$/m);
});
