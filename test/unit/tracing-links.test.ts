/**
 * Issue 41 item 2, why a reconcile ran, from a fake lister-watcher through a real informer, source and controller
 * (the SDK's in-memory exporter): the reconcile links to the informer's `list <informer>` span for an object of a
 * list, to its `watch <informer>` span for a watch event (a WatchList stream's initial state: its watch span), the
 * event on the link (type, resourceVersion, object, source); coalesced events each a link; no span per event.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { Controller } from '@kubegen/runtime/internal/controller/controller.js';
import { enqueueForObject } from '@kubegen/runtime/internal/handler/handler.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { FakeListerWatcher, type FakeListerWatcherOptions } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { disableTracing, enableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';
import { settle } from '../support/wait.js';

const foo = (name: string, data = ''): KubeObject => ({ metadata: { namespace: 'ns', name }, data } as KubeObject);

/** An informer of `foos` on a fake lister-watcher, a controller reconciling its objects; `hold` delays reconciles of 'held'. */
function setup(opts?: FakeListerWatcherOptions) {
  const lw = new FakeListerWatcher<KubeObject>(opts);
  const listedRV = lw.upsert(foo('listed')).metadata!.resourceVersion!;
  const informer = new SharedIndexInformer<KubeObject>(lw, { name: 'foos', logger: nullLogger, random: () => 0 });
  const reconciled: string[] = [];
  const started: string[] = [];
  let release: (() => void) | undefined;
  const held = new Promise<void>((r) => (release = r));
  const c = new Controller({
    name: 'unit',
    registry: new Registry(),
    logger: nullLogger,
    skipNameValidation: true,
    reconciler: async (req) => {
      started.push(req.name);
      if (req.name === 'held' && !reconciled.includes('held')) await held;
      reconciled.push(req.name);
      return undefined;
    },
  });
  c.watch(informer, enqueueForObject());
  void informer.run();
  const done = c.start();
  const stop = async (): Promise<void> => {
    c.stop();
    await done;
    await informer.stop();
  };
  return { lw, informer, listedRV, reconciled, started, release: () => release!(), stop };
}

describe('reconcile links', () => {
  const { exporter, provider } = inMemoryTracing();

  const reconcilesOf = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === 'reconcile unit' && s.attributes['k8s.object.name'] === name);
  const linkInfo = (s: ReadableSpan) => s.links.map((l) => [l.context.spanId, l.attributes?.['k8s.event.type'], l.attributes?.['k8s.resource_version'], l.attributes?.['kubegen.source'], l.attributes?.['k8s.object.name']]);

  it('to the list span for a listed object, to the watch span for a watch event; coalesced events each a link; no event spans', async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const { lw, informer, listedRV, reconciled, started, release, stop } = setup();
    await settle(() => reconciled.includes('listed') && lw.openWatches === 1, 'the listed object reconciled, the watch open', 2000);
    lw.upsert(foo('held'));
    const created = lw.resourceVersion;
    await settle(() => started.includes('held'), 'the held reconcile', 2000);
    // While 'held' is reconciled, two updates: one more request, both events linked to it.
    lw.upsert(foo('held', 'one'));
    const first = lw.resourceVersion;
    lw.upsert(foo('held', 'two'));
    const second = lw.resourceVersion;
    await settle(() => informer.getIndexer().getByKey('ns/held')?.metadata?.resourceVersion === second && informer.queuedItems === 0, 'both updates handled', 2000);
    release();
    await settle(() => reconciled.filter((n) => n === 'held').length === 2, 'both reconciles of held', 2000);
    await stop();

    const spans = exporter.getFinishedSpans();
    const names = new Set(spans.map((s) => s.name));
    assert.deepEqual([...names].sort(), ['list foos', 'reconcile unit', 'watch foos'], 'no span per event');
    const [list] = spans.filter((s) => s.name === 'list foos');
    const [watch] = spans.filter((s) => s.name === 'watch foos');
    const listed = reconcilesOf(spans, 'listed');
    assert.equal(listed.length, 1);
    assert.deepEqual(linkInfo(listed[0]!), [[list!.spanContext().spanId, 'create', listedRV, 'foos', 'listed']], "a listed object's reconcile links to the list span");
    assert.equal(listed[0]!.links[0]!.context.traceId, list!.spanContext().traceId);
    const held = reconcilesOf(spans, 'held');
    assert.equal(held.length, 2);
    const w = watch!.spanContext().spanId;
    assert.deepEqual(linkInfo(held[0]!), [[w, 'create', created, 'foos', 'held']], "a watch event's reconcile links to the watch span");
    assert.deepEqual(linkInfo(held[1]!), [[w, 'update', first, 'foos', 'held'], [w, 'update', second, 'foos', 'held']], 'coalesced updates: a link each');
  });

  it("a WatchList stream's initial state links to its watch span", async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const { listedRV, reconciled, stop } = setup({ watchList: 'supported' });
    await settle(() => reconciled.includes('listed'), 'the streamed object reconciled', 2000);
    await stop();
    const spans = exporter.getFinishedSpans();
    const [watch] = spans.filter((s) => s.name === 'watch foos');
    assert.equal(watch?.attributes['kubegen.watch.send_initial_events'], true);
    assert.deepEqual(linkInfo(reconcilesOf(spans, 'listed')[0]!), [[watch!.spanContext().spanId, 'create', listedRV, 'foos', 'listed']]);
  });

  it('none while tracing is off', async () => {
    disableTracing();
    exporter.reset();
    const { lw, reconciled, release, stop } = setup();
    release();
    await settle(() => reconciled.includes('listed') && lw.openWatches === 1, 'the listed object reconciled', 2000);
    lw.upsert(foo('held'));
    await settle(() => reconciled.includes('held'), 'the watched object reconciled', 2000);
    await stop();
    assert.equal(exporter.getFinishedSpans().length, 0);
  });
});
