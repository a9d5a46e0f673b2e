import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isConflict, isNotFound, isNotServed } from '@kubegen/runtime/internal/client/errors.js';
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { DynamicClient } from '@kubegen/runtime/internal/dynamic/dynamic-client.js';
import type { Unstructured, UnstructuredList } from '@kubegen/runtime/internal/dynamic/unstructured.js';
import { mappingOf } from '@kubegen/runtime/internal/restmapper/types.js';
import { FakeDynamicClient, newFakeDynamicClient } from '@kubegen/runtime/internal/testing/fake/fake-dynamic.js';
import { FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { Reflector } from '@kubegen/runtime/internal/cache/reflector.js';
import type { ListerWatcher } from '@kubegen/runtime/internal/cache/reflector-types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { BARS, FOOS, take } from './fake-fixtures.js';
import { rejection } from '../support/rejection.js';

const FOO_GVR = { group: 'example.com', version: 'v1', resource: 'foos' };
const BAR_GVR = { group: 'example.com', version: 'v1', resource: 'bars' };
const CONFIGMAPS: ResourceInfo = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true };

const fooObj = (name: string, replicas = 1, extra: Record<string, unknown> = {}): Unstructured => ({
  apiVersion: 'example.com/v1',
  kind: 'Foo',
  metadata: { name },
  spec: { replicas },
  ...extra,
});


