/**
 * Informer names and metrics (issue 28, item 4): informers are named after their key, behind the factory's
 * `informerName` (client-go 1.36's `WithInformerName`) or by their own `name`; client-go 1.36's series
 * (`informer_queued_items`, `informer_processing_latency_seconds`, `informer_store_resource_version`, labels name,
 * group, version, resource) and kubegen's silent-watch series follow the informer's handlers, store and watch; a
 * watch silent past its deadline fails the manager's `informer-watches` readiness check, naming the kind, until
 * events resume. Fake lister-watcher / fake transport and a FakeClock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { SharedInformerFactory, type SharedInformerFactoryOptions } from '@kubegen/runtime/internal/cache/factory.js';
import { storeResourceVersionValue } from '@kubegen/runtime/internal/cache/informer-metrics.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger, type Logger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { FakeListerWatcher } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { fooResource } from '../../test/golden/sample-controller/samplecontroller.k8s.io/v1alpha1/register.js';
import { settle, until } from '../support/wait.js';

const FOO_NAME = 'foos.samplecontroller.k8s.io/v1alpha1';
const GVR = { group: 'samplecontroller.k8s.io', version: 'v1alpha1', resource: 'foos' };
const foo = (name: string): KubeObject => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { namespace: 'ns', name } }) as KubeObject;

/** The samples of `metric` in `registry`, as `labels → value` (labels rendered `k=v,...`, sorted). */
async function samples(registry: Registry, metric: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const s of parsePrometheusText(await registry.metrics())) {
    if (s.name !== metric) continue;
    out.set(Object.entries(s.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(','), s.value);
  }
  return out;
}

/** The labels of the Foo informer named `name` (with `extra`, e.g. `le`), rendered as `samples` renders them. */
const fooLabels = (extra: Record<string, string> = {}, name = FOO_NAME): string =>
  Object.entries({ ...GVR, name, ...extra }).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',');

function factoryWith(lw: FakeListerWatcher<KubeObject>, registry: Registry, clock: FakeClock, opts: SharedInformerFactoryOptions = {}): SharedInformerFactory {
  return new SharedInformerFactory(newFakeTransport([]), {
    listerWatcher: () => lw,
    registry,
    clock,
    logger: nullLogger,
    reflector: { idleTimeoutMs: 10_000, backoff: { random: () => 0 } },
    ...opts,
  });
}

describe('informer names', () => {
  it('are the key by default, <informerName>/<key> in a named factory, or the name an informer was asked with', () => {
    const lw = new FakeListerWatcher<KubeObject>();
    const plain = factoryWith(lw, new Registry(), new FakeClock(0));
    assert.equal(plain.informerFor(fooResource).name, FOO_NAME);
    assert.equal(plain.informerFor(fooResource, { namespace: 'ns1' }).name, `${FOO_NAME}@ns1`);
    assert.equal(plain.informerFor(fooResource, { namespace: 'ns2', name: 'foos-of-ns2' }).name, 'foos-of-ns2');
    const named = factoryWith(lw, new Registry(), new FakeClock(0), { informerName: 'east' });
    assert.equal(named.informerFor(fooResource).name, `east/${FOO_NAME}`);
    assert.deepEqual(named.informerFor(fooResource).resource, { ...GVR, kind: 'Foo' });
  });

  it("a manager's cache names its informers after cache.informerName", () => {
    const mgr = new Manager({ transport: newFakeTransport([fooResource]), metricsBindAddress: '0', logger: nullLogger, registry: new Registry(), cache: { informerName: 'primary' } });
    assert.equal(mgr.getInformer(fooResource).name, `primary/${FOO_NAME}`);
    assert.equal(mgr.getMetadataInformer(fooResource).name, `primary/metadata:${FOO_NAME}`);
  });

  it('are in every log line of the informer and its reflector', async () => {
    const lines: { msg: string; fields: Record<string, unknown> }[] = [];
    const logger = (bound: Record<string, unknown>): Logger => ({
      debug: (msg, f) => void lines.push({ msg, fields: { ...bound, ...f } }),
      info: (msg, f) => void lines.push({ msg, fields: { ...bound, ...f } }),
      warn: (msg, f) => void lines.push({ msg, fields: { ...bound, ...f } }),
      error: (msg, f) => void lines.push({ msg, fields: { ...bound, ...f } }),
      child: (f) => logger({ ...bound, ...f }),
    });
    const lw = new FakeListerWatcher<KubeObject>();
    const factory = factoryWith(lw, new Registry(), new FakeClock(0), { informerName: 'east', logger: logger({}) });
    const informer = factory.informerFor(fooResource);
    factory.start();
    await informer.whenSynced();
    await until(() => lw.openWatches === 1, 'the watch');
    await factory.shutdown();
    assert.ok(lines.some((l) => l.msg === 'synced'), lines.map((l) => l.msg).join(', '));
    for (const l of lines) {
      const named = l.fields['informer'] ?? l.fields['reflector'];
      assert.equal(named, `east/${FOO_NAME}`, `${l.msg}: ${JSON.stringify(l.fields)}`);
      assert.equal(l.fields['kind'], 'Foo');
    }
  });
});

