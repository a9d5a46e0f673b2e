/**
 * The manager's per-kind cache options (issue 14, leaner caches): namespaces (one informer each), label selectors,
 * transforms, the managedFields decision (dropped by default for kinds only watched by `owns()`), and field indexes
 * that the cached client's `list({ fieldSelector })` reads (controller-runtime's `IndexField`). On the fake
 * transport; the same against a real apiserver is in test/integration/manager-cache.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import type { CacheOptions } from '@kubegen/runtime/internal/cluster/cluster-cache.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import type { FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../test/golden/sample-controller/samplecontroller.k8s.io/v1alpha1/register.js';
import { settle } from '../support/wait.js';

const DEPLOYMENTS = builtinResources.deployments;
const MANAGED = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
const foo = (ns: string, name: string, labels: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name, namespace: ns, uid: `u-${ns}-${name}`, labels, managedFields: MANAGED }, spec: { deploymentName: `d-${name}` } }) as KubeObject;
const deployment = (ns: string, name: string, owner: string, image = 'nginx'): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, managedFields: MANAGED, ownerReferences: [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: owner, uid: `u-${ns}-${owner}`, controller: true }] },
    spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
  }) as KubeObject;

/** Runs a manager with `cache` and one controller built by `wire` until `check` is done. */
async function withManager(
  transport: FakeTransport,
  cache: CacheOptions,
  wire: (mgr: Manager, seen: string[]) => void,
  check: (mgr: Manager, seen: string[]) => Promise<void>,
): Promise<void> {
  const mgr = new Manager({ transport, metricsBindAddress: '0', logger: nullLogger, registry: new Registry(), cache });
  const seen: string[] = [];
  wire(mgr, seen);
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  try {
    await settle(() => mgr.ready, 'cache sync');
    await check(mgr, seen);
  } finally {
    stop.abort();
    await run;
  }
}

const listsOf = (t: FakeTransport, resource: string) => t.actions().filter((a) => a.verb === 'list' && a.resource === resource);

describe('Manager cache options: namespaces and selectors per kind', () => {
  it('caches a kind in the listed namespaces only, one informer each, and reads other namespaces from the API', async () => {
    const t = newFakeTransport([fooResource, DEPLOYMENTS], foo('a', 'f1'), foo('b', 'f2'), foo('c', 'f3'));
    await withManager(
      t,
      { byObject: [{ resource: fooResource, namespaces: ['b', 'a'] }] },
      (mgr, seen) => void controllerFor(mgr, fooResource).complete(async (req) => void seen.push(`${req.namespace}/${req.name}`)),
      async (mgr, seen) => {
        await settle(() => seen.length >= 2, 'reconciles');
        await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual([...seen].sort(), ['a/f1', 'b/f2'], 'only the cached namespaces are reconciled');
        assert.deepEqual(listsOf(t, 'foos').map((a) => a.namespace).sort(), ['a', 'b'], 'one list per namespace, none cluster-wide');
        assert.throws(() => mgr.getInformer(fooResource), /cached in 2 namespaces: use getInformers/);
        const all = await mgr.getClient().resource(fooResource).list();
        assert.deepEqual(all.items.map((o) => o.metadata?.name).sort(), ['f1', 'f2'], 'an all-namespace read is the union of the caches');
        const before = listsOf(t, 'foos').length;
        assert.equal((await mgr.getClient().resource(fooResource, 'a').get('f1')).metadata?.name, 'f1');
        assert.equal(listsOf(t, 'foos').length, before, 'namespace a is read from the cache');
        const c = await mgr.getClient().resource(fooResource, 'c').list();
        assert.deepEqual(c.items.map((o) => o.metadata?.name), ['f3']);
        assert.equal(listsOf(t, 'foos').length, before + 1, 'namespace c (not cached) is read from the API');
      },
    );
  });

  it('lists and watches with the kind\'s label selector and runs its transform', async () => {
    const t = newFakeTransport([fooResource], foo('a', 'in', { shard: 'x' }), foo('a', 'out', { shard: 'y' }));
    await withManager(
      t,
      { byObject: [{ resource: fooResource, labelSelector: 'shard=x', transform: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { seen: 'yes' } } }) }] },
      (mgr) => void mgr.getInformer(fooResource),
      async (mgr) => {
        assert.deepEqual(listsOf(t, 'foos').map((a) => a.query['labelSelector']), ['shard=x']);
        const items = (await mgr.getClient().resource(fooResource, 'a').list()).items;
        assert.deepEqual(items.map((o) => [o.metadata?.name, o.metadata?.annotations?.['seen']]), [['in', 'yes']]);
      },
    );
  });
});