describe('DynamicClient on the fake: every verb', () => {
  it('create, get, list, update, updateStatus, patch (merge, json, strategic), delete in a namespace', async () => {
    const client = newFakeDynamicClient([FOOS, BARS]);
    const foos = client.resource(FOO_GVR).namespace('ns1');
    const created = await foos.create(fooObj('a', 1, { status: { replicas: 9 } }));
    assert.equal(created.metadata!.namespace, 'ns1');
    assert.equal(created.kind, 'Foo');
    assert.equal(created['status'], undefined, 'status is dropped on create (status subresource)');
    assert.deepEqual((await foos.get('a'))['spec'], { replicas: 1 });

    const updated = await foos.update({ ...created, spec: { replicas: 2 } });
    assert.deepEqual(updated['spec'], { replicas: 2 });
    assert.equal(updated.metadata!.generation, 2);
    await assert.rejects(foos.update({ ...created, spec: { replicas: 3 } }), (e) => isConflict(e), 'a stale resourceVersion conflicts');

    const withStatus = await foos.updateStatus({ ...updated, status: { replicas: 2, phase: 'Ready' } });
    assert.deepEqual(withStatus['status'], { replicas: 2, phase: 'Ready' });
    assert.equal(withStatus.metadata!.generation, 2, 'a status write does not bump the generation');

    assert.deepEqual((await foos.patch('a', { type: 'merge', patch: { spec: { color: 'red' } } }))['spec'], { replicas: 2, color: 'red' });
    assert.deepEqual((await foos.patch('a', { type: 'json', patch: [{ op: 'replace', path: '/spec/replicas', value: 4 }] }))['spec'], { replicas: 4, color: 'red' });
    assert.deepEqual((await foos.patch('a', { type: 'strategic', patch: { spec: { color: 'blue' } } }))['spec'], { replicas: 4, color: 'blue' });
    const statusPatched = await foos.patchSubresource('a', 'status', { type: 'merge', patch: { status: { phase: 'Done' } } });
    assert.equal((statusPatched['status'] as { phase: string }).phase, 'Done');

    await foos.delete('a');
    assert.ok(isNotFound(await rejection(foos.get('a'))));
    assert.deepEqual(
      client.fake.actions().map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.namespace}/${a.name}`),
      [
        'create foos ns1/', 'get foos ns1/a', 'update foos ns1/a', 'update foos ns1/a', 'update foos/status ns1/a', 'patch foos ns1/a',
        'patch foos ns1/a', 'patch foos ns1/a', 'patch foos/status ns1/a', 'delete foos ns1/a', 'get foos ns1/a',
      ],
    );
  });

  it('apply and applyStatus: server-side apply with the field manager, creating the object', async () => {
    const client = newFakeDynamicClient([FOOS]);
    const foos = client.resource(FOO_GVR).namespace('ns1');
    const applied = await foos.apply({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' }, spec: { replicas: 3 } }, { fieldManager: 'dyn' });
    assert.deepEqual(applied['spec'], { replicas: 3 });
    assert.deepEqual(applied.metadata!.managedFields!.map((m) => (m as { manager: string }).manager), ['dyn']);
    const status = await foos.applyStatus({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' }, status: { phase: 'Up' } }, { fieldManager: 'dyn-status' });
    assert.deepEqual(status['status'], { phase: 'Up' });
    const actions = client.fake.actions();
    assert.deepEqual(actions.map((a) => [a.verb, a.subresource, a.patchType, a.query['fieldManager']]), [
      ['patch', '', 'apply', 'dyn'],
      ['patch', 'status', 'apply', 'dyn-status'],
    ]);
  });

  it('list, paged listAll and watch, in a namespace and across namespaces', async () => {
    const client = newFakeDynamicClient([FOOS], ...['c', 'a', 'b'].map((n) => ({ ...fooObj(n), metadata: { name: n, namespace: 'ns1' } })), {
      ...fooObj('z'),
      metadata: { name: 'z', namespace: 'ns2' },
    });
    const all = client.resource(FOO_GVR);
    const list = await all.list();
    assert.equal(list.kind, 'FooList', 'the list kind comes from the registered resource');
    assert.deepEqual(list.items.map((o) => `${o.metadata!.namespace}/${o.metadata!.name}`), ['ns1/a', 'ns1/b', 'ns1/c', 'ns2/z']);
    const names: string[] = [];
    for await (const o of all.namespace('ns1').listAll({ limit: 2 })) names.push(o.metadata!.name!);
    assert.deepEqual(names, ['a', 'b', 'c']);
    assert.deepEqual(client.fake.actions().filter((a) => a.verb === 'list').map((a) => [a.namespace, a.query['limit'] ?? '', a.query['continue'] ? 'continue' : '']), [
      ['', '', ''],
      ['ns1', 2, ''],
      ['ns1', 2, 'continue'],
    ]);
    const w = await all.namespace('ns2').watch({ resourceVersion: list.metadata!.resourceVersion });
    await client.resource(FOO_GVR).namespace('ns2').create(fooObj('y'));
    await client.resource(FOO_GVR).namespace('ns1').create(fooObj('x'));
    await client.resource(FOO_GVR).namespace('ns2').delete('z');
    const events = await take(w, 2);
    w.stop();
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata!.name}`), ['ADDED y', 'DELETED z']);
  });

  it('deleteCollection by label selector', async () => {
    const client = newFakeDynamicClient([FOOS]);
    const foos = client.resource(FOO_GVR).namespace('ns1');
    for (const [n, app] of [['a', 'web'], ['b', 'db'], ['c', 'web']] as const) await foos.create({ ...fooObj(n), metadata: { name: n, labels: { app } } });
    await foos.deleteCollection({ labelSelector: 'app=web' });
    assert.deepEqual((await foos.list()).items.map((o) => o.metadata!.name), ['b']);
  });

  it('cluster-scoped resources without a namespace; the scale subresource through get/update/patchSubresource', async () => {
    const client = newFakeDynamicClient([BARS, { ...FOOS }]);
    const bars = client.resource(BAR_GVR);
    await bars.create({ apiVersion: 'example.com/v1', kind: 'Bar', metadata: { name: 'b1' }, spec: {} });
    assert.equal((await bars.get('b1')).metadata!.namespace, undefined);
    const foos = client.resource(FOO_GVR).namespace('ns1');
    await foos.create(fooObj('a', 2));
    const scale = await foos.getSubresource('a', 'scale');
    assert.equal(scale.kind, 'Scale');
    assert.deepEqual(scale['spec'], { replicas: 2 });
    const scaled = await foos.updateSubresource('a', 'scale', { ...scale, spec: { replicas: 5 } });
    assert.deepEqual(scaled['spec'], { replicas: 5 });
    await foos.patchSubresource('a', 'scale', { type: 'merge', patch: { spec: { replicas: 6 } } });
    assert.deepEqual((await foos.get('a'))['spec'], { replicas: 6 });
    const custom = await rejection(foos.getSubresource('a', 'custom'));
    assert.ok(isNotFound(custom), 'a subresource the fake does not serve is a 404');
  });

  it('a namespace on a cluster-scoped resource is a 404, as on the apiserver', async () => {
    const client = newFakeDynamicClient([BARS], { apiVersion: 'example.com/v1', kind: 'Bar', metadata: { name: 'b1' } });
    const err = await rejection(client.resource(BAR_GVR).namespace('ns1').get('b1'));
    assert.ok(isNotFound(err), String(err));
    await assert.rejects(client.resource(BAR_GVR).namespace('ns1').watch(), (e) => isNotFound(e));
  });

  it('an unregistered resource gets the fake transport\'s not-served 404, naming the resource (and the kind given a mapping)', async () => {
    const client = newFakeDynamicClient([FOOS]);
    const err = (await rejection(client.resource({ group: 'other.io', version: 'v2', resource: 'gadgets' }).list())) as ApiError;
    assert.ok(isNotFound(err) && isNotServed(err));
    assert.equal(err.message, 'gadgets other.io/v2 is not served by this apiserver (it serves no version of other.io); is the CustomResourceDefinition gadgets.other.io installed and established, with version v2 served?');
    assert.equal(err.request?.verb, 'list');
    const mapped = (await rejection(client.forMapping(mappingOf({ ...CONFIGMAPS })).namespace('x').get('y'))) as ApiError;
    assert.equal(mapped.message, 'ConfigMap v1 is not served by this apiserver (it serves no version of the core group)');
  });
});

