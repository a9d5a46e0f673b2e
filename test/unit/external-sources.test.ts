/**
 * Events from outside the cluster (controller-runtime's `source.Channel`, `source.Func`, `WatchesRawSource`):
 * `watchesSource(channelSource(ch), handler)` reconciles what is sent on an `EventChannel` (through predicates and
 * event filters, sent before the start too), `watchesRawSource(funcSource(fn))` what `fn` adds; on stop the channel is
 * no longer read (later sends stay buffered) and `fn`'s signal aborts. A throwing handler or `fn` is logged, not fatal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { enqueueForObject } from '@kubegen/runtime/internal/handler/handler.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { channelSource, EventChannel, funcSource } from '@kubegen/runtime/internal/source/external-sources.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const ref = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels } });

test('watchesSource(channelSource) and watchesRawSource(funcSource): requests from outside the cluster', async () => {
  const mgr = new Manager({ transport: newFakeTransport([cm], ref('in-cluster')), metricsBindAddress: '0', logger: nullLogger, registry: new Registry() });
  const channel = new EventChannel<KubeObject>();
  channel.send(ref('sent-before-start'));
  let fnSignal: AbortSignal | undefined;
  const reconciled: string[] = [];
  controllerFor(mgr, cm)
    .withEventFilter({ generic: (o) => o.metadata?.labels?.['drop'] !== 'filter' })
    .watchesSource(channelSource(channel, { description: 'github' }), enqueueForObject(), { predicates: [{ generic: (o) => o.metadata?.labels?.['drop'] !== 'predicate' }] })
    .watchesRawSource(funcSource((sink, signal) => {
      fnSignal = signal;
      sink.add({ namespace: 'ns', name: 'from-func' });
    }))
    .complete((req) => {
      reconciled.push(req.name);
    });
  const run = mgr.start();
  try {
    await until(() => ['in-cluster', 'sent-before-start', 'from-func'].every((n) => reconciled.includes(n)), 'the three sources reconciled');
    channel.send(ref('dropped-by-filter', { drop: 'filter' }));
    channel.send(ref('dropped-by-predicate', { drop: 'predicate' }));
    channel.send(ref('webhook-event'));
    await until(() => reconciled.includes('webhook-event'), 'a later send reconciled');
    assert.equal(reconciled.some((n) => n.startsWith('dropped')), false, 'predicates and event filters apply');
    assert.equal(fnSignal?.aborted, false);
  } finally {
    await mgr.stop();
    await run;
  }
  assert.equal(fnSignal?.aborted, true, "fn's signal aborts when the controller stops");
  channel.send(ref('after-stop'));
  assert.equal(channel.length, 1, 'no longer read after the stop: the send stays buffered');
});

test('EventChannel: buffered, ends after close, refuses sends once closed; a failing funcSource is logged, not fatal', async () => {
  const ch = new EventChannel<number>();
  ch.send(1);
  ch.send(2);
  const got: number[] = [];
  const reading = (async () => {
    for await (const n of ch) got.push(n);
  })();
  await new Promise((r) => setImmediate(r));
  ch.send(3);
  ch.close();
  await reading;
  assert.deepEqual(got, [1, 2, 3]);
  assert.throws(() => ch.send(4), /closed/);

  const errors: string[] = [];
  const log = { ...nullLogger, error: (msg: string) => void errors.push(msg), child: () => log };
  const src = funcSource(() => Promise.reject(new Error('queue down')), { description: 'sqs', log: log as typeof nullLogger });
  src.start({ add: () => undefined }, new AbortController().signal);
  await until(() => errors.length === 1, 'logged');
  assert.deepEqual(errors, ['source failed']);
  assert.equal(src.hasSynced(), true);
  assert.throws(() => src.start({ add: () => undefined }, new AbortController().signal), /already started/);
});