describe('Manager cache options: managedFields', () => {
  const cached = (mgr: Manager, info: typeof fooResource, ns: string, name: string): KubeObject | undefined =>
    mgr.getInformers(info)[0]!.lister().namespace(ns).get(name);

  it('drops them for kinds only watched by owns(), keeps them for the for() kind', async () => {
    const t = newFakeTransport([fooResource, DEPLOYMENTS], foo('a', 'f'), deployment('a', 'd-f', 'f'));
    await withManager(
      t,
      {},
      (mgr) => void controllerFor(mgr, fooResource).owns(DEPLOYMENTS).complete(async () => {}),
      async (mgr) => {
        assert.equal(cached(mgr, DEPLOYMENTS, 'a', 'd-f')?.metadata?.managedFields, undefined, 'owned: dropped');
        assert.deepEqual(cached(mgr, fooResource, 'a', 'f')?.metadata?.managedFields, MANAGED, 'for(): kept');
      },
    );
  });

  it('keeps them when another controller watches the owned kind through for(), or when the options say so', async () => {
    for (const [name, cache, wire] of [
      ['for() elsewhere', {}, (mgr: Manager) => {
        controllerFor(mgr, fooResource).owns(DEPLOYMENTS).complete(async () => {});
        controllerFor(mgr, DEPLOYMENTS).complete(async () => {});
      }],
      ['stripManagedFields: false', { byObject: [{ resource: DEPLOYMENTS, stripManagedFields: false }] }, (mgr: Manager) => {
        controllerFor(mgr, fooResource).owns(DEPLOYMENTS).complete(async () => {});
      }],
    ] as const) {
      const t = newFakeTransport([fooResource, DEPLOYMENTS], foo('a', 'f'), deployment('a', 'd-f', 'f'));
      await withManager(t, cache, wire, async (mgr) => {
        assert.deepEqual(cached(mgr, DEPLOYMENTS, 'a', 'd-f')?.metadata?.managedFields, MANAGED, name);
      });
    }
  });

  it('drops them for every kind with defaultStripManagedFields', async () => {
    const t = newFakeTransport([fooResource], foo('a', 'f'));
    await withManager(t, { defaultStripManagedFields: true }, (mgr) => void controllerFor(mgr, fooResource).complete(async () => {}), async (mgr) => {
      assert.equal(cached(mgr, fooResource, 'a', 'f')?.metadata?.managedFields, undefined);
    });
  });
});

describe('Manager.indexField and cached list by field selector', () => {
  const byImage = (d: KubeObject): string[] =>
    ((d as { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } }).spec?.template?.spec?.containers ?? []).map((c) => c.image ?? '');

  it('answers equality field selectors on indexed fields from the cache, per namespace and across namespaces', async () => {
    const t = newFakeTransport(
      [DEPLOYMENTS],
      deployment('a', 'd1', 'f', 'nginx'),
      deployment('a', 'd2', 'f', 'redis'),
      deployment('b', 'd3', 'f', 'nginx'),
    );
    await withManager(
      t,
      {},
      (mgr) => mgr.indexField(DEPLOYMENTS, 'spec.image', byImage),
      async (mgr) => {
        const client = mgr.getClient();
        const before = listsOf(t, 'deployments').length;
        const names = async (ns: string | undefined, fieldSelector: string) =>
          (await client.resource(DEPLOYMENTS, ns).list({ fieldSelector })).items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
        assert.deepEqual(await names('a', 'spec.image=nginx'), ['a/d1']);
        assert.deepEqual(await names(undefined, 'spec.image=nginx'), ['a/d1', 'b/d3']);
        assert.deepEqual(await names(undefined, 'spec.image==nginx,metadata.namespace=b'), ['b/d3']);
        assert.deepEqual(await names(undefined, 'spec.image=nginx,metadata.name!=d1'), ['b/d3']);
        assert.deepEqual(await names('a', 'spec.image=mysql'), []);
        assert.deepEqual(await names('a', 'metadata.name=d2'), ['a/d2'], 'metadata fields need no index');
        assert.equal(listsOf(t, 'deployments').length, before, 'all of these came from the cache');
        await client.resource(DEPLOYMENTS, 'a').list({ fieldSelector: 'spec.paused=true' });
        assert.equal(listsOf(t, 'deployments').length, before + 1, 'a field without an index goes to the API');
        assert.throws(() => mgr.indexField(DEPLOYMENTS, 'spec.image', byImage), /field "spec.image" is already indexed/);
      },
    );
  });
});

describe('Manager stop: controllers before caches', () => {
  it('a reconcile still running when the manager stops reads from the cache, which its controller keeps until it ends', async () => {
    const t = newFakeTransport([fooResource, DEPLOYMENTS], foo('a', 'f'), deployment('a', 'd-f', 'f'));
    const mgr = new Manager({ transport: t, metricsBindAddress: '0', logger: nullLogger, registry: new Registry() });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let seen: string[] | undefined;
    controllerFor(mgr, fooResource)
      .owns(DEPLOYMENTS)
      .complete(async () => {
        started();
        await gate;
        seen = (await mgr.getClient().resource(DEPLOYMENTS, 'a').list()).items.map((d) => d.metadata!.name!);
      });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await running;
    const before = listsOf(t, 'deployments').length;
    stop.abort();
    await new Promise((r) => setTimeout(r, 20));
    release();
    await run;
    assert.deepEqual(seen, ['d-f']);
    assert.equal(listsOf(t, 'deployments').length, before, 'the in-flight reconcile read the owned kind from the cache, not the API');
  });
});