describe('DynamicClient rules (client-go semantics), nothing sent when refused', () => {
  const cases: [string, (c: FakeDynamicClient) => Promise<unknown>, RegExp][] = [
    ['get without a name', (c) => c.resource(FOO_GVR).namespace('ns').get(''), /a name is required/],
    ['get of ".."', (c) => c.resource(FOO_GVR).namespace('ns').get('..'), /invalid resource name "\.\.": may not be '\.\.'/],
    ['delete of "a/b"', (c) => c.resource(FOO_GVR).namespace('ns').delete('a/b'), /invalid resource name "a\/b": may not contain '\/'/],
    ['patch of "a%2Fb"', (c) => c.resource(FOO_GVR).namespace('ns').patch('a%2Fb', { type: 'merge', patch: {} }), /may not contain '%'/],
    ['update without metadata.name', (c) => c.resource(FOO_GVR).namespace('ns').update(fooObj('')), /a name is required/],
    ['a subresource with ".."', (c) => c.resource(FOO_GVR).namespace('ns').getSubresource('a', 'status/..'), /invalid subresource "\.\."/],
    ['an empty subresource segment', (c) => c.resource(FOO_GVR).namespace('ns').getSubresource('a', 'status//x'), /empty segment/],
    ['create of an object without a kind (keyed by resource)', (c) => c.resource(FOO_GVR).namespace('ns').create({ metadata: { name: 'a' } }), /without a kind/],
    ['an object namespace "../x"', (c) => c.forMapping(mappingOf({ ...FOOS })).create({ ...fooObj('a'), metadata: { name: 'a', namespace: '../x' } }), /invalid namespace "\.\.\/x"/],
    ['apply without a name', (c) => c.resource(FOO_GVR).namespace('ns').apply({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: {} }), /a name is required/],
    [
      'apply of an object with managedFields',
      (c) => c.resource(FOO_GVR).namespace('ns').apply({ ...fooObj('a'), metadata: { name: 'a', managedFields: [{ manager: 'x' }] } }),
      /cannot apply an object with metadata\.managedFields set \(a\)/,
    ],
    [
      'applyStatus of an object with managedFields',
      (c) => c.resource(FOO_GVR).namespace('ns').applyStatus({ ...fooObj('a'), metadata: { name: 'a', managedFields: [{ manager: 'x' }] } }),
      /cannot applyStatus an object with metadata\.managedFields/,
    ],
    ['a namespaced mapping without a namespace', (c) => c.forMapping(mappingOf({ ...FOOS })).get('a'), /foos: a namespace is required for get/],
  ];
  for (const [what, call, message] of cases) {
    it(`refuses ${what}`, async () => {
      const client = newFakeDynamicClient([FOOS]);
      const err = await rejection(call(client));
      assert.ok(err instanceof TypeError, `a TypeError, got ${String(err)}`);
      assert.match(err.message, message);
      assert.deepEqual(client.fake.actions(), [], 'nothing was sent');
    });
  }

  it('checks namespace, resource and group as path segments when the client is made', () => {
    const client = new DynamicClient(new FakeTransport());
    assert.throws(() => client.resource(FOO_GVR).namespace('a/b'), /invalid namespace "a\/b": may not contain '\/'/);
    assert.throws(() => client.resource(FOO_GVR).namespace('..'), /may not be '\.\.'/);
    assert.throws(() => client.resource({ ...FOO_GVR, resource: 'foos/status' }), /invalid resource "foos\/status"/);
    assert.throws(() => client.resource({ ...FOO_GVR, group: 'a/b' }), /invalid group/);
    assert.throws(() => client.resource({ ...FOO_GVR, version: '' }), /a resource and a version are required/);
    assert.equal(client.resource(FOO_GVR).namespace('ns').namespace('').namespaceName, undefined, "'' is cluster-wide again");
    assert.equal(client.resource({ group: '', version: 'v1', resource: 'pods' }).namespace('ns').resourceKey, '/v1/pods');
  });

  it('fills in apiVersion from the resource, and the kind from a mapping', async () => {
    const client = newFakeDynamicClient([FOOS]);
    const byResource = await client.resource(FOO_GVR).namespace('ns').create({ kind: 'Foo', metadata: { name: 'a' } });
    assert.equal(byResource.apiVersion, 'example.com/v1');
    const byMapping = client.forMapping(mappingOf({ ...FOOS }));
    await byMapping.namespace('ns').create({ metadata: { name: 'b' }, spec: {} });
    await byMapping.create({ metadata: { name: 'c', namespace: 'ns' }, spec: {} });
    const sent = client.fake.actions().map((a) => a.object as Unstructured);
    assert.deepEqual(sent.map((o) => [o.apiVersion, o.kind]), [['example.com/v1', 'Foo'], ['example.com/v1', 'Foo'], ['example.com/v1', 'Foo']]);
    assert.deepEqual(client.fake.actions().map((a) => a.namespace), ['ns', 'ns', 'ns'], "a namespaced mapping's client takes the object's namespace");
  });

  it('a cluster-scoped mapping ignores a namespace (controller-runtime)', async () => {
    const client = newFakeDynamicClient([BARS], { apiVersion: 'example.com/v1', kind: 'Bar', metadata: { name: 'b1' } });
    const bars = client.forMapping(mappingOf({ ...BARS })).namespace('ns1');
    assert.equal(bars.namespaceName, undefined);
    assert.equal((await bars.get('b1')).metadata!.name, 'b1');
  });
});

