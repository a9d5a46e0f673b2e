import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { Controller, type ControllerOptions } from '@kubegen/runtime/internal/controller/controller.js';
import {
  enqueueForObject,
  enqueueMapped,
  withLowPriorityWhenUnchanged,
  type RequestSink,
} from '@kubegen/runtime/internal/handler/handler.js';
import type { Request, Result } from '@kubegen/runtime/internal/reconcile/index.js';
import { InformerSource } from '@kubegen/runtime/internal/source/source.js';
import { FakeListerWatcher } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { LOW_PRIORITY, type AddOptions } from '@kubegen/runtime/internal/workqueue/priority-queue.js';
import { settle } from '../support/wait.js';

/** A sink that records each request as `name@priority` (`-` when added without one). */
function recordingSink(): { seen: string[]; sink: RequestSink } {
  const seen: string[] = [];
  const put = (opts: AddOptions, reqs: Request[]): void => {
    for (const r of reqs) seen.push(`${r.name}@${opts.priority ?? '-'}`);
  };
  return { seen, sink: { add: (r) => put({}, [r]), addWithOpts: (opts, ...reqs) => put(opts, reqs) } };
}

const obj = (name: string, rv: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: rv } });

test('withLowPriorityWhenUnchanged: initial list and unchanged resyncs at -100, new events without a priority', () => {
  const { seen, sink } = recordingSink();
  const h = withLowPriorityWhenUnchanged(enqueueForObject());
  h.create!(obj('initial', '1'), sink, { isInInitialList: true });
  h.create!(obj('created', '2'), sink, { isInInitialList: false });
  h.create!(obj('unknown', '2'), sink);
  h.update!(obj('resync', '3'), obj('resync', '3'), sink);
  h.update!(obj('changed', '3'), obj('changed', '4'), sink);
  h.delete!(obj('deleted', '5'), sink);
  h.generic!(obj('generic', '5'), sink);
  assert.deepEqual(seen, ['initial@-100', 'created@-', 'unknown@-', 'resync@-100', 'changed@-', 'deleted@-', 'generic@-']);
});

test('withLowPriorityWhenUnchanged: a priority the handler gives wins, and a sink without addWithOpts gets add', () => {
  const { seen, sink } = recordingSink();
  const explicit = withLowPriorityWhenUnchanged<KubeObject>({
    create: (o, s) => s.addWithOpts!({ priority: 9, after: 5 }, { namespace: '', name: o.metadata!.name! }),
  });
  explicit.create!(obj('mine', '1'), sink, { isInInitialList: true });
  assert.deepEqual(seen, ['mine@9']);

  const plain: Request[] = [];
  withLowPriorityWhenUnchanged(enqueueMapped(() => [{ namespace: 'x', name: 'y' }])).create!(
    obj('a', '1'),
    { add: (r) => plain.push(r) },
    { isInInitialList: true },
  );
  assert.deepEqual(plain, [{ namespace: 'x', name: 'y' }]);
});

test('an informer source gives objects of the initial list -100 and objects created later no priority', async () => {
  const lw = new FakeListerWatcher<KubeObject>();
  lw.upsert({ metadata: { namespace: 'ns', name: 'listed' } });
  const informer = new SharedIndexInformer<KubeObject>(lw, { clock: new FakeClock(), logger: nullLogger, random: () => 0 });
  const { seen, sink } = recordingSink();
  const source = new InformerSource(informer, enqueueForObject(), [], nullLogger);
  const stop = new AbortController();
  source.start(sink, stop.signal);
  void informer.run();
  assert.equal(await source.whenSynced(stop.signal), true);
  lw.upsert({ metadata: { namespace: 'ns', name: 'created' } });
  await settle(() => seen.length === 2, 'the created object', 1000);
  assert.deepEqual(seen, ['listed@-100', 'created@-']);
  stop.abort();
  await informer.stop();
});

