/**
 * Issue 41, the runtime's tracing without an apiserver (the SDK's in-memory exporter; envtest and OTLP are in
 * test/integration/tracing.test.ts): request paths parsed into verb, resource, subresource, namespace and name;
 * off by default (no span, no trace fields on log lines); a reconcile span with its result, its exception event,
 * its links to the events handled when the request was enqueued (to the informer span each came from, the event on
 * the link; coalesced ones all kept; no span per event; tracing-links.test.ts has them from a real informer) and the user's own span
 * nested beneath it; a client span per transport request whose `traceparent` header names it, with each HTTP engine
 * (`node-http2` speaks HTTP/1.1 to an `http://` server; its HTTP/2 path is the integration test's).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { HTTP_ENGINES, HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { Controller } from '@kubegen/runtime/internal/controller/controller.js';
import { createLogger } from '@kubegen/runtime/internal/log.js';
import { TerminalError } from '@kubegen/runtime/internal/reconcile/index.js';
import { duringEvent } from '@kubegen/runtime/internal/tracing/event-links.js';
import { setDeliveringOrigin } from '@kubegen/runtime/internal/tracing/event-origin.js';
import { disableTracing, enableTracing, traceLogFields } from '@kubegen/runtime/internal/tracing/otel.js';
import { parseRequestTarget } from '@kubegen/runtime/internal/tracing/client-span.js';
import { isTracingEnabled } from '@kubegen/runtime/internal/tracing/index.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

describe('parseRequestTarget', () => {
  it('names the verb, group, resource, subresource, namespace and name of a request path', () => {
    assert.deepEqual(parseRequestTarget('GET', '/api/v1/namespaces/ns/pods/p1/status', false), { verb: 'get', group: '', namespace: 'ns', resource: 'pods', name: 'p1', subresource: 'status' });
    assert.deepEqual(parseRequestTarget('GET', '/apis/apps/v1/deployments?limit=500', false), { verb: 'list', group: 'apps', resource: 'deployments' });
    assert.deepEqual(parseRequestTarget('GET', '/apis/apps/v1/namespaces/ns/deployments?watch=true&resourceVersion=5', false), { verb: 'watch', group: 'apps', namespace: 'ns', resource: 'deployments' });
    assert.equal(parseRequestTarget('GET', '/api/v1/pods', true).verb, 'watch');
    assert.equal(parseRequestTarget('POST', '/api/v1/namespaces/ns/configmaps', false).verb, 'create');
    assert.equal(parseRequestTarget('PUT', '/api/v1/namespaces/ns/configmaps/c', false).verb, 'update');
    assert.equal(parseRequestTarget('PATCH', '/api/v1/namespaces/ns/configmaps/c', false).verb, 'patch');
    assert.equal(parseRequestTarget('DELETE', '/api/v1/namespaces/ns/configmaps/c', false).verb, 'delete');
    assert.equal(parseRequestTarget('DELETE', '/api/v1/namespaces/ns/configmaps', false).verb, 'deletecollection');
    assert.deepEqual(parseRequestTarget('GET', '/api/v1/namespaces/n%2Fx', false), { verb: 'get', group: '', resource: 'namespaces', name: 'n/x' });
    assert.deepEqual(parseRequestTarget('GET', '/version', false), { verb: 'get' });
  });
});

describe('tracing', () => {
  const { exporter, provider } = inMemoryTracing();

  before(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    // The user's own spans come from the global provider (what NodeSDK or provider.register() set).
    trace.setGlobalTracerProvider(provider);
  });
  after(() => propagation.disable());

  /** A controller reconciling with `fn`, its log lines in `lines`. */
  function controller(fn: ConstructorParameters<typeof Controller>[0]['reconciler'], lines: Record<string, unknown>[]): Controller {
    const logger = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
    return new Controller({ name: 'unit', reconciler: fn, registry: new Registry(), logger, skipNameValidation: true, forKind: { group: 'apps', kind: 'Deployment' } });
  }

  /** Runs `c` until `n` reconciles have logged `Reconcile successful` or an error. */
  async function runUntil(c: Controller, lines: Record<string, unknown>[], n: number): Promise<void> {
    const done = c.start();
    const deadline = Date.now() + 5000;
    while (lines.filter((l) => l['msg'] === 'Reconcile successful' || l['msg'] === 'Reconciler error').length < n) {
      assert.ok(Date.now() < deadline, 'reconciles did not finish');
      await new Promise((r) => setTimeout(r, 5));
    }
    c.stop();
    await done;
  }

  it('is off until enabled: no span, no trace fields on log lines', async () => {
    assert.equal(isTracingEnabled(), false);
    const lines: Record<string, unknown>[] = [];
    const c = controller(async () => undefined, lines);
    duringEvent('create', 'deployments', { metadata: { name: 'a', resourceVersion: '1' } }, () => c.sink.add({ namespace: 'ns', name: 'a' }));
    await runUntil(c, lines, 1);
    assert.equal(exporter.getFinishedSpans().length, 0);
    assert.ok(lines.some((l) => l['msg'] === 'Reconciling'), 'the debug start line');
    for (const l of lines) assert.equal(l['trace_id'], undefined);
    assert.equal(traceLogFields(), undefined);
  });

  it('a reconcile span: attributes, result, links to the events that enqueued it, the user span beneath', async () => {
    assert.equal(await enableTracing({ tracerProvider: provider }), true);
    exporter.reset();
    const lines: Record<string, unknown>[] = [];
    let flaky = 0;
    const c = controller(async (req, ctx) => {
      trace.getTracer('user').startActiveSpan('user work', (s) => {
        ctx.log.info('inside');
        s.end();
      });
      if (req.name === 'later') return { requeueAfterMs: 60_000 };
      if (req.name === 'bad') throw new TerminalError(new Error('no way'));
      if (req.name === 'flaky' && flaky++ === 0) throw new Error('once');
      return undefined;
    }, lines);
    // The informer spans the events came from (as a listener makes them current while it delivers).
    const watchSpan = trace.getTracer('informers').startSpan('watch deployments');
    const listSpan = trace.getTracer('informers').startSpan('list replicasets');
    watchSpan.end();
    listSpan.end();
    const from = (origin: typeof watchSpan | undefined, fn: () => void): void => {
      setDeliveringOrigin(origin?.spanContext());
      try {
        fn();
      } finally {
        setDeliveringOrigin(undefined);
      }
    };
    // Two events coalesced into one request, one enqueued outside any event and one from an event of no informer
    // span (a resync): no link.
    from(watchSpan, () => duringEvent('create', 'deployments', { metadata: { namespace: 'ns', name: 'a', resourceVersion: '1' } }, () => c.sink.add({ namespace: 'ns', name: 'a' })));
    from(watchSpan, () => duringEvent('update', 'deployments', { metadata: { namespace: 'ns', name: 'a', resourceVersion: '2' } }, () => c.sink.add({ namespace: 'ns', name: 'a' })));
    c.sink.add({ namespace: 'ns', name: 'later' });
    from(undefined, () => duringEvent('update', 'deployments', { metadata: { namespace: 'ns', name: 'later', resourceVersion: '3' } }, () => c.sink.add({ namespace: 'ns', name: 'later' })));
    from(listSpan, () => duringEvent('delete', 'replicasets', { metadata: { namespace: 'ns', name: 'rs', resourceVersion: '7' } }, () => c.sink.addWithOpts!({}, { namespace: 'ns', name: 'bad' })));
    c.sink.add({ namespace: 'ns', name: 'flaky' });
    await runUntil(c, lines, 5);

    const spans = exporter.getFinishedSpans();
    const flakySpans = spans.filter((s) => s.name === 'reconcile unit' && s.attributes['k8s.object.name'] === 'flaky');
    assert.deepEqual(flakySpans.map((s) => [s.attributes['kubegen.reconcile.attempt'], s.attributes['kubegen.reconcile.result'], s.attributes['error.type']]), [[1, 'error', 'Error'], [2, 'success', undefined]], 'a retry is attempt 2');
    const reconciles = new Map(spans.filter((s) => s.name === 'reconcile unit' && s.attributes['k8s.object.name'] !== 'flaky').map((s) => [s.attributes['k8s.object.name'] as string, s]));
    assert.deepEqual([...reconciles.keys()].sort(), ['a', 'bad', 'later']);
    const a = reconciles.get('a')!;
    assert.equal(a.kind, SpanKind.INTERNAL);
    assert.deepEqual(
      [a.attributes['kubegen.controller'], a.attributes['k8s.resource.group'], a.attributes['k8s.resource.kind'], a.attributes['k8s.namespace.name'], a.attributes['kubegen.reconcile.attempt'], a.attributes['kubegen.reconcile.result']],
      ['unit', 'apps', 'Deployment', 'ns', 1, 'success'],
    );
    assert.equal(typeof a.attributes['kubegen.reconcile_id'], 'string');
    assert.deepEqual(a.links.map((l) => [l.attributes?.['k8s.event.type'], l.attributes?.['k8s.resource_version'], l.attributes?.['kubegen.source']]), [['create', '1', 'deployments'], ['update', '2', 'deployments']]);
    assert.deepEqual(a.links.map((l) => l.context.spanId), [watchSpan.spanContext().spanId, watchSpan.spanContext().spanId], 'both link to the watch span');
    assert.deepEqual(spans.filter((s) => s.kind === SpanKind.CONSUMER || s.name.startsWith('create ') || s.name.startsWith('update ')), [], 'no span per event');
    const user = spans.find((s) => s.name === 'user work' && s.spanContext().traceId === a.spanContext().traceId);
    assert.equal(user?.parentSpanContext?.spanId, a.spanContext().spanId, "the user's span nests under the reconcile's");
    const inside = lines.find((l) => l['msg'] === 'inside' && l['name'] === 'a')!;
    assert.deepEqual([inside['trace_id'], inside['span_id']], [a.spanContext().traceId, a.spanContext().spanId]);

    const later = reconciles.get('later')!;
    assert.deepEqual([later.attributes['kubegen.reconcile.result'], later.attributes['kubegen.reconcile.requeue_after_ms'], later.links.length], ['requeue_after', 60_000, 0]);
    const bad = reconciles.get('bad')!;
    assert.equal(bad.attributes['kubegen.reconcile.result'], 'terminal');
    assert.equal(bad.status.code, SpanStatusCode.ERROR);
    assert.deepEqual(bad.events.map((e) => [e.name, e.attributes?.['exception.message']]), [['exception', 'no way']]);
    assert.deepEqual(bad.links.map((l) => [l.context.spanId, l.attributes?.['kubegen.source'], l.attributes?.['k8s.event.type']]), [[listSpan.spanContext().spanId, 'replicasets', 'delete']]);
    const error = lines.find((l) => l['msg'] === 'Reconciler error')!;
    assert.equal(error['trace_id'], bad.spanContext().traceId, "the error line names the reconcile's trace");
  });

  for (const engine of HTTP_ENGINES) it(`a client span per request, named in its traceparent header (${engine})`, async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const seen: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers['traceparent'] as string | undefined);
      res.writeHead(req.url?.includes('missing') ? 404 : 200, { 'content-type': 'application/json' }).end(req.url?.includes('missing') ? '{"kind":"Status","code":404,"reason":"NotFound"}' : '{"kind":"ConfigMap"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const transport = new HttpTransport({ server: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` }, { qps: 100, engine });
    try {
      const res = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true };
      await trace.getTracer('user').startActiveSpan('parent', async (parent) => {
        await transport.request({ verb: 'get', resource: res, namespace: 'ns', name: 'c' });
        await assert.rejects(transport.request({ verb: 'get', resource: res, namespace: 'ns', name: 'missing' }));
        parent.end();
      });
      const spans = exporter.getFinishedSpans();
      const parent = spans.find((s) => s.name === 'parent')!;
      const clients = spans.filter((s) => s.kind === SpanKind.CLIENT);
      assert.deepEqual(clients.map((s) => s.name), ['get configmaps', 'get configmaps']);
      for (const [i, s] of clients.entries()) {
        assert.equal(s.parentSpanContext?.spanId, parent.spanContext().spanId);
        assert.equal(seen[i], `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`, 'traceparent names the client span');
        assert.deepEqual([s.attributes['http.request.method'], s.attributes['k8s.verb'], s.attributes['k8s.resource'], s.attributes['k8s.namespace.name']], ['GET', 'get', 'configmaps', 'ns']);
        assert.equal(typeof s.attributes['kubegen.throttle_wait_ms'], 'number');
      }
      assert.deepEqual(clients.map((s) => [s.attributes['k8s.object.name'], s.attributes['http.response.status_code'], s.status.code]), [['c', 200, SpanStatusCode.UNSET], ['missing', 404, SpanStatusCode.ERROR]]);
      disableTracing();
      await transport.request({ verb: 'get', resource: res, namespace: 'ns', name: 'c' });
      assert.equal(seen[2], undefined, 'no traceparent while tracing is off');
      assert.equal(exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT).length, 2);
    } finally {
      transport.close();
      server.close();
    }
  });
});
