/**
 * Informers and WatchList against real apiservers: kube-apiserver 1.20 (the shared `full` control plane) rejects the
 * request and the informer falls back to list + watch; the CRD apiserver 1.36 (`crd-only`) streams the initial
 * state, so the informer syncs without a single LIST, and recovers from restarts: from its last resourceVersion,
 * or, after a 410, with a second stream.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, Transport } from '@kubegen/runtime/internal/client/types.js';
import type { Logger } from '@kubegen/runtime/internal/log.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import type { ReflectorOptions } from '@kubegen/runtime/internal/cache/reflector-types.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { forgetAnnouncedWatchListModes } from '@kubegen/runtime/internal/cache/watch-list.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { testNamespaceName } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { FOO, FOO_CRD, foo, type Foo } from './support/crds.js';
import { CountingTransport } from './support/counting-transport.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/wait.js';


/** A logger that keeps the lines, for asserting on what the reflector says. */
function capturingLogger(): { logger: Logger; lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, fields }),
    child: () => logger,
  };
  return { logger, lines };
}

/** Every informer started here; stopped after the tests, whatever their outcome. */
const running: SharedIndexInformer<Foo>[] = [];
after(async () => {
  await Promise.all(running.map((i) => i.stop()));
});

/** An informer over `transport` (counted) in `ns` that records its handler's events and reported errors. */
function recordingInformer(transport: Transport, ns: string, opts: ReflectorOptions = {}) {
  const counting = new CountingTransport(transport);
  const { logger, lines } = capturingLogger();
  const informer = new SharedIndexInformer<Foo>(new ResourceClient<Foo>(counting, FOO, ns), { name: `wl-${ns}`, logger, ...opts });
  const events: string[] = [];
  const errors: unknown[] = [];
  informer.setWatchErrorHandler((err) => void errors.push(err));
  informer.addEventHandler({
    onAdd: (o, initial) => void events.push(`add ${o.metadata!.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (o, n) => void events.push(`update ${n.metadata!.name} ${o.spec!.replicas}->${n.spec!.replicas}`),
    onDelete: (o) => void events.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : `delete ${o.metadata!.name}`),
  });
  running.push(informer);
  void informer.run();
  return { informer, counting, events, errors, lines };
}

const modeLines = (lines: { level: string; msg: string }[]) => lines.filter((l) => l.level === 'info' && /^using /.test(l.msg));

describe('WatchList on kube-apiserver 1.20 (not supported)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it("'auto' falls back to list + watch after one rejected request, syncs, and follows changes", { timeout: 60_000 }, async () => {
    const ns = await env.newNamespace('wl-120');
    const client = new ResourceClient<Foo>(env.transport, FOO, ns);
    for (let i = 0; i < 3; i++) await client.create(foo(ns, `foo-${i}`));
    const r = recordingInformer(env.transport, ns);
    await until(() => r.informer.hasSynced(), 'sync', 20_000);
    assert.equal(r.informer.getIndexer().size, 3);
    assert.equal(r.counting.watchLists, 1, 'one WatchList request');
    assert.equal(r.counting.lists, 1);
    const f0 = await client.get('foo-0');
    await client.update({ ...f0, spec: { ...f0.spec, replicas: 4 } });
    await until(() => r.events.includes('update foo-0 1->4'), 'the update');
    assert.equal(r.counting.watches, 1, 'one watch');
    assert.deepEqual(r.errors, [], 'the rejection is not reported as an error');
    const said = modeLines(r.lines);
    assert.equal(said.length, 1, JSON.stringify(said));
    assert.match(said[0]!.msg, /^using list\+watch/);
    assert.match(String((said[0] as { fields?: Record<string, unknown> }).fields?.['reason']), /does not support WatchList: .*resourceVersionMatch is forbidden for watch/);
    await r.informer.stop();
  });

  it('watchList: true never lists, so it never syncs there; the 422 goes to the error handler', { timeout: 60_000 }, async () => {
    const ns = await env.newNamespace('wl-120-forced');
    const r = recordingInformer(env.transport, ns, { watchList: true, backoff: { initialMs: 100 } });
    await until(() => r.errors.length >= 2, 'two rejections (a retry)', 20_000);
    assert.match(String(r.errors[0]), /resourceVersionMatch is forbidden for watch/);
    assert.equal(r.informer.hasSynced(), false);
    assert.equal(r.counting.lists, 0);
    await r.informer.stop();
  });
});

describe('WatchList on the CRD apiserver 1.36 (supported)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'crd-only', crdPaths: [FOO_CRD] });
  });
  after(async () => {
    await env?.release();
  });

  it('syncs 300 objects without any LIST request, then receives changes on the same stream', { timeout: 120_000 }, async () => {
    const ns = await env.newNamespace('wl-136');
    const client = new ResourceClient<Foo>(env.transport, FOO, ns);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < 300) await client.create(foo(ns, `foo-${next++}`, 1));
    }));
    // The mode is announced once per process: the crd-only envtest's garbage collector, when this file started it
    // (in this process), has streamed with WatchList already.
    forgetAnnouncedWatchListModes();
    const r = recordingInformer(env.transport, ns);
    await until(() => r.informer.hasSynced(), 'sync', 30_000);
    assert.equal(r.counting.lists, 0, 'no LIST');
    assert.equal(r.counting.watchLists, 1, 'one WatchList stream');
    assert.equal(r.counting.watches, 0);
    const direct = (await client.list()).items;
    const summary = (objs: Foo[]) => objs.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
    assert.deepEqual(summary(r.informer.lister().namespace(ns).list()), summary(direct));
    assert.equal(r.events.filter((e) => e.endsWith('(initial)')).length, 300);

    const f7 = await client.get('foo-7');
    await client.update({ ...f7, spec: { ...f7.spec, replicas: 5 } });
    await client.delete('foo-8');
    await client.create(foo(ns, 'late'));
    await until(() => r.events.includes('add late'), 'the changes');
    assert.deepEqual(r.events.slice(300), ['update foo-7 1->5', 'delete foo-8', 'add late']);
    assert.equal(r.counting.watchLists + r.counting.watches + r.counting.lists, 1, 'all on the first stream');
    const said = modeLines(r.lines);
    assert.equal(said.length, 1);
    assert.match(said[0]!.msg, /^using WatchList/);
    assert.deepEqual(r.errors, []);
    await r.informer.stop();
  });
});

describe('WatchList on the CRD apiserver 1.36: restart with changes made meanwhile', { timeout: 180_000 }, () => {
  let envtest: Envtest;
  let proxy: TcpProxy;
  let informerTransport: HttpTransport;
  before(async () => {
    envtest = await Envtest.start({ profile: 'crd-only', crdPaths: [FOO_CRD] });
    proxy = new TcpProxy(Number(new URL(envtest.apiserverUrl).port));
    const port = await proxy.listen();
    informerTransport = new HttpTransport({ ...envtest.restConfig, server: `https://127.0.0.1:${port}` });
  });
  after(async () => {
    informerTransport?.close();
    await proxy?.close();
    await envtest?.stop();
  });

  async function change(ns: string): Promise<void> {
    const admin = envtest.transport();
    const client = new ResourceClient<Foo>(admin, FOO, ns);
    const f1 = await client.get('foo-1');
    await client.update({ ...f1, spec: { ...f1.spec, replicas: 7 } });
    await client.delete('foo-2');
    await client.create(foo(ns, 'foo-new'));
    admin.close();
  }

  /**
   * Cuts the informer off and restarts the apiserver; the changes are made after the restart (the new watch cache
   * has them), or before it with etcd compacted (the informer's resourceVersion is gone: 410).
   */
  async function restartWithChanges(ns: string, before: 'after-restart' | 'before-restart-and-compact'): Promise<void> {
    proxy.refuse = true;
    proxy.freeze();
    if (before === 'before-restart-and-compact') {
      await change(ns);
      await envtest.compactEtcd();
    }
    await envtest.stopApiServer({ kill: true }); // a crash (a graceful stop takes the CRD apiserver ~15 s)
    await envtest.startApiServer();
    if (before === 'after-restart') await change(ns);
    proxy.refuse = false;
  }

  async function syncedInformer(ns: string) {
    const admin = envtest.transport();
    const client = new ResourceClient<Foo>(admin, FOO, ns);
    for (let i = 0; i < 5; i++) await client.create(foo(ns, `foo-${i}`));
    admin.close();
    const r = recordingInformer(informerTransport, ns, { idleTimeoutMs: 3_000, backoff: { maxMs: 2_000 } });
    await until(() => r.informer.hasSynced(), 'sync', 30_000);
    assert.equal(r.counting.watchLists, 1);
    return r;
  }

  it('after the stream drops, watches on from its last resourceVersion: no LIST, no new stream, every change', async () => {
    const ns = testNamespaceName('wl-restart');
    const r = await syncedInformer(ns);
    await restartWithChanges(ns, 'after-restart');
    await until(() => r.events.includes('add foo-new'), 'caught up', 60_000);
    assert.deepEqual(r.events.slice(5), ['update foo-1 1->7', 'delete foo-2', 'add foo-new']);
    assert.equal(r.counting.lists, 0, 'never a LIST');
    assert.equal(r.counting.watchLists, 1, 'the server still had the history');
    assert.ok(r.counting.watches >= 1);
  });

  it('after a 410 (etcd compacted past its resourceVersion), resumes with a second stream; what vanished comes as a tombstone', async () => {
    const ns = testNamespaceName('wl-compact');
    const r = await syncedInformer(ns);
    const syncedRV = Number(r.informer.lastSyncResourceVersion);
    await restartWithChanges(ns, 'before-restart-and-compact');
    await until(() => r.events.includes('add foo-new'), 'caught up', 60_000);
    assert.equal(r.counting.lists, 0, 'never a LIST');
    assert.equal(r.counting.watchLists, 2, `a second stream (watches: ${r.counting.watches}, events: ${r.events.slice(5).join(', ')})`);
    assert.deepEqual(r.events.slice(5).sort(), ['add foo-new', `tombstone ${ns}/foo-2`, 'update foo-1 1->7']);
    assert.equal(r.informer.lister().namespace(ns).get('foo-1')?.spec?.replicas, 7);
    assert.ok(Number(r.informer.lastSyncResourceVersion) > syncedRV);
  });
});
