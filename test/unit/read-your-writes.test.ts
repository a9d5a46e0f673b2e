/**
 * Read-your-writes (issue 28, item 3) on the fake transport and a FakeClock: a cache read of an object the manager's
 * client wrote waits until the informer's store shows the write; a cache that never catches up within the bound
 * gives a read from the API, counted in `kubegen_read_your_writes_fallbacks_total`; `{ enabled: false }` reads the
 * cache as it is; a controller does not reconcile an object it wrote before the cache shows the write. The watch of
 * Foos is held back by a reactor (`LaggingWatches`) to play a cache that lags behind the apiserver.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import type { Controller } from '@kubegen/runtime/internal/controller/controller.js';
import { compareResourceVersions } from '@kubegen/runtime/internal/cache/store-waiters.js';
import type { KubeObject, Watch, WatchEvent } from '@kubegen/runtime/internal/client/types.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import type { ReadYourWritesOptions } from '@kubegen/runtime/internal/cluster/read-your-writes.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../test/golden/sample-controller/samplecontroller.k8s.io/v1alpha1/register.js';
import { settle } from '../support/wait.js';

type Foo = KubeObject & { status?: { n?: number } };
const foo = (name: string): Foo => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name, namespace: 'ns' }, spec: {} }) as Foo;

/** Watches of Foos whose events are held back while `held` is true (the informer's cache lags), delivered in order on `release()`. */
class LaggingWatches {
  held = false;
  private wake: (() => void)[] = [];

  constructor(t: FakeTransport) {
    t.prependReactor('watch', 'foos', (action) => ({
      handled: true,
      result: this.wrap(t.tracker.watch(fooResource, action.namespace, { resourceVersion: String(action.query['resourceVersion'] ?? ''), allowWatchBookmarks: true })),
    }));
  }

  release(): void {
    this.held = false;
    for (const w of this.wake.splice(0)) w();
  }

  private wrap(inner: Watch<KubeObject>): Watch<KubeObject> {
    const self = this;
    return {
      stop: (reason?: unknown) => inner.stop(reason),
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<KubeObject>> {
        for await (const event of inner) {
          while (self.held) await new Promise<void>((r) => self.wake.push(r));
          yield event;
        }
      },
    };
  }
}

interface Setup {
  t: FakeTransport;
  mgr: Manager;
  clock: FakeClock;
  lag: LaggingWatches;
  registry: Registry;
  /** `status.n` each reconcile read, and how many reconciles started (before their first read). */
  reconciled: number[];
  started: number;
  controller?: Controller;
}

/** A manager caching Foos (with a controller when `reconcile` is given), its watch of Foos lagging on demand. */
async function withManager(ryw: ReadYourWritesOptions | undefined, check: (s: Setup) => Promise<void>, reconcile?: (s: Setup, foo: Foo) => Promise<void>): Promise<void> {
  const t = newFakeTransport([fooResource], foo('a'));
  const lag = new LaggingWatches(t);
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const mgr = new Manager({ transport: t, metricsBindAddress: '0', logger: nullLogger, registry, clock, ...(ryw ? { readYourWrites: ryw } : {}) });
  const s: Setup = { t, mgr, clock, lag, registry, reconciled: [], started: 0 };
  if (reconcile) {
    s.controller = controllerFor(mgr, fooResource).complete(async (req) => {
      s.started++;
      const got = (await mgr.getClient().resource<Foo>(fooResource, req.namespace).get(req.name)) as Foo;
      s.reconciled.push(got.status?.n ?? 0);
      await reconcile(s, got);
    });
  } else {
    mgr.getInformer(fooResource);
  }
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  try {
    await settle(() => mgr.ready && mgr.getInformer(fooResource).hasSynced(), 'cache sync');
    await check(s);
  } finally {
    lag.release();
    stop.abort();
    await run;
  }
}

const apiGets = (t: FakeTransport) => t.actions().filter((a) => a.verb === 'get' && a.resource === 'foos').length;
const apiLists = (t: FakeTransport) => t.actions().filter((a) => a.verb === 'list' && a.resource === 'foos').length;
async function metric(registry: Registry, name: string, operation: string): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) return 0;
  const values = (await m.get()).values.filter((v) => v.labels['operation'] === operation && v.labels['resource'] === 'foos.samplecontroller.k8s.io');
  return values.reduce((sum, v) => sum + v.value, 0);
}
/** Turns the event loop a few times, so that anything not blocked would have settled. */
async function turns(n = 50): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

async function writeStatus(mgr: Manager, n: number): Promise<Foo> {
  const client = mgr.getClient().resource<Foo>(fooResource, 'ns');
  const current = (await client.get('a')) as Foo;
  return (await client.updateStatus({ ...current, status: { n } })) as Foo;
}