/** Lets queued promise callbacks and immediates run (no real time passes). */
async function flush(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

function make(opts: Partial<ControllerOptions> & Pick<ControllerOptions, 'reconciler'>) {
  const clock = new FakeClock(1_000_000);
  const ctrl = new Controller({ name: 'test', clock, registry: new Registry(), logger: nullLogger, ...opts });
  const stop = new AbortController();
  const run = ctrl.start(stop.signal);
  return { ctrl, clock, stop, run };
}

/** A reconciler that records the order of calls; `gate` holds the first call of `g` until released. */
function gatedReconciler(results: (name: string, call: number) => Result | Error | undefined) {
  const calls: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const reconciler = async (req: Request): Promise<Result | void> => {
    calls.push(req.name);
    if (req.name === 'g' && calls.filter((c) => c === 'g').length === 1) await gate;
    const r = results(req.name, calls.filter((c) => c === req.name).length);
    if (r instanceof Error) throw r;
    return r;
  };
  return { calls, release, reconciler };
}

test('Result.priority sets the priority of the requeue', async () => {
  const { calls, release, reconciler } = gatedReconciler((name, n) => (name === 'a' && n === 1 ? { requeueAfterMs: 10, priority: 5 } : undefined));
  const { ctrl, clock, stop, run } = make({ reconciler });
  ctrl.sink.add({ namespace: 'ns', name: 'a' });
  await flush();
  ctrl.sink.add({ namespace: 'ns', name: 'g' });
  await flush();
  ctrl.sink.addWithOpts!({ priority: 1 }, { namespace: 'ns', name: 'y' });
  clock.step(10); // a is ready again, at priority 5: ahead of y (1)
  release();
  await flush();
  assert.deepEqual(calls, ['a', 'g', 'a', 'y']);
  stop.abort();
  await run;
});

test('a failed request is retried at the priority it was handed out with', async () => {
  const { calls, release, reconciler } = gatedReconciler((name, n) => (name === 'a' && n === 1 ? new Error('boom') : undefined));
  const { ctrl, clock, stop, run } = make({ reconciler });
  ctrl.sink.addWithOpts!({ priority: LOW_PRIORITY }, { namespace: 'ns', name: 'a' });
  await flush();
  ctrl.sink.add({ namespace: 'ns', name: 'g' });
  await flush();
  clock.step(5); // a is ready again (5 ms backoff), still at -100
  ctrl.sink.add({ namespace: 'ns', name: 'b' }); // ready later, but at 0
  release();
  await flush();
  assert.deepEqual(calls, ['a', 'g', 'b', 'a']);
  stop.abort();
  await run;
});

test('a controller serves requests by priority by default, and in arrival order with usePriorityQueue: false', async () => {
  const order = async (usePriorityQueue: boolean | undefined): Promise<string[]> => {
    const { calls, release, reconciler } = gatedReconciler(() => undefined);
    const { ctrl, stop, run } = make({ reconciler, ...(usePriorityQueue === undefined ? {} : { usePriorityQueue }) });
    ctrl.sink.add({ namespace: 'ns', name: 'g' }); // holds the one worker while the others queue
    await flush();
    ctrl.sink.addWithOpts!({ priority: LOW_PRIORITY }, { namespace: 'ns', name: 'low' });
    ctrl.sink.add({ namespace: 'ns', name: 'plain' });
    ctrl.sink.addWithOpts!({ priority: 10 }, { namespace: 'ns', name: 'high' });
    release();
    await flush();
    stop.abort();
    await run;
    return calls;
  };
  assert.deepEqual(await order(undefined), ['g', 'high', 'plain', 'low']);
  assert.deepEqual(await order(false), ['g', 'low', 'plain', 'high']);
});

test('the default queue retries a failed request after the per-item exponential backoff: 5 ms, then 10 ms', async () => {
  const { calls, release, reconciler } = gatedReconciler((name, n) => (name === 'a' && n <= 2 ? new Error('boom') : undefined));
  const { ctrl, clock, stop, run } = make({ reconciler });
  ctrl.sink.add({ namespace: 'ns', name: 'a' });
  await flush();
  assert.deepEqual(calls, ['a']);
  clock.step(4);
  await flush();
  assert.deepEqual(calls, ['a'], 'not before 5 ms');
  clock.step(1);
  await flush();
  assert.deepEqual(calls, ['a', 'a'], 'at 5 ms');
  clock.step(9);
  await flush();
  assert.deepEqual(calls, ['a', 'a'], 'the second retry waits 10 ms');
  clock.step(1);
  await flush();
  assert.deepEqual(calls, ['a', 'a', 'a']);
  release();
  stop.abort();
  await run;
});
