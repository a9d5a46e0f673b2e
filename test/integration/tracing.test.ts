/**
 * Issue 41: OpenTelemetry traces of a controller, exported through the real SDK over OTLP/HTTP (JSON and protobuf at
 * once, two exporters) to a receiver this file runs (support/otlp-receiver.ts), from a manager reconciling
 * ConfigMaps on envtest:
 * - one `reconcile traced` span per reconcile (as many as the debug `Reconciling` lines, the same reconcileIDs),
 *   naming the controller, the kind and the object; the reconcile's API calls are CLIENT spans beneath it with
 *   method, verb, resource and status code; the span links to the informer's `watch <informer>` span that
 *   delivered the event that enqueued it (for an object of the informer's initial state, its list span or WatchList
 *   stream), the event (type, resourceVersion, source) on the link, and three updates coalesced into one request are
 *   all linked; no span is exported per event;
 * - the log lines written during a reconcile carry its `trace_id` / `span_id`;
 * - the informer's own phases: its initial state as a `list <informer>` span over its page requests (page count) or
 *   a WatchList `watch <informer>` span with its initial-events end, and a `watch <informer>` span established over
 *   its watch request;
 * - a webhook request sent with a `traceparent` yields a SERVER span in that trace, under the caller's span;
 * - examples/fanout started with only `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` and
 *   `OTEL_SERVICE_NAME` exports its reconcile and client spans; started without them it loads no OpenTelemetry SDK
 *   module, and the runtime does not import the api (a resolve hook, `--import`ed, reports every `@opentelemetry/`
 *   module resolved and who asked; it reports the SDK in the first run, so it can fail). The api itself is loaded
 *   anyway: prom-client 15 requires it for its process metrics.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { generateServingCertificate, writeServingCertificate } from '@kubegen/runtime/internal/certs/self-signed.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { createLogger, nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';
import { disableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { admissionWebhook, allowed } from '@kubegen/runtime/internal/webhook/admission.js';
import { WebhookServer } from '@kubegen/runtime/internal/webhook/server.js';
import { batchResource, taskResource } from '../../examples/fanout/src/generated/fanout.kubegen.io/v1alpha1/register.js';
import { REPO_ROOT } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { ensureExampleBuilt, freePort, SampleControllerProcess } from './support/sample-controller-process.js';

const FANOUT_CRDS = ['batches', 'tasks'].map((p) => path.join(REPO_ROOT, `examples/fanout/config/crd/fanout.kubegen.io_${p}.yaml`));
const INTERNAL = 1;
const CLIENT = 3;
const SERVER = 2;
const CONSUMER = 5;

type ConfigMap = KubeObject & { data?: Record<string, string> };

describe('tracing (issue 41)', () => {
  let env: TestEnv;
  let receiver: OtlpReceiver;
  let provider: NodeTracerProvider;
  let ns: string;

  before(async () => {
    env = await sharedEnv({ crdPaths: FANOUT_CRDS });
    ns = await env.newNamespace('tracing');
    receiver = await OtlpReceiver.start();
    const url = `${receiver.endpoint}/v1/traces`;
    provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'tracing-test' }),
      spanProcessors: [
        new BatchSpanProcessor(new JsonExporter({ url }), { scheduledDelayMillis: 50 }),
        new BatchSpanProcessor(new ProtoExporter({ url }), { scheduledDelayMillis: 50 }),
      ],
    });
    // The async-hooks context manager and the W3C propagator, as NodeSDK.start() would.
    provider.register();
  });

  after(async () => {
    disableTracing();
    await provider?.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    await receiver?.close();
    await env?.release();
  });

  /** The spans received in `encoding` (each span comes once per exporter). */
  const received = (encoding: 'json' | 'protobuf'): ReceivedSpan[] => receiver.spans.filter((s) => s.encoding === encoding);

  it('a reconcile span per reconcile, its API calls as children, links to the watch events, trace ids in the logs', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
    const transport = env.newTransport();
    const mgr = new Manager({ transport, namespace: ns, metricsBindAddress: '0', healthProbeBindAddress: '0', registry: new Registry(), logger, tracerProvider: provider });
    const cms = new ResourceClient<ConfigMap>(transport, builtinResources.configMaps, ns);
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    controllerFor(mgr, builtinResources.configMaps)
      .named('traced')
      .complete(async (req, ctx) => {
        const cm = await cms.get(req.name);
        if (req.name === 'slow' && cm.data?.['step'] === undefined) await slowGate;
        ctx.log.info('seen', { step: cm.data?.['step'] ?? null });
        if (cm.metadata?.annotations?.['traced'] === undefined) await cms.patch(req.name, { type: 'merge', patch: { metadata: { annotations: { traced: 'yes' } } } });
      });
    const stop = new AbortController();
    // 'listed' exists before the manager starts: it comes with the informer's initial state (a list, or a WatchList
    // stream), the others later, on its watch.
    const listed = (await cms.create({ metadata: { name: 'listed' } })).metadata!.resourceVersion!;
    const run = mgr.start(stop.signal);
    try {
      const informer = mgr.getInformer<ConfigMap>(builtinResources.configMaps);
      await eventually(async () => assert.ok(informer.hasSynced(), 'the informer synced'), { timeoutMs: 20_000 });
      const created = new Map<string, string>();
      for (const name of ['a', 'b', 'slow']) created.set(name, (await cms.create({ metadata: { name } })).metadata!.resourceVersion!);
      // 'slow' is held in its first reconcile: three updates meanwhile become one request with three events.
      await eventually(async () => assert.ok(lines.some((l) => l['msg'] === 'Reconciling' && l['name'] === 'slow')), { timeoutMs: 20_000 });
      const stepVersions: string[] = [];
      for (const step of ['1', '2', '3']) stepVersions.push((await cms.patch('slow', { type: 'merge', patch: { data: { step } } })).metadata!.resourceVersion!);
      // The three update events handled (so enqueued while 'slow' is held) before it is released.
      await eventually(
        async () => {
          assert.equal(informer.getIndexer().getByKey(`${ns}/slow`)?.metadata?.resourceVersion, stepVersions[2], 'the last update is in the cache');
          assert.equal(informer.queuedItems, 0, 'and handled');
        },
        { timeoutMs: 20_000 },
      );
      releaseSlow();
      await eventually(
        async () => {
          for (const name of [...created.keys(), 'listed']) assert.equal((await cms.get(name)).metadata?.annotations?.['traced'], 'yes', name);
          assert.ok(lines.some((l) => l['msg'] === 'seen' && l['name'] === 'slow' && l['step'] === '3'), 'slow reconciled after the updates');
        },
        { timeoutMs: 20_000 },
      );
      stop.abort();
      await run;
      // The informers' watch spans end as their reflectors stop, which the manager's run does not wait for.
      await eventually(
        async () => {
          await provider.forceFlush();
          for (const encoding of ['json', 'protobuf'] as const) {
            const spans = received(encoding);
            assert.ok(spans.some((s) => s.name.startsWith('watch ') && s.events[0]?.name === 'established'), 'a watch span ended');
            const ids = new Set(spans.map((s) => s.spanId));
            for (const r of spans.filter((s) => s.name === 'reconcile traced')) for (const l of r.links) assert.ok(ids.has(l.spanId), `${encoding}: the span a link points at is exported`);
          }
        },
        { timeoutMs: 10_000 },
      );

      const reconciling = lines.filter((l) => l['msg'] === 'Reconciling' && l['controller'] === 'traced');
      assert.equal(lines.filter((l) => l['msg'] === 'Reconcile successful' && l['controller'] === 'traced').length, reconciling.length, 'debug: every reconcile logs its start and its end');
      for (const encoding of ['json', 'protobuf'] as const) {
        const spans = received(encoding);
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        const reconciles = spans.filter((s) => s.name === 'reconcile traced');
        assert.equal(reconciles.length, reconciling.length, `${encoding}: one reconcile span per reconcile`);
        assert.deepEqual(new Set(reconciles.map((s) => s.attributes['kubegen.reconcile_id'])), new Set(reconciling.map((l) => l['reconcileID'])), encoding);
        for (const line of reconciling) {
          const span = reconciles.find((s) => s.attributes['kubegen.reconcile_id'] === line['reconcileID'])!;
          assert.deepEqual([line['trace_id'], line['span_id']], [span.traceId, span.spanId], `${encoding}: the Reconciling line names its span`);
          assert.equal(span.parentSpanId, '', 'a reconcile starts a trace');
          assert.equal(span.attributes['kubegen.controller'], 'traced');
          assert.deepEqual([span.attributes['k8s.resource.group'], span.attributes['k8s.resource.kind']], ['', 'ConfigMap']);
          assert.deepEqual([span.attributes['k8s.namespace.name'], span.attributes['k8s.object.name']], [ns, line['name']]);
          assert.equal(span.attributes['kubegen.reconcile.result'], 'success');
          assert.equal(span.attributes['kubegen.reconcile.attempt'], 1);
        }
        for (const l of lines.filter((x) => x['msg'] === 'seen')) {
          assert.ok(reconciles.some((s) => s.traceId === l['trace_id'] && s.spanId === l['span_id']), `${encoding}: a reconciler's own line carries its reconcile's ids`);
        }

        // Each object's first reconcile: GET and PATCH of configmaps/<name>, children of its span; linked to the create event.
        for (const [name, rv] of created) {
          const first = reconciles.find((s) => s.attributes['k8s.object.name'] === name && s.links.some((l) => l.attributes['k8s.event.type'] === 'create'));
          assert.ok(first, `${encoding}: ${name}'s reconcile links to its create event`);
          const link = first.links.find((l) => l.attributes['k8s.event.type'] === 'create')!;
          assert.equal(link.attributes['k8s.resource_version'], rv, 'the event of the object as created');
          assert.equal(typeof link.attributes['kubegen.source'], 'string');
          assert.equal(link.attributes['k8s.object.name'], name);
          const watch = byId.get(link.spanId);
          assert.ok(watch && watch.kind === INTERNAL && watch.name === `watch ${watch.attributes['kubegen.informer']}` && watch.traceId === link.traceId, `${encoding}: the link points at the informer's exported watch span`);
          assert.equal(link.attributes['kubegen.source'], watch.attributes['kubegen.informer'], `${encoding}: the link names the informer it came from`);
          const children = spans.filter((s) => s.parentSpanId === first.spanId && s.traceId === first.traceId);
          for (const s of children) assert.equal(s.kind, CLIENT);
          const calls = children.map((s) => [s.attributes['http.request.method'], s.attributes['k8s.verb'], s.attributes['k8s.resource'], s.attributes['k8s.object.name'], s.attributes['http.response.status_code']]);
          assert.deepEqual(calls, [['GET', 'get', 'configmaps', name, 200], ['PATCH', 'patch', 'configmaps', name, 200]], `${encoding}: ${name}'s API calls`);
          assert.deepEqual([children[1]!.name, children[1]!.attributes['k8s.namespace.name']], ['patch configmaps', ns]);
        }
        // 'listed': its reconcile links to the span of the informer's initial state, the list or the WatchList stream.
        const listedReconcile = reconciles.find((s) => s.attributes['k8s.object.name'] === 'listed' && s.links.length > 0);
        assert.ok(listedReconcile, `${encoding}: listed's reconcile has a link`);
        const [link] = listedReconcile.links;
        assert.deepEqual([link!.attributes['k8s.event.type'], link!.attributes['k8s.resource_version']], ['create', listed]);
        const initial = byId.get(link!.spanId);
        assert.ok(
          initial && (initial.name.startsWith('list ') || (initial.name.startsWith('watch ') && initial.attributes['kubegen.watch.send_initial_events'] === true)),
          `${encoding}: a listed object's link points at the list span (or the WatchList stream's watch span), not ${initial?.name}`,
        );
        // The three updates of 'slow' made while it was held: one reconcile, linked to each.
        const coalesced = reconciles.filter((s) => s.attributes['k8s.object.name'] === 'slow' && stepVersions.every((rv) => s.links.some((l) => l.attributes['k8s.resource_version'] === rv)));
        assert.equal(coalesced.length, 1, `${encoding}: one reconcile links all three coalesced update events`);
        for (const l of coalesced[0]!.links) {
          assert.equal(l.attributes['k8s.event.type'], 'update');
          assert.ok(byId.get(l.spanId)?.name.startsWith('watch '), `${encoding}: a coalesced update links to its watch span`);
        }
        assert.deepEqual(spans.filter((s) => s.kind === CONSUMER || (s.kind !== CLIENT && /^(create|update|delete) /.test(s.name))), [], `${encoding}: no span per event`);

        // The informer's own phases: the initial state (a list, or a WatchList stream), then a watch; requests beneath.
        const informerSpans = spans.filter((s) => s.kind === INTERNAL && s.attributes['kubegen.informer'] !== undefined);
        const lists = informerSpans.filter((s) => s.name.startsWith('list '));
        const watches = informerSpans.filter((s) => s.name.startsWith('watch '));
        const beneath = (p: ReceivedSpan): ReceivedSpan[] => spans.filter((s) => s.parentSpanId === p.spanId && s.traceId === p.traceId);
        for (const list of lists) {
          assert.equal(list.parentSpanId, '', 'a list starts a trace');
          const pages = beneath(list);
          assert.deepEqual(pages.map((s) => [s.kind, s.attributes['k8s.verb']]), pages.map(() => [CLIENT, 'list']), `${encoding}: a list's requests are its children`);
          assert.equal(list.attributes['kubegen.list.pages'], pages.length, `${encoding}: the page count`);
        }
        const streamed = watches.filter((w) => w.events.some((e) => e.name === 'initial events end'));
        assert.ok(lists.length + streamed.length >= 1, `${encoding}: the initial state has a span (a list or a WatchList stream)`);
        // (A watch being opened as the manager stopped ends without `established`.)
        const established = watches.filter((w) => w.events[0]?.name === 'established');
        assert.ok(established.length >= 1, `${encoding}: an established watch span`);
        for (const w of established) {
          assert.deepEqual(beneath(w).map((s) => [s.kind, s.attributes['k8s.verb']]), [[CLIENT, 'watch']], `${encoding}: the watch request beneath its span`);
        }
      }
      assert.deepEqual(new Set(received('json').map((s) => s.spanId)), new Set(received('protobuf').map((s) => s.spanId)), 'both exporters sent the same spans');
      assert.ok(receiver.contentTypes.includes('application/json') && receiver.contentTypes.includes('application/x-protobuf'));
    } finally {
      stop.abort();
      await run.catch(() => undefined);
      transport.close();
    }
  });

  it("a webhook request with a traceparent yields a server span in the caller's trace", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-tracing-certs-'));
    const certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(dir, certs);
    const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: nullLogger });
    server.register('/validate-configmap', admissionWebhook(() => allowed()));
    try {
      const address = await server.listen();
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = '00f067aa0ba902b7';
      const review = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u1', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE', namespace: ns, name: 'w', object: { metadata: { name: 'w' } }, userInfo: {} },
      };
      const status = await new Promise<number>((resolve, reject) => {
        const req = https.request(`https://${address}/validate-configmap`, { method: 'POST', ca: certs.caCert, headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${parentId}-01` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify(review));
      });
      assert.equal(status, 200);
      await provider.forceFlush();
      for (const encoding of ['json', 'protobuf'] as const) {
        const span = received(encoding).find((s) => s.traceId === traceId);
        assert.ok(span, `${encoding}: a span in the caller's trace`);
        assert.deepEqual([span.kind, span.parentSpanId, span.name], [SERVER, parentId, 'webhook /validate-configmap']);
        assert.deepEqual(
          [span.attributes['kubegen.webhook.type'], span.attributes['k8s.resource.kind'], span.attributes['kubegen.admission.operation'], span.attributes['kubegen.admission.allowed'], span.attributes['kubegen.admission.patch_bytes'], span.attributes['http.response.status_code']],
          ['admission', 'ConfigMap', 'CREATE', true, 0, 200],
        );
      }
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('examples/fanout', () => {
    let hookDir: string;
    let hook: string;
    before(() => {
      hookDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-otel-hook-'));
      hook = path.join(hookDir, 'report-otel.mjs');
      // Every module resolved (import or require) under node_modules/@opentelemetry/ is reported on stderr.
      fs.writeFileSync(
        hook,
        [
          "import { registerHooks } from 'node:module';",
          "process.stderr.write('otel-hook active\\n');",
          'registerHooks({ resolve(specifier, context, next) {',
          '  const r = next(specifier, context);',
          "  if (r.url.includes('/@opentelemetry/')) process.stderr.write(`otel-module-loaded ${r.url} from ${context.parentURL}\\n`);",
          '  return r;',
          '} });',
          '',
        ].join('\n'),
      );
    });
    after(() => fs.rmSync(hookDir, { recursive: true, force: true }));

    const startFanout = async (name: string, nsName: string, env2: Record<string, string>): Promise<SampleControllerProcess> => {
      const port = await freePort();
      return new SampleControllerProcess(
        name,
        [`--kubeconfig=${env.kubeconfigPath}`, `--namespace=${nsName}`, `--metrics-bind-address=127.0.0.1:${port}`, '--health-probe-bind-address=0'],
        { NODE_OPTIONS: `--import=${pathToUrl(hook)}`, ...env2 },
        ensureExampleBuilt('fanout'),
      );
    };

    const makeBatch = async (nsName: string): Promise<void> => {
      const batches = new ResourceClient<KubeObject>(env.transport, batchResource, nsName);
      const tasks = new ResourceClient<KubeObject>(env.transport, taskResource, nsName);
      await batches.create({ apiVersion: 'fanout.kubegen.io/v1alpha1', kind: 'Batch', metadata: { name: 'one' }, spec: { tasks: 2 } } as KubeObject);
      await eventually(async () => assert.equal((await tasks.list()).items?.length, 2), { timeoutMs: 30_000 });
    };

    it('started with only OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL=http/json and OTEL_SERVICE_NAME, exports its spans', async () => {
      const fanoutNs = await env.newNamespace('tracing-fanout');
      const own = await OtlpReceiver.start();
      const proc = await startFanout('fanout-traced', fanoutNs, { OTEL_EXPORTER_OTLP_ENDPOINT: own.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'fanout-traced' });
      try {
        await makeBatch(fanoutNs);
        // The SDK's batch processor exports every 5 s by default.
        await eventually(
          async () => {
            const reconcile = own.spans.find((s) => s.name === 'reconcile fanout' && s.attributes['k8s.object.name'] === 'one');
            assert.ok(reconcile, 'a reconcile span of the Batch');
            assert.equal(reconcile.resource['service.name'], 'fanout-traced');
            const calls = own.spans.filter((s) => s.parentSpanId === reconcile.spanId && s.kind === CLIENT);
            assert.ok(calls.some((s) => s.attributes['http.request.method'] === 'POST' && s.attributes['k8s.resource'] === 'tasks'), 'its Task creations are client spans beneath it');
          },
          { timeoutMs: 30_000 },
        );
        assert.deepEqual(new Set(own.contentTypes), new Set(['application/json']), 'http/json as asked');
        assert.ok(proc.lines.some((l) => l.msg.startsWith('otel-module-loaded') && l.msg.includes('/@opentelemetry/sdk-trace-node/')), 'the hook reports the SDK it loaded');
      } finally {
        await proc.kill();
        await own.close();
      }
    });

    it('started without them, loads no OpenTelemetry SDK module', async () => {
      const fanoutNs = await env.newNamespace('tracing-fanout-off');
      const proc = await startFanout('fanout-untraced', fanoutNs, {});
      try {
        await makeBatch(fanoutNs);
        assert.ok(proc.lines.some((l) => l.msg === 'otel-hook active'), 'the hook ran');
        const loaded = proc.lines.filter((l) => l.msg.startsWith('otel-module-loaded ')).map((l) => l.msg.split(' ') as [string, string, string, string]);
        assert.deepEqual(loaded.filter(([, url]) => !url.includes('/node_modules/@opentelemetry/api/')).map(([, url]) => url), [], 'no SDK, exporter or other OpenTelemetry module');
        // prom-client's process metrics require the api (a no-op facade without an SDK); the runtime does not import it.
        const importers = new Set(loaded.map(([, , , parent]) => parent).filter((parent) => !parent.includes('/node_modules/@opentelemetry/')));
        for (const parent of importers) assert.match(parent, /\/node_modules\/prom-client\//, `@opentelemetry/api imported by ${parent}`);
      } finally {
        await proc.kill();
      }
    });
  });
});

function pathToUrl(p: string): string {
  return new URL(`file://${p}`).href;
}
