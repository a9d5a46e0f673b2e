/**
 * Informers under injected faults, each group on its own control plane (the faults would disturb other tests):
 * a watch connection that goes silent (a loopback TCP proxy stops forwarding), kube-apiserver killed and restarted
 * with changes made while the informer could not reach it, and etcd compacted past the informer's resourceVersion.
 * The informer always talks to the apiserver through the proxy so the test controls its connections.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, Transport } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { FOO, FOO_CRD, foo, type Foo } from './support/crds.js';
import { CountingTransport } from './support/counting-transport.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/wait.js';

const summary = (objs: Foo[]): string => objs.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort().join(' ');

/** One control plane, a proxy in front of it, and an informer on a fresh namespace that records what it is told. */
async function setupFaultEnv(apiserverArgs: string[] = []) {
  const env = await Envtest.start({ crdPaths: [FOO_CRD], apiserverArgs });
  const proxy = new TcpProxy(Number(new URL(env.apiserverUrl).port));
  const port = await proxy.listen();
  // The apiserver certificate is for 127.0.0.1: the proxy's loopback port keeps it valid.
  const informerTransport = new HttpTransport({ ...env.restConfig, server: `https://127.0.0.1:${port}` });
  return { env, proxy, informerTransport };
}

function recordingInformer(transport: Transport, ns: string, idleTimeoutMs: number) {
  const counting = new CountingTransport(transport);
  const errors: string[] = [];
  const events: string[] = [];
  const stalls: number[] = [];
  const informer = new SharedIndexInformer<Foo>(new ResourceClient<Foo>(counting, FOO, ns), {
    name: 'faults',
    idleTimeoutMs,
    onWatchStall: (quietMs) => void stalls.push(quietMs),
    backoff: { initialMs: 200, maxMs: 2000 },
    logger: nullLogger,
  });
  informer.setWatchErrorHandler((err) => void errors.push(err instanceof Error ? err.message : String(err)));
  informer.addEventHandler({
    onAdd: (o) => void events.push(`add ${o.metadata!.name}`),
    onUpdate: (o, n) => void events.push(`update ${n.metadata!.name} ${o.spec!.replicas}->${n.spec!.replicas}`),
    onDelete: (o) =>
      void events.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.obj.metadata!.name}` : `delete ${o.metadata!.name}`),
  });
  let ended = false;
  const running = informer.run().then(() => void (ended = true));
  return { informer, counting, errors, events, stalls, running, ended: () => ended };
}

describe('informer faults: silent connection and apiserver restart', { timeout: 240_000 }, () => {
  let fe: Awaited<ReturnType<typeof setupFaultEnv>>;
  before(async () => {
    fe = await setupFaultEnv();
  });
  after(async () => {
    fe?.informerTransport.close();
    await fe?.proxy.close();
    await fe?.env.stop();
  });

  it('detects a connection that stays open but goes silent and replaces it', async () => {
    const admin = fe.env.transport();
    const ns = await createTestNamespace(admin, 'inf-idle');
    const client = new ResourceClient<Foo>(admin, FOO, ns);
    await client.create(foo(ns, 'before'));
    const r = recordingInformer(fe.informerTransport, ns, 3000);
    await until(() => r.informer.hasSynced(), 'sync');
    assert.equal(r.counting.watches, 1);
    assert.ok(fe.proxy.freeze() >= 1, 'the watch connection is now silent');
    await client.create(foo(ns, 'during-silence'));
    await until(() => r.informer.lister().namespace(ns).get('during-silence') !== undefined, 'the change via a new watch', 30_000);
    assert.ok(r.counting.watches >= 2, 'a new watch was opened');
    assert.equal(r.counting.lists, 1, 'resumed from the last resourceVersion, no relist');
    // Frozen after the watch opened: the idle timeout fires; frozen while it was still opening (the race is real
    // under load): the open timeout fires. Either way the silent connection was detected and replaced.
    assert.ok(
      r.errors.some((e) => /delivered nothing for 3000 ms|opening the watch timed out after 3000 ms/.test(e)),
      `idle timeout reported: ${r.errors.join('; ')}`,
    );
    // Silent past its deadline: a stall (what the metrics and the manager's readiness report), over once the
    // change arrived on the new watch.
    assert.ok(r.stalls.length >= 1 && r.stalls.every((ms) => ms >= 3000), `stalls: ${r.stalls.join(', ')}`);
    assert.equal(r.informer.watchStalledSince, undefined, 'events arrive again: no longer stalled');
    await r.informer.stop();
    admin.close();
  });

  it('recovers from kube-apiserver being killed and restarted, with changes and deletes made meanwhile', async () => {
    let admin = fe.env.transport();
    const ns = await createTestNamespace(admin, 'inf-restart');
    let client = new ResourceClient<Foo>(admin, FOO, ns);
    for (let i = 0; i < 10; i++) await client.create(foo(ns, `foo-${i}`));
    const r = recordingInformer(fe.informerTransport, ns, 30_000);
    await until(() => r.informer.hasSynced(), 'sync');

    // Kill the apiserver mid-stream; keep the informer from reconnecting until the changes are made.
    fe.proxy.refuse = true;
    await fe.env.stopApiServer();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await fe.env.startApiServer();
    admin.close();
    admin = fe.env.transport();
    client = new ResourceClient<Foo>(admin, FOO, ns);
    const f1 = await client.get('foo-1');
    await client.update({ ...f1, spec: { ...f1.spec, replicas: 7 } });
    await client.delete('foo-2');
    await client.delete('foo-3');
    await client.create(foo(ns, 'foo-new'));
    fe.proxy.refuse = false;

    const expected = summary((await client.list()).items);
    await until(() => summary(r.informer.lister().namespace(ns).list()) === expected, 'store == server list', 60_000);
    await until(() => r.events.length >= 14, 'handler notifications');
    const after = r.events.slice(10).sort();
    assert.deepEqual(after, ['add foo-new', 'tombstone foo-2', 'tombstone foo-3', 'update foo-1 1->7']);
    assert.equal(r.ended(), false, 'the informer kept running: no restart needed');
    assert.ok(r.errors.length > 0, 'the outage was reported');
    await r.informer.stop();
    admin.close();
  });
});

describe('informer faults: etcd compacted past the informer resourceVersion', { timeout: 240_000 }, () => {
  let fe: Awaited<ReturnType<typeof setupFaultEnv>>;
  before(async () => {
    // Without the watch cache, watches are served by etcd, so compaction is what makes an old resourceVersion 410.
    fe = await setupFaultEnv(['--watch-cache=false']);
  });
  after(async () => {
    fe?.informerTransport.close();
    await fe?.proxy.close();
    await fe?.env.stop();
  });

  it('handles the 410 with a relist and loses no update', async () => {
    const admin = fe.env.transport();
    const ns = await createTestNamespace(admin, 'inf-compact');
    const client = new ResourceClient<Foo>(admin, FOO, ns);
    for (let i = 0; i < 5; i++) await client.create(foo(ns, `foo-${i}`));
    const r = recordingInformer(fe.informerTransport, ns, 3000);
    await until(() => r.informer.hasSynced(), 'sync');
    const syncedRV = r.informer.lastSyncResourceVersion;

    // Cut the informer off (silent watch, no new connections), change things, compact etcd, reconnect.
    fe.proxy.refuse = true;
    fe.proxy.freeze();
    let f0 = await client.get('foo-0');
    f0 = await client.update({ ...f0, spec: { ...f0.spec, replicas: 2 } });
    await client.update({ ...f0, spec: { ...f0.spec, replicas: 3 } });
    await client.delete('foo-1');
    await client.create(foo(ns, 'foo-new'));
    const compactedAt = await fe.env.compactEtcd();
    assert.ok(compactedAt > Number(syncedRV));
    fe.proxy.refuse = false;

    const expected = summary((await client.list()).items);
    await until(() => summary(r.informer.lister().namespace(ns).list()) === expected, 'store == server list', 60_000);
    await until(() => r.events.length >= 8, 'handler notifications');
    assert.equal(r.counting.lists, 2, 'exactly one relist');
    assert.deepEqual(r.events.slice(5).sort(), ['add foo-new', 'tombstone foo-1', 'update foo-0 1->3']);
    assert.equal(r.informer.lister().namespace(ns).get('foo-0')?.spec?.replicas, 3);
    assert.equal(r.ended(), false);
    await r.informer.stop();
    admin.close();
  });
});
