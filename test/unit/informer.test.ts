import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import type { KubeObject, ResourceInfo, ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { CacheSyncError, SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { FakeListerWatcher } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import type { ResourceEventHandler } from '@kubegen/runtime/internal/cache/listener.js';
import { SharedIndexInformer, type SharedIndexInformerOptions } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { stripManagedFields } from '@kubegen/runtime/internal/cache/transform.js';
import { settle } from '../support/wait.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

interface Foo extends KubeObject {
  spec?: { replicas?: number };
}

const foo = (name: string, replicas = 1, ns = 'ns'): Foo => ({
  metadata: { namespace: ns, name, labels: { app: 'x' }, managedFields: [{ manager: 'test' }] },
  spec: { replicas },
});

const until = (cond: () => boolean, what: string): Promise<void> => settle(cond, what, 1000);

type Ev = string;

/** A handler that records what it sees as short strings. */
function recorder(): { events: Ev[]; handler: ResourceEventHandler<Foo> } {
  const events: Ev[] = [];
  return {
    events,
    handler: {
      onAdd: (o, initial) => void events.push(`add ${o.metadata!.name}${initial ? ' initial' : ''}`),
      onUpdate: (o, n) => void events.push(`update ${n.metadata!.name} ${o.spec?.replicas}->${n.spec?.replicas}`),
      onDelete: (o) =>
        void events.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key} ${o.obj.spec?.replicas}` : `delete ${o.metadata!.name}`),
    },
  };
}

function setup(opts: SharedIndexInformerOptions<Foo> = {}, seed = 2) {
  const lw = new FakeListerWatcher<Foo>();
  for (let i = 0; i < seed; i++) lw.upsert(foo(`f${i}`));
  const clock = new FakeClock(1_000_000);
  const informer = new SharedIndexInformer<Foo>(lw, {
    clock,
    logger: nullLogger,
    random: () => 0,
    backoff: { random: () => 0 },
    ...opts,
  });
  return { lw, clock, informer };
}

describe('SharedIndexInformer', () => {
  it('feeds two handlers from one watch, in order, flagging the initial list', async () => {
    const { lw, informer } = setup();
    const a = recorder();
    const b = recorder();
    const ra = informer.addEventHandler(a.handler);
    const rb = informer.addEventHandler(b.handler);
    void informer.run();
    await until(() => ra.hasSynced() && rb.hasSynced(), 'handlers synced');
    assert.ok(informer.hasSynced());
    lw.upsert(foo('f2'));
    lw.upsert(foo('f0', 3));
    lw.remove('ns/f1');
    await until(() => a.events.length === 5 && b.events.length === 5, 'events delivered');
    const expected = ['add f0 initial', 'add f1 initial', 'add f2', 'update f0 1->3', 'delete f1'];
    assert.deepEqual(a.events, expected);
    assert.deepEqual(b.events, expected);
    assert.equal(lw.watchCalls.length, 1, 'one watch for both handlers');
    assert.deepEqual(informer.lister().namespace('ns').list().map((o) => o.metadata!.name).sort(), ['f0', 'f2']);
    await informer.stop();
  });

  it('a handler added after sync gets the cached objects first, then syncs', async () => {
    const { lw, informer } = setup();
    void informer.run();
    await informer.whenSynced();
    const late = recorder();
    const reg = informer.addEventHandler(late.handler);
    assert.equal(reg.hasSynced(), false, 'not until its initial adds are delivered');
    lw.upsert(foo('f9'));
    await until(() => late.events.length === 3, 'late handler events');
    assert.ok(reg.hasSynced());
    assert.deepEqual(late.events, ['add f0 initial', 'add f1 initial', 'add f9']);
    await informer.stop();
  });

  it('a relist delivers missed deletions as tombstones with the last known state, and skips unchanged objects', async () => {
    const { lw, clock, informer } = setup({}, 3);
    const r = recorder();
    informer.addEventHandler(r.handler);
    void informer.run();
    await until(() => r.events.length === 3, 'initial adds');
    lw.upsert(foo('f0', 7));
    await until(() => r.events.length === 4, 'update');
    // While the watch is down: f1 deleted, f2 changed, history compacted → the next watch gets 410 → relist.
    lw.silently(() => {
      lw.remove('ns/f1');
      lw.upsert(foo('f2', 9));
      lw.upsert(foo('f3'));
    });
    lw.compact();
    clock.step(5_000);
    lw.closeWatches();
    // The second watch answers 410; the relist follows without a backoff.
    await until(() => r.events.length === 7, 'relist notifications');
    assert.ok(lw.watchCalls.length >= 2, 'the failed watch');
    assert.deepEqual(r.events.slice(4).sort(), ['add f3', 'tombstone ns/f1 1', 'update f2 1->9']);
    assert.equal(informer.getIndexer().size, 3);
    await informer.stop();
  });

  it('a throwing handler and a hanging handler do not stop delivery to the others or the cache', async () => {
    const { lw, informer } = setup();
    const good = recorder();
    let thrown = 0;
    let hangingCalls = 0;
    informer.addEventHandler({
      onAdd: () => {
        thrown++;
        throw new Error('handler bug');
      },
    });
    informer.addEventHandler({ onAdd: () => (hangingCalls++, new Promise<void>(() => undefined)) });
    informer.addEventHandler(good.handler);
    void informer.run();
    await informer.whenSynced();
    for (let i = 0; i < 50; i++) lw.upsert(foo(`n${i}`));
    await until(() => good.events.length === 52, 'good handler got everything');
    assert.equal(thrown, 52, 'the throwing handler keeps being called');
    assert.equal(hangingCalls, 1, 'the hanging handler is stuck on its first call');
    assert.equal(informer.getIndexer().size, 52);
    await informer.stop();
  });


  it('takes handlers that return anything: values are ignored, a thenable holds back the next notification', async () => {
    const { lw, informer } = setup();
    // Expression-bodied arrows returning numbers and strings: this compiles only while handlers may return any value.
    const seen: Foo[] = [];
    const names: string[] = [];
    informer.addEventHandler({ onAdd: (o) => seen.push(o), onUpdate: (_o, n) => names.push(n.metadata!.name!), onDelete: () => 'ignored' });
    // A thenable that is not a Promise: the second add waits until the first one's `then` calls back.
    const order: string[] = [];
    let release: (() => void) | undefined;
    informer.addEventHandler({
      onAdd: (o) => {
        order.push(`start ${o.metadata!.name}`);
        if (o.metadata!.name !== 'f0') return 42;
        return { then: (resolve: () => void) => void (release = () => (order.push('released f0'), resolve())) };
      },
    });
    void informer.run();
    await until(() => release !== undefined && seen.length === 2, 'first add delivered to both handlers');
    assert.deepEqual(order, ['start f0'], 'f1 waits for the thenable of f0');
    release!();
    await informer.whenSynced();
    lw.upsert(foo('f0', 2));
    await until(() => names.length === 1 && order.length === 3, 'update delivered');
    assert.deepEqual(order, ['start f0', 'released f0', 'start f1']);
    assert.deepEqual(seen.map((o) => o.metadata!.name), ['f0', 'f1']);
    await informer.stop();
  });
  it('resyncs only the handlers that asked for it, on the clock', async () => {
    const { clock, informer } = setup();
    const syncing = recorder();
    const quiet = recorder();
    informer.addEventHandler(syncing.handler, { resyncPeriodMs: 10_000 });
    informer.addEventHandler(quiet.handler);
    void informer.run();
    await until(() => syncing.events.length === 2 && quiet.events.length === 2, 'initial adds');
    clock.step(10_000);
    await until(() => syncing.events.length === 4, 'resync');
    assert.deepEqual(syncing.events.slice(2), ['update f0 1->1', 'update f1 1->1']);
    clock.step(10_000);
    await until(() => syncing.events.length === 6, 'second resync');
    assert.equal(quiet.events.length, 2);
    await informer.stop();
  });

  it('applies the transform before storing and refuses a new one once running', async () => {
    const { informer } = setup({ transform: stripManagedFields() });
    const seen: Foo[] = [];
    informer.addEventHandler({ onAdd: (o) => void seen.push(o) });
    void informer.run();
    await until(() => seen.length === 2, 'adds');
    assert.equal(seen[0]!.metadata!.managedFields, undefined);
    assert.equal(informer.getIndexer().getByKey('ns/f0')!.metadata!.managedFields, undefined);
    assert.equal(informer.getIndexer().getByKey('ns/f0'), seen[0], 'handlers get the cached object itself');
    assert.throws(() => informer.setTransform(undefined), /already started/);
    await informer.stop();
  });

  it('in debug mode cached objects are frozen, so a mutation throws', async () => {
    const { informer } = setup({ freezeObjects: true });
    void informer.run();
    await informer.whenSynced();
    const obj = informer.lister().namespace('ns').get('f0')!;
    assert.throws(() => {
      obj.spec!.replicas = 99;
    }, TypeError);
    await informer.stop();
  });

  it('a removed handler receives nothing more', async () => {
    const { lw, informer } = setup();
    const r = recorder();
    const reg = informer.addEventHandler(r.handler);
    void informer.run();
    await until(() => r.events.length === 2, 'adds');
    reg.remove();
    const other = recorder();
    informer.addEventHandler(other.handler);
    lw.upsert(foo('later'));
    await until(() => other.events.length === 3, 'other handler');
    assert.equal(r.events.length, 2);
    await informer.stop();
  });

  it('supports user indexers', async () => {
    const { lw, informer } = setup({ indexers: { replicas: (o) => [String(o.spec?.replicas ?? 0)] } });
    void informer.run();
    await informer.whenSynced();
    lw.upsert(foo('big', 5));
    await until(() => informer.getIndexer().byIndex('replicas', '5').length === 1, 'indexed');
    assert.deepEqual(informer.getIndexer().indexKeys('replicas', '1').sort(), ['ns/f0', 'ns/f1']);
    await informer.stop();
  });
});

const fooInfo: ResourceInfo = {
  group: 'samplecontroller.k8s.io',
  version: 'v1alpha1',
  resource: 'foos',
  kind: 'Foo',
  listKind: 'FooList',
  namespaced: true,
};

/** A Transport over fake lister-watchers, one per namespace ('' = all), counting requests. */
class LwTransport implements Transport {
  readonly lws = new Map<string, FakeListerWatcher<Foo>>();
  hang = false;
  lw(ns: string): FakeListerWatcher<Foo> {
    let lw = this.lws.get(ns);
    if (!lw) this.lws.set(ns, (lw = new FakeListerWatcher<Foo>()));
    return lw;
  }
  request<T>(req: ResourceRequest): Promise<T> {
    if (this.hang) return new Promise(() => undefined);
    assert.equal(req.verb, 'list');
    return this.lw(req.namespace ?? '').list({ ...req.query } as never) as Promise<T>;
  }
  watch<T>(req: ResourceRequest): Promise<Watch<T>> {
    return this.lw(req.namespace ?? '').watch({ ...req.query } as never) as Promise<Watch<T>>;
  }
  /** What its fake lister-watchers say (they do not declare WatchList support). */
  isWatchListSemanticsUnsupported(): boolean {
    return this.lw('').isWatchListSemanticsUnsupported();
  }
  raw(): Promise<never> {
    return Promise.reject(new Error('no raw requests here'));
  }
}

describe('SharedInformerFactory', () => {
  it('hands out one informer per resource and options, and syncs them', async () => {
    const t = new LwTransport();
    t.lw('').upsert(foo('a'));
    t.lw('ns2').upsert(foo('b', 1, 'ns2'));
    const f = new SharedInformerFactory(t, { logger: nullLogger });
    const i1 = f.informerFor<Foo>(fooInfo);
    assert.equal(f.informerFor<Foo>(fooInfo), i1, 'same resource, same options → same informer');
    const i2 = f.informerFor<Foo>(fooInfo, { namespace: 'ns2' });
    assert.notEqual(i2, i1);
    f.start();
    f.start();
    await f.waitForCacheSync({ timeoutMs: 5_000 });
    assert.equal(t.lw('').listCalls.length, 1, 'started once');
    assert.deepEqual(i1.lister().list().map((o) => o.metadata!.name), ['a']);
    assert.deepEqual(i2.lister().namespace('ns2').list().map((o) => o.metadata!.name), ['b']);
    assert.deepEqual(f.keys(), ['foos.samplecontroller.k8s.io/v1alpha1', 'foos.samplecontroller.k8s.io/v1alpha1@ns2']);
    await f.shutdown();
    assert.ok(i1.stopped && i2.stopped);
    assert.equal(t.lw('').openWatches, 0);
    assert.throws(() => f.informerFor<Foo>(fooInfo, { namespace: 'other' }), /shut down/);
  });

  it('waitForCacheSync rejects after the timeout naming the informers that did not sync', async () => {
    const t = new LwTransport();
    t.hang = true;
    const clock = new FakeClock(0);
    const f = new SharedInformerFactory(t, { logger: nullLogger, clock });
    f.informerFor<Foo>(fooInfo, { labelSelector: 'app=x' });
    f.start();
    const p = f.waitForCacheSync({ timeoutMs: 1_000 });
    clock.step(1_000);
    await assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof CacheSyncError);
      assert.deepEqual(err.unsynced, ['foos.samplecontroller.k8s.io/v1alpha1?app=x']);
      assert.match(err.message, /not synced within 1000 ms: foos.samplecontroller.k8s.io\/v1alpha1\?app=x/);
      return true;
    });
    await f.shutdown();
  });
});

describe('SharedIndexInformer.run(signal)', () => {
  it('returns once the signal aborts, even while a watch is open (the watch is ended too)', async () => {
    const transport = newFakeTransport([builtinResources.configMaps]);
    const informer = new SharedIndexInformer(new ResourceClient(transport, builtinResources.configMaps), { logger: nullLogger });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.whenSynced();
    await settle(() => transport.actions().some((a) => a.verb === 'watch'), 'the watch is open');
    stop.abort();
    const ended = await Promise.race([running.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2000))]);
    assert.equal(ended, true, 'run() returned after the abort');
  });
});