describe('read-your-writes', () => {
  it('compares resourceVersions as integers when both are, and not otherwise', () => {
    assert.equal(Math.sign(compareResourceVersions('9', '10')!), -1);
    assert.equal(compareResourceVersions('10', '10'), 0);
    assert.equal(Math.sign(compareResourceVersions('123456789012345678901', '99')!), 1);
    assert.equal(compareResourceVersions('a1', '10'), undefined);
    assert.equal(compareResourceVersions('010', '10'), undefined);
    assert.equal(compareResourceVersions('', '10'), undefined);
  });

  it('a cache read after a write waits for the cache to show it, and reads nothing from the API', async () => {
    await withManager(undefined, async ({ t, mgr, lag, registry }) => {
      const informer = mgr.getInformer(fooResource);
      lag.held = true;
      const written = await writeStatus(mgr, 1);
      assert.notEqual(informer.lastStoreSyncResourceVersion, written.metadata?.resourceVersion, 'the cache is behind');
      const gets = apiGets(t);
      const lists = apiLists(t);
      let got: Foo | undefined;
      const read = mgr.getClient().resource<Foo>(fooResource, 'ns').get('a').then((o) => (got = o as Foo));
      let listed: Foo[] | undefined;
      const list = mgr.getClient().resource<Foo>(fooResource, 'ns').list().then((l) => (listed = l.items as Foo[]));
      await turns();
      assert.equal(got, undefined, 'the get waits while the cache does not show the write');
      assert.equal(listed, undefined, 'the list waits too');
      lag.release();
      await Promise.all([read, list]);
      assert.equal(got!.status?.n, 1, 'the get sees the write');
      assert.equal(got!.metadata?.resourceVersion, written.metadata?.resourceVersion);
      assert.equal(listed![0]!.status?.n, 1, 'the list sees the write');
      assert.equal(informer.lastStoreSyncResourceVersion, written.metadata?.resourceVersion, 'the store recorded the resourceVersion it applied');
      assert.equal(apiGets(t), gets, 'no GET went to the API');
      assert.equal(apiLists(t), lists, 'no LIST went to the API');
      assert.equal(await metric(registry, 'kubegen_read_your_writes_waits_total', 'get'), 1);
      assert.equal(await metric(registry, 'kubegen_read_your_writes_fallbacks_total', 'get'), 0);
      // Once shown, the write is forgotten: the next read does not wait.
      await mgr.getClient().resource<Foo>(fooResource, 'ns').get('a');
      assert.equal(await metric(registry, 'kubegen_read_your_writes_waits_total', 'get'), 1);
    });
  });

  it('a cache that never catches up: the read goes to the API once the bound passes, and is counted', async () => {
    await withManager({ timeoutMs: 2000 }, async ({ t, mgr, clock, lag, registry }) => {
      lag.held = true;
      await writeStatus(mgr, 1);
      const gets = apiGets(t);
      let got: Foo | undefined;
      const read = mgr.getClient().resource<Foo>(fooResource, 'ns').get('a').then((o) => (got = o as Foo));
      await turns();
      clock.step(1999);
      await turns();
      assert.equal(got, undefined, 'still waiting before the bound');
      clock.step(1);
      await read;
      assert.equal(got!.status?.n, 1, 'the fresh read from the API shows the write');
      assert.equal(apiGets(t), gets + 1, 'one GET went to the API');
      assert.equal(await metric(registry, 'kubegen_read_your_writes_fallbacks_total', 'get'), 1);
      // Past the bound, a read of the still-unseen write goes to the API at once (and is counted again).
      const again = (await mgr.getClient().resource<Foo>(fooResource, 'ns').get('a')) as Foo;
      assert.equal(again.status?.n, 1);
      assert.equal(apiGets(t), gets + 2);
      assert.equal(await metric(registry, 'kubegen_read_your_writes_fallbacks_total', 'get'), 2);
    });
  });

  it('a delete: a read waits until the cache no longer has the object', async () => {
    await withManager(undefined, async ({ mgr, lag }) => {
      lag.held = true;
      await mgr.getClient().resource<Foo>(fooResource, 'ns').delete('a');
      let outcome: string | undefined;
      const read = mgr.getClient().resource<Foo>(fooResource, 'ns').get('a').then(
        () => (outcome = 'found'),
        (err: { code?: number }) => (outcome = `error ${err.code}`),
      );
      await turns();
      assert.equal(outcome, undefined, 'the get waits while the cache still has the deleted object');
      lag.release();
      await read;
      assert.equal(outcome, 'error 404');
    });
  });

  it('off: a cache read right after a write returns what the cache holds, without waiting', async () => {
    await withManager({ enabled: false }, async ({ t, mgr, lag, registry }) => {
      lag.held = true;
      await writeStatus(mgr, 1);
      const gets = apiGets(t);
      const got = (await mgr.getClient().resource<Foo>(fooResource, 'ns').get('a')) as Foo;
      assert.equal(got.status?.n, undefined, 'the stale cached object');
      assert.equal(apiGets(t), gets);
      assert.equal(registry.getSingleMetric('kubegen_read_your_writes_waits_total'), undefined, 'nothing waited');
    });
  });

  it('a controller does not reconcile an object it wrote until the cache shows the write', async () => {
    await withManager(
      undefined,
      async (s) => {
        await settle(() => s.reconciled.length === 1 && s.lag.held, 'the first reconcile wrote the status and asked for another');
        await turns(200);
        assert.equal(s.started, 1, 'the second reconcile has not started while the cache does not show the write');
        s.lag.release();
        await settle(() => s.reconciled.length >= 2, 'the second reconcile');
        assert.deepEqual(s.reconciled.slice(0, 2), [0, 1], 'the second reconcile read the state the first one wrote');
        assert.equal(await metric(s.registry, 'kubegen_read_your_writes_waits_total', 'reconcile'), 1);
        assert.equal(await metric(s.registry, 'kubegen_read_your_writes_waits_total', 'get'), 0, 'the reconcile read the cache without waiting');
      },
      async (s, got) => {
        if ((got.status?.n ?? 0) > 0) return;
        s.lag.held = true;
        await s.mgr.getClient().resource<Foo>(fooResource, 'ns').updateStatus({ ...got, status: { n: 1 } });
        s.controller!.queue.add('ns/a'); // queued again at once (no backoff on the fake clock), as a watch event would
      },
    );
  });
});