describe('informer metrics (client-go 1.36 names and labels)', () => {
  it('queued items, processing latency and the store resourceVersion follow the handlers and the store', async () => {
    const lw = new FakeListerWatcher<KubeObject>();
    for (const n of ['a', 'b', 'c']) lw.upsert(foo(n));
    const registry = new Registry();
    const clock = new FakeClock(0);
    const factory = factoryWith(lw, registry, clock);
    const informer = factory.informerFor(fooResource);
    let release!: () => void;
    let handled = 0;
    informer.addEventHandler({
      // The first notification takes 300 ms on the informer's clock; the others none.
      onAdd: async () => {
        if (handled++ === 0) await new Promise<void>((r) => (release = r));
      },
    });
    assert.deepEqual(await samples(registry, 'informer_queued_items'), new Map(), 'nothing is published before the informer runs');
    factory.start();
    await informer.whenSynced();
    await settle(() => handled === 1, 'the first notification in the handler');
    assert.deepEqual(await samples(registry, 'informer_queued_items'), new Map([[fooLabels(), 3]]), 'three notifications not handled yet');
    const listed = Number(informer.lastStoreSyncResourceVersion);
    assert.ok(listed > 0);
    assert.deepEqual(await samples(registry, 'informer_store_resource_version'), new Map([[fooLabels(), listed]]), "the list's resourceVersion");
    clock.step(300);
    release();
    await settle(() => handled === 3, 'the other notifications');
    await until(async () => (await samples(registry, 'informer_queued_items')).get(fooLabels()) === 0, 'the queue drained');
    const buckets = await samples(registry, 'informer_processing_latency_seconds_bucket');
    assert.equal(buckets.get(fooLabels({ le: '0.001' })), 2, 'two notifications took no time');
    assert.equal(buckets.get(fooLabels({ le: '0.25' })), 2);
    assert.equal(buckets.get(fooLabels({ le: '0.5' })), 3, 'one took 300 ms');
    assert.equal((await samples(registry, 'informer_processing_latency_seconds_count')).get(fooLabels()), 3);
    const d = lw.upsert(foo('d'));
    await until(async () => (await samples(registry, 'informer_store_resource_version')).get(fooLabels()) === Number(d.metadata?.resourceVersion), 'the event applied');
    let e: KubeObject | undefined;
    lw.silently(() => (e = lw.upsert(foo('e'))));
    lw.bookmark();
    await until(async () => (await samples(registry, 'informer_store_resource_version')).get(fooLabels()) === Number(e?.metadata?.resourceVersion), 'a bookmark moves it too');
    assert.equal(informer.getIndexer().list().length, 4, 'e was not delivered: only the bookmark moved it');
    await factory.shutdown();
    for (const m of ['informer_queued_items', 'informer_store_resource_version', 'informer_processing_latency_seconds_count', 'kubegen_informer_watch_stalled']) {
      assert.deepEqual(await samples(registry, m), new Map(), `${m}: a stopped informer's series are gone`);
    }
  });

  it('the store resourceVersion keeps its 15 least significant digits, as client-go', () => {
    assert.equal(storeResourceVersionValue(''), 0);
    assert.equal(storeResourceVersionValue('12345'), 12345);
    assert.equal(storeResourceVersionValue('98765432109876543210'), 432109876543210);
    assert.ok(Number.isNaN(storeResourceVersionValue('not-a-number')));
  });

  it('one label set per informer: a second live informer of the same name and resource publishes nothing; a released one frees it', async () => {
    const lw = new FakeListerWatcher<KubeObject>();
    lw.upsert(foo('a'));
    const registry = new Registry();
    const warnings: string[] = [];
    const logger: Logger = { ...nullLogger, warn: (msg) => void warnings.push(msg), child: () => logger };
    const first = factoryWith(lw, registry, new FakeClock(0));
    const second = factoryWith(lw, registry, new FakeClock(0), { logger });
    const lease = first.acquire(fooResource);
    first.start();
    await lease.informer.whenSynced();
    const other = second.acquire(fooResource);
    second.start();
    await other.informer.whenSynced();
    assert.deepEqual(warnings, ['duplicate informer registration: metrics will not be published']);
    assert.deepEqual([...(await samples(registry, 'informer_queued_items')).keys()], [fooLabels()]);
    await lease.release();
    assert.deepEqual(await samples(registry, 'informer_queued_items'), new Map(), 'released: its series are gone (the duplicate never had any)');
    const again = first.acquire(fooResource);
    await again.informer.whenSynced();
    assert.deepEqual([...(await samples(registry, 'informer_queued_items')).keys()], [fooLabels()], 'a new informer of that name publishes again');
    await Promise.all([first.shutdown(), second.shutdown()]);
  });

  it('a watch silent past its deadline is a stalled gauge and a count until an event or bookmark arrives', async () => {
    const lw = new FakeListerWatcher<KubeObject>();
    lw.upsert(foo('a'));
    const registry = new Registry();
    const clock = new FakeClock(1_000_000);
    const factory = factoryWith(lw, registry, clock);
    const informer = factory.informerFor(fooResource);
    factory.start();
    await informer.whenSynced();
    await until(() => lw.openWatches === 1, 'the watch');
    assert.deepEqual(await samples(registry, 'kubegen_informer_watch_stalled'), new Map([[fooLabels(), 0]]));
    assert.deepEqual(await samples(registry, 'kubegen_informer_watch_stalls_total'), new Map([[fooLabels(), 0]]), 'the counter starts at 0');
    clock.step(4_000);
    lw.upsert(foo('b'));
    await until(() => informer.getIndexer().list().length === 2, 'the event');
    lw.silenceWatches();
    clock.step(10_000);
    await until(() => lw.watchCalls.length === 2, 'the replacement watch');
    assert.equal(informer.watchStalledSince, 1_004_000, 'nothing since the last event');
    assert.deepEqual(await samples(registry, 'kubegen_informer_watch_stalled'), new Map([[fooLabels(), 1]]));
    assert.deepEqual(factory.stalledWatches(), [{ name: FOO_NAME, kind: 'Foo', silentForMs: 10_000 }]);
    lw.silenceWatches();
    clock.step(10_000);
    await until(() => lw.watchCalls.length === 3, 'the second replacement');
    assert.deepEqual(await samples(registry, 'kubegen_informer_watch_stalls_total'), new Map([[fooLabels(), 2]]));
    assert.deepEqual(factory.stalledWatches().map((w) => w.silentForMs), [20_000], 'still silent: since the first stall');
    lw.bookmark();
    await until(() => informer.watchStalledSince === undefined, 'the bookmark clears it');
    assert.deepEqual(await samples(registry, 'kubegen_informer_watch_stalled'), new Map([[fooLabels(), 0]]));
    assert.deepEqual(factory.stalledWatches(), []);
    assert.equal(lw.listCalls.length, 1, 'no relist: the watches were replaced');
    await factory.shutdown();
  });
});