describe('DynamicClient list item kinds', () => {
  it('items without apiVersion and kind get them from the list kind minus List (built-in lists omit them); others are kept', async () => {
    const fake = new FakeTransport();
    const answer: UnstructuredList = {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '5' },
      items: [{ metadata: { name: 'a' } }, { apiVersion: 'v1', kind: 'Other', metadata: { name: 'b' } }],
    };
    fake.prependReactor('list', 'configmaps', () => ({ handled: true, result: structuredClone(answer) }));
    const cms = new DynamicClient(fake).resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('ns');
    const list = await cms.list();
    assert.deepEqual(list.items.map((o) => [o.apiVersion, o.kind, o.metadata!.name]), [['v1', 'ConfigMap', 'a'], ['v1', 'Other', 'b']]);
    const all: Unstructured[] = [];
    for await (const o of cms.listAll()) all.push(o);
    assert.deepEqual(all.map((o) => o.kind), ['ConfigMap', 'Other'], 'listAll stamps too');
  });
});

describe('DynamicResourceClient as a ListerWatcher', () => {
  it('a reflector lists and watches through it; WatchList support is the transport\'s', async () => {
    const client = newFakeDynamicClient([FOOS], { ...fooObj('a'), metadata: { name: 'a', namespace: 'ns' } });
    const lw: ListerWatcher<Unstructured> = client.resource(FOO_GVR).namespace('ns');
    assert.equal(lw.isWatchListSemanticsUnsupported?.(), true, 'the fake transport says so by default');
    const seen: string[] = [];
    let added!: () => void;
    const gotB = new Promise<void>((resolve) => (added = resolve));
    const reflector = new Reflector<Unstructured>(lw, {
      replace: (items) => void seen.push(...items.map((o) => `replace ${o.kind}/${o.metadata!.name}`)),
      add: (o) => {
        seen.push(`add ${o.kind}/${o.metadata!.name}`);
        added();
      },
      update: () => {},
      delete: () => {},
    }, { name: 'foos', logger: nullLogger });
    const running = reflector.run();
    for (let i = 0; client.tracker.openWatches === 0; i++) {
      assert.ok(i < 5000, 'the reflector opened a watch');
      await new Promise((r) => setTimeout(r, 1));
    }
    await client.resource(FOO_GVR).namespace('ns').create(fooObj('b'));
    await gotB;
    await reflector.stop();
    await running;
    assert.deepEqual(seen, ['replace Foo/a', 'add Foo/b']);
    client.fake.watchListSemantics = true;
    assert.equal(lw.isWatchListSemanticsUnsupported?.(), false);
  });
});

describe('FakeDynamicClient', () => {
  it('shares its tracker with a typed client over the same FakeTransport', async () => {
    const fake = new FakeTransport();
    fake.tracker.register(FOOS);
    const dyn = new FakeDynamicClient(fake);
    dyn.tracker.add({ ...fooObj('seeded'), metadata: { name: 'seeded', namespace: 'ns' } });
    assert.equal((await dyn.resource(FOO_GVR).namespace('ns').get('seeded')).metadata!.name, 'seeded');
    assert.equal(dyn.fake, fake);
  });
});
