/**
 * A manager in the real world, on the fake transport:
 * - one kind its identity may not list holds back only the controller that watches it: the other reconciles, `/readyz`
 *   fails naming the waiting controller (and `/readyz/controller-<name>` says why: the verb, resource, identity and
 *   the RBAC marker), the source gauge says which; once the permission is granted it syncs and reconciles;
 * - start or exit: a port taken, a webhook certificate missing, a runnable that throws, a Lease the identity may not
 *   read: `start` rejects naming the cause, and nothing is left listening.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { LeaderElectionAccessError } from '@kubegen/runtime/internal/leaderelection/leader-elector.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager, RunnableError } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { freePort } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { WebhookServer } from '@kubegen/runtime/internal/webhook/server.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const svc = builtinResources.services;
const USER = 'system:serviceaccount:ops:controller-manager';
const forbiddenList = (resource: string): ApiError =>
  new ApiError(newStatus(403, 'Forbidden', `${resource} is forbidden: User "${USER}" cannot list resource "${resource}" in API group "" at the cluster scope`, { kind: resource }));

const object = (kind: string, name: string): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name, namespace: 'ns' } });

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

/** True when nothing accepts connections on `port` (127.0.0.1). */
function closed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function manager(transport: FakeTransport, extra: Partial<ConstructorParameters<typeof Manager>[0]> = {}): Manager {
  return new Manager({ transport, metricsBindAddress: '0', logger: nullLogger, registry: new Registry(), ...extra });
}

describe('a kind the identity may not list', () => {
  it('holds back only its own controller; readyz names it and why; it starts once allowed', async () => {
    const transport = newFakeTransport([cm, svc], object('ConfigMap', 'a'), object('Service', 's'));
    let denied = true;
    transport.prependReactor('list', 'services', () => (denied ? { handled: true, error: forbiddenList('services') } : undefined));
    const registry = new Registry();
    const mgr = manager(transport, { registry, healthProbeBindAddress: '127.0.0.1:0' });
    const seen: string[] = [];
    controllerFor(mgr, cm).complete(async (req) => void seen.push(`cm:${req.name}`));
    controllerFor(mgr, svc).complete(async (req) => void seen.push(`svc:${req.name}`));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => seen.includes('cm:a'), 'the allowed controller reconciles', 5000);
      const probes = `http://${mgr.healthProbeAddress}`;
      await until(() => transport.actions().some((a) => a.verb === 'list' && a.resource === 'services'), 'services listed', 5000);
      const readyz = await get(`${probes}/readyz?verbose`);
      assert.equal(readyz.status, 500);
      assert.match(readyz.body, /\[\+\]controller-configmap ok/);
      assert.match(readyz.body, /\[-\]controller-service failed/);
      const why = await get(`${probes}/readyz/controller-service`);
      assert.equal(why.status, 500);
      assert.ok(
        why.body.includes(`forbidden: list services (core group) at the cluster scope, as ${USER}; the marker +kubebuilder:rbac:groups="",resources=services,verbs=list grants it`),
        why.body,
      );
      assert.equal((await get(`${probes}/healthz`)).status, 200, 'alive: the process works, one controller waits');
      const gauge = await registry.getSingleMetric('kubegen_controller_source_synced')!.get();
      const value = (controller: string): number | undefined => gauge.values.find((v) => v.labels['controller'] === controller)?.value;
      assert.equal(value('configmap'), 1);
      assert.equal(value('service'), 0);
      assert.ok(!seen.includes('svc:s'));
      assert.equal(mgr.ready, false);

      denied = false; // the missing RBAC rule is added: the informer's next relist (after its backoff) syncs
      await until(() => seen.includes('svc:s'), 'the held-back controller reconciles once allowed', 10_000);
      assert.equal((await get(`${probes}/readyz`)).status, 200);
      assert.equal(mgr.ready, true);
    } finally {
      stop.abort();
      await run;
    }
  });
});

describe('a kind that is not installed', () => {
  it('holds back its controller, readyz names the kind and its CRD; once installed it syncs and reconciles', async () => {
    const widgets = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', namespaced: true };
    const transport = newFakeTransport([cm], object('ConfigMap', 'a'));
    const mgr = manager(transport, { healthProbeBindAddress: '127.0.0.1:0' });
    const seen: string[] = [];
    controllerFor(mgr, cm).complete(async (req) => void seen.push(`cm:${req.name}`));
    controllerFor(mgr, widgets).complete(async (req) => void seen.push(`widget:${req.name}`));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => seen.includes('cm:a'), 'the other controller reconciles', 5000);
      await until(() => transport.actions().some((a) => a.verb === 'list' && a.resource === 'widgets'), 'widgets listed', 5000);
      const why = await get(`http://${mgr.healthProbeAddress}/readyz/controller-widget`);
      assert.equal(why.status, 500);
      assert.match(why.body, /Widget example\.com\/v1 is not served by this apiserver \(it serves no version of example\.com\); is the CustomResourceDefinition widgets\.example\.com installed/);

      transport.tracker.register(widgets); // the CRD is installed
      transport.tracker.create(widgets, 'ns', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
      await until(() => seen.includes('widget:w'), 'the widget controller reconciles once its kind is served', 10_000);
    } finally {
      stop.abort();
      await run;
    }
  });
});

