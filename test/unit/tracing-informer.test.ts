/**
 * Issue 41 item 3, the informers' own phases as spans (tracing/informer-span.ts), on a fake lister-watcher and the
 * SDK's in-memory exporter: a `list <informer>` span with its page count, item count and resourceVersion whose
 * requests run in its context; a `watch <informer>` span per watch with `established`, `bookmark` and, after a 410,
 * `expired` → relist, the relist linked to that watch; a WatchList stream's `initial events end`, a refused one
 * `rejected`; nothing while tracing is off.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { ListOptions, WatchOptions } from '@kubegen/runtime/internal/client/interfaces.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { Indexer } from '@kubegen/runtime/internal/cache/indexer.js';
import { Reflector } from '@kubegen/runtime/internal/cache/reflector.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { FakeListerWatcher, type FakeListerWatcherOptions } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { enableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';
import { settle } from '../support/wait.js';

const foo = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name } });

/** A fake lister-watcher that notes the span current in each list and watch call (as the transport would parent to). */
class SpyListerWatcher extends FakeListerWatcher<KubeObject> {
  readonly listParents: (string | undefined)[] = [];
  readonly watchParents: (string | undefined)[] = [];
  constructor(opts?: FakeListerWatcherOptions) {
    super(opts);
  }
  override list(opts: ListOptions) {
    this.listParents.push(trace.getActiveSpan()?.spanContext().spanId);
    return super.list(opts);
  }
  override watch(opts: WatchOptions) {
    this.watchParents.push(trace.getActiveSpan()?.spanContext().spanId);
    return super.watch(opts);
  }
}

function setup(opts?: FakeListerWatcherOptions) {
  const lw = new SpyListerWatcher(opts);
  for (let i = 0; i < 5; i++) lw.upsert(foo(`f${i}`));
  const clock = new FakeClock(1_000_000);
  const r = new Reflector(lw, new Indexer<KubeObject>(), { name: 'foos', clock, logger: nullLogger, random: () => 0, backoff: { random: () => 0 }, pageSize: 2 });
  return { lw, r, clock };
}

const events = (s: ReadableSpan) => s.events.map((e) => [e.name, e.attributes?.['k8s.resource_version'] ?? e.attributes?.['kubegen.watch.next'] ?? e.attributes?.['kubegen.list.items']]);

describe('informer spans', () => {
  const { exporter, provider } = inMemoryTracing();

  it('none while tracing is off', async () => {
    const { lw, r } = setup();
    void r.run();
    await settle(() => lw.openWatches === 1, 'the watch', 500);
    await r.stop();
    assert.equal(exporter.getFinishedSpans().length, 0);
    assert.deepEqual(lw.listParents, [undefined, undefined, undefined]);
  });

  it('list in pages, watch with bookmarks, 410 → a relist linked to the expired watch', async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const { lw, r } = setup();
    void r.run();
    await settle(() => lw.openWatches === 1, 'the watch', 500);
    const listRV = lw.resourceVersion;
    lw.upsert(foo('new'));
    lw.bookmark();
    const bookmarkRV = lw.resourceVersion;
    await settle(() => r.lastSyncResourceVersion === bookmarkRV, 'the bookmark', 500);
    lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
    await settle(() => lw.watchCalls.length === 2 && lw.openWatches === 1, 'the relist and its watch', 500);
    await r.stop();

    const spans = exporter.getFinishedSpans();
    const lists = spans.filter((s) => s.name === 'list foos');
    const watches = spans.filter((s) => s.name === 'watch foos');
    assert.equal(lists.length, 2);
    assert.equal(watches.length, 2);
    const [first, relist] = lists as [ReadableSpan, ReadableSpan];
    assert.equal(first.kind, SpanKind.INTERNAL);
    assert.equal(first.parentSpanContext, undefined, 'a root span');
    assert.deepEqual(
      [first.attributes['kubegen.informer'], first.attributes['kubegen.list.reason'], first.attributes['kubegen.list.pages'], first.attributes['kubegen.list.items'], first.attributes['k8s.resource_version']],
      ['foos', 'initial', 3, 5, listRV],
    );
    assert.deepEqual(lw.listParents.slice(0, 3), Array(3).fill(first.spanContext().spanId), "the pages' requests run in the list span's context");

    const [watch, rewatch] = watches as [ReadableSpan, ReadableSpan];
    assert.equal(lw.watchParents[0], watch.spanContext().spanId, "the watch request runs in the watch span's context");
    assert.deepEqual(events(watch), [['established', undefined], ['bookmark', bookmarkRV], ['expired', 'relist']]);
    assert.deepEqual([watch.attributes['kubegen.watch.resource_version'], watch.attributes['kubegen.watch.outcome'], watch.attributes['kubegen.watch.events']], [listRV, 'expired', 3]);
    assert.equal(watch.status.code, SpanStatusCode.UNSET, 'a 410 is no error');

    assert.equal(relist.attributes['kubegen.list.reason'], 'expired');
    assert.deepEqual(relist.links.map((l) => l.context.spanId), [watch.spanContext().spanId], 'the relist links to the watch whose 410 caused it');
    assert.deepEqual(relist.attributes['kubegen.list.items'], 6);
    assert.deepEqual([rewatch.attributes['kubegen.watch.outcome'], events(rewatch)], ['ended', [['established', undefined], ['ended', undefined]]], 'stopped: ended, nothing next');
  });

  it('a failed list ends its span with the error', async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const { lw, r, clock } = setup();
    lw.listErrors.push(new ApiError(newStatus(500, 'InternalError', 'boom')));
    void r.run();
    await settle(() => lw.listCalls.length === 1, 'the failed list', 500);
    await settle(() => {
      clock.step(1000); // past the relist backoff
      return lw.openWatches === 1;
    }, 'the watch after the retried list', 2000);
    await r.stop();
    const lists = exporter.getFinishedSpans().filter((s) => s.name === 'list foos');
    assert.deepEqual(lists.map((s) => [s.attributes['kubegen.list.reason'], s.status.code]), [['initial', SpanStatusCode.ERROR], ['error', SpanStatusCode.UNSET]]);
  });

  it('a WatchList request the server refuses: a `rejected` watch span (no error), then a list', async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const { lw, r } = setup({ watchList: 'rejected' });
    void r.run();
    await settle(() => lw.openWatches === 1, 'the watch after the list', 500);
    await r.stop();
    const spans = exporter.getFinishedSpans();
    const [refused] = spans.filter((s) => s.name === 'watch foos');
    assert.deepEqual([refused?.attributes['kubegen.watch.send_initial_events'], refused?.attributes['kubegen.watch.outcome'], refused?.status.code], [true, 'rejected', SpanStatusCode.UNSET]);
    assert.equal(spans.filter((s) => s.name === 'list foos').length, 1);
  });

  it('a WatchList stream: one watch span with its initial events end', async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const { lw, r } = setup({ watchList: 'supported' });
    void r.run();
    await settle(() => r.lastSyncResourceVersion !== '', 'the initial state', 500);
    await r.stop();
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.filter((s) => s.name === 'list foos').length, 0);
    const [w] = spans.filter((s) => s.name === 'watch foos');
    assert.equal(w?.attributes['kubegen.watch.send_initial_events'], true);
    assert.deepEqual(events(w!).slice(0, 2), [['established', undefined], ['initial events end', lw.resourceVersion]]);
  });
});
