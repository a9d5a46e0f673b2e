/**
 * Manager + builder against a real apiserver: a controller for Foo labels every Foo it reconciles, reads through
 * the manager's cache-backed client, and `/metrics` shows controller-runtime's reconcile and workqueue series moving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { FOO } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('Manager (envtest)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('reconciles created Foos and serves moving metrics and probes', async () => {
    const ns = await env.newNamespace('manager');
    const foos = new ResourceClient<KubeObject>(env.transport, FOO, ns);
    const registry = new Registry();
    const mgr = new Manager({
      transport: env.transport,
      namespace: ns,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      registry,
      logger: nullLogger,
    });
    const client = mgr.getClient().resource<KubeObject>(FOO, ns);
    const recorder = mgr.getEventRecorderFor('foo-labeler');
    controllerFor(mgr, FOO)
      .named('foo-labeler')
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(async (req, ctx) => {
        const foo = await client.get(req.name);
        if (foo.metadata?.labels?.['reconciled'] === 'true') return;
        await foos.patch(req.name, { type: 'merge', patch: { metadata: { labels: { reconciled: 'true' } } } }, { signal: ctx.signal });
        recorder.event(foo, 'Normal', 'Labelled', 'added the reconciled label');
      });
    await foos.create({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'before' }, spec: { deploymentName: 'd1', replicas: 1 } } as KubeObject);
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await eventually(async () => mgr.ready, 'cache sync');
      await foos.create({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'after' }, spec: { deploymentName: 'd2', replicas: 1 } } as KubeObject);
      await eventually(async () => {
        const items = (await foos.list()).items;
        return items.length === 2 && items.every((f) => f.metadata?.labels?.['reconciled'] === 'true');
      }, 'both Foos labelled');

      const metrics = await (await fetch(`http://${mgr.metricsAddress}/metrics`)).text();
      const success = /controller_runtime_reconcile_total\{controller="foo-labeler",result="success"\} (\d+)/.exec(metrics);
      assert.ok(success && Number(success[1]) >= 2, `reconcile_total moved:\n${metrics.slice(0, 2000)}`);
      assert.match(metrics, /controller_runtime_max_concurrent_reconciles\{controller="foo-labeler"\} 2/);
      assert.match(metrics, /workqueue_adds_total\{[^}]*name="foo-labeler"[^}]*\} [1-9]/);
      assert.match(metrics, /controller_runtime_reconcile_time_seconds_count\{controller="foo-labeler"\} [1-9]/);
      // client-go's REST client series, from the transport the manager's cache and client use.
      const host = new URL(env.transport.server).host;
      const list = new RegExp(`^rest_client_requests_total\\{code="200",method="GET",host="${host.replace(/[.[\]]/g, '\\$&')}"\\} ([0-9]+)$`, 'm').exec(metrics);
      assert.ok(list && Number(list[1]) >= 2, `rest_client_requests_total for GET 200 on ${host}:\n${metrics.split('\n').filter((l) => l.startsWith('rest_client')).join('\n')}`);
      assert.match(metrics, new RegExp(`^rest_client_requests_total\\{code="200",method="PATCH",host="[^"]+"\\} [1-9]`, 'm'));
      assert.match(metrics, /^rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} [1-9]/m);
      assert.match(metrics, /^rest_client_request_duration_seconds_bucket\{le="0.005",verb="GET",host="[^"]+"\} \d+$/m);
      assert.match(metrics, /^rest_client_request_duration_seconds_count\{verb="GET",host="[^"]+"\} [1-9]/m);
      assert.match(metrics, /^# TYPE rest_client_request_duration_seconds histogram$/m);

      // events.k8s.io/v1 Events (the server serves it), read here through core/v1: the writer is reportingComponent.
      const events = new ResourceClient<KubeObject & { reason?: string; reportingComponent?: string; involvedObject?: { name?: string } }>(env.transport, builtinResources.events, ns);
      await eventually(async () => (await events.list()).items.filter((e) => e.reason === 'Labelled' && e.reportingComponent === 'foo-labeler').length === 2, 'an Event per Foo from getEventRecorderFor');

      assert.equal((await fetch(`http://${mgr.healthProbeAddress}/readyz`)).status, 200);
      assert.equal((await fetch(`http://${mgr.healthProbeAddress}/healthz`)).status, 200);
    } finally {
      stop.abort();
      await run;
    }
  });
});