/** `transport` whose watches drop every event while `silent.on` (a connection that went quiet). */
function silenceable(transport: Transport, silent: { on: boolean }): Transport {
  return new Proxy(transport, {
    get(target, prop) {
      if (prop === 'watch') {
        return async (...args: Parameters<Transport['watch']>): Promise<Watch<unknown>> => {
          const inner = await target.watch(...args);
          return {
            stop: (reason?: unknown) => inner.stop(reason),
            async *[Symbol.asyncIterator]() {
              for await (const e of inner) if (!silent.on) yield e;
            },
          };
        };
      }
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe("the manager's informer-watches readiness check", () => {
  it('fails while a watch of its cache is silent past its deadline, naming the kind and informer, and passes once events resume', async () => {
    const fake = newFakeTransport([fooResource], foo('a'));
    const silent = { on: false };
    const clock = new FakeClock(1_000_000);
    const registry = new Registry();
    const mgr = new Manager({ transport: silenceable(fake, silent), clock, metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', logger: nullLogger, registry });
    const informer = mgr.getInformer(fooResource);
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => mgr.ready, 'the manager ready');
      const probes = `http://${mgr.healthProbeAddress}`;
      assert.equal((await fetch(`${probes}/readyz/informer-watches`)).status, 200);
      silent.on = true;
      // Without bookmarks seen, a watch may be quiet until its server timeout (at most 600 s) + 30 s.
      clock.step(700_000);
      await until(() => informer.watchStalledSince !== undefined, 'the stall');
      const res = await fetch(`${probes}/readyz/informer-watches`);
      assert.equal(res.status, 500);
      assert.match(await res.text(), new RegExp(`watch silent past its deadline: Foo \\(${FOO_NAME}\\) for \\d+ s`));
      const all = await fetch(`${probes}/readyz?verbose`);
      assert.equal(all.status, 500);
      assert.match(await all.text(), /\[-\]informer-watches failed/);
      assert.equal((await samples(registry, 'kubegen_informer_watch_stalled')).get(fooLabels()), 1);
      silent.on = false;
      await new ResourceClient<KubeObject>(fake, fooResource, 'ns').create(foo('b'));
      await until(async () => (await fetch(`${probes}/readyz/informer-watches`)).status === 200, 'readyz passes again once an event arrived');
      assert.equal((await fetch(`${probes}/readyz`)).status, 200);
      assert.equal((await samples(registry, 'kubegen_informer_watch_stalled')).get(fooLabels()), 0);
    } finally {
      stop.abort();
      await run;
    }
  });
});