describe('start or exit', () => {
  it('a probe port already taken: start rejects naming the server, and the metrics port is closed again', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    const metricsPort = await freePort();
    try {
      const mgr = manager(newFakeTransport([cm]), { metricsBindAddress: `127.0.0.1:${metricsPort}`, healthProbeBindAddress: `127.0.0.1:${port}` });
      controllerFor(mgr, cm).complete(async () => undefined);
      await assert.rejects(mgr.start(new AbortController().signal), /^Error: health probe server: .*EADDRINUSE/);
      assert.ok(await closed(metricsPort), 'the metrics server opened before the failure is closed');
    } finally {
      taken.close();
    }
  });

  it('a webhook certificate that cannot be read: start rejects naming the webhook server; probes and metrics are closed', async () => {
    const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-no-certs-'));
    const [metricsPort, probePort] = [await freePort(), await freePort()];
    try {
      const webhookServer = new WebhookServer({ port: 0, certDir, logger: nullLogger });
      const mgr = manager(newFakeTransport([cm]), { metricsBindAddress: `127.0.0.1:${metricsPort}`, healthProbeBindAddress: `127.0.0.1:${probePort}`, webhookServer });
      await assert.rejects(mgr.start(new AbortController().signal), (err: Error) => {
        assert.match(err.message, /^webhook server: /);
        assert.ok(err.message.includes(certDir), err.message);
        return true;
      });
      assert.ok(await closed(metricsPort));
      assert.ok(await closed(probePort), 'nothing answers /healthz for a manager that failed');
    } finally {
      fs.rmSync(certDir, { recursive: true, force: true });
    }
  });

  it('a runnable that throws fails the manager: RunnableError names it; the other runnables are stopped', async () => {
    const probePort = await freePort();
    const mgr = manager(newFakeTransport([cm], object('ConfigMap', 'a')), { healthProbeBindAddress: `127.0.0.1:${probePort}` });
    let otherStopped = false;
    controllerFor(mgr, cm).complete(async () => undefined);
    mgr.add({ name: 'keeps-running', needLeaderElection: false, start: (signal) => new Promise<void>((r) => signal.addEventListener('abort', () => ((otherStopped = true), r()))) });
    mgr.add({ name: 'exporter', needLeaderElection: false, start: async () => Promise.reject(new Error('cannot open /var/lib/exporter')) });
    await assert.rejects(mgr.start(new AbortController().signal), (err: unknown) => {
      assert.ok(err instanceof RunnableError);
      assert.equal(err.message, 'exporter failed: cannot open /var/lib/exporter');
      return true;
    });
    assert.ok(otherStopped);
    assert.ok(await closed(probePort));
  });

  it('a Lease the identity may not read: start rejects with the verb, the Lease and the marker, instead of campaigning forever', async () => {
    const transport = newFakeTransport([cm, builtinResources.leases]);
    transport.prependReactor('get', 'leases', () => ({
      handled: true,
      error: new ApiError(newStatus(403, 'Forbidden', `leases.coordination.k8s.io "lock" is forbidden: User "${USER}" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ops"`)),
    }));
    const mgr = manager(transport, { leaderElection: true, leaderElectionId: 'lock', leaderElectionNamespace: 'ops' });
    controllerFor(mgr, cm).complete(async () => undefined);
    await assert.rejects(mgr.start(new AbortController().signal), (err: Error) => {
      assert.ok(err instanceof LeaderElectionAccessError);
      assert.match(err.message, /^leader election cannot use the Lease ops\/lock: forbidden: get leases \(group coordination\.k8s\.io\) in namespace ops, as system:serviceaccount:ops:controller-manager; the marker \+kubebuilder:rbac:groups=coordination\.k8s\.io,resources=leases,verbs=get grants it$/);
      return true;
    });
  });

  it('startWithSignals takes its SIGTERM/SIGINT handlers back when start settles, so a later signal ends the process', async () => {
    const before = [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const mgr = manager(newFakeTransport([cm]), { healthProbeBindAddress: `127.0.0.1:${(taken.address() as net.AddressInfo).port}` });
      await assert.rejects(mgr.startWithSignals(), /EADDRINUSE/);
    } finally {
      taken.close();
    }
    assert.deepEqual([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')], before);
  });
});
