import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isBadRequest, isConflict, isInternalError, isInvalid, isNotFound, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { actionMatches } from '@kubegen/runtime/internal/testing/fake/fake-actions.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { BARS, FOOS, foo, setup } from './fake-fixtures.js';
import type { Foo } from './fake-fixtures.js';

async function rejects(p: Promise<unknown>, check: (e: unknown) => boolean, what: string): Promise<ApiError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined && check(caught), `expected ${what}, got ${String(caught)}`);
  return caught as ApiError;
}

async function seedFoos(foos: ResourceClient<Foo>, names: string[], labels: (n: string) => Record<string, string> = () => ({})) {
  for (const n of names) await foos.create(foo(n, { metadata: { name: n, labels: labels(n) } }));
}

describe('FakeTransport list', () => {
  it('filters by namespace, label and field selector, sorted by namespace/name', async () => {
    const { fake, foos } = setup();
    await seedFoos(foos, ['c', 'a', 'b'], (n) => ({ app: n === 'b' ? 'db' : 'web' }));
    await new ResourceClient<Foo>(fake, FOOS, 'ns0').create(foo('z', { metadata: { name: 'z', labels: { app: 'web' } } }));
    const list = await foos.list();
    assert.equal(list.kind, 'FooList');
    assert.equal(list.apiVersion, 'example.com/v1');
    assert.equal(list.metadata!.resourceVersion, '4');
    assert.deepEqual(list.items.map((o) => o.metadata!.name), ['a', 'b', 'c']);
    const all = new ResourceClient<Foo>(fake, FOOS);
    assert.deepEqual((await all.list()).items.map((o) => `${o.metadata!.namespace}/${o.metadata!.name}`), ['ns0/z', 'ns1/a', 'ns1/b', 'ns1/c']);
    assert.deepEqual((await foos.list({ labelSelector: 'app=web' })).items.map((o) => o.metadata!.name), ['a', 'c']);
    assert.deepEqual((await foos.list({ labelSelector: 'app notin (web)' })).items.map((o) => o.metadata!.name), ['b']);
    assert.deepEqual((await all.list({ fieldSelector: 'metadata.namespace=ns0' })).items.map((o) => o.metadata!.name), ['z']);
    assert.deepEqual((await all.list({ fieldSelector: 'metadata.name!=a', labelSelector: 'app=web' })).items.map((o) => o.metadata!.name), ['z', 'c']);
    await rejects(foos.list({ labelSelector: 'app in (' }), isBadRequest, 'BadRequest for a bad label selector');
    await rejects(foos.list({ fieldSelector: 'nonsense' }), isBadRequest, 'BadRequest for a bad field selector');
  });

  it('pages with limit/continue and listAll walks every page', async () => {
    const { fake, foos } = setup();
    await seedFoos(foos, ['e', 'd', 'c', 'b', 'a']);
    const p1 = await foos.list({ limit: 2 });
    assert.deepEqual(p1.items.map((o) => o.metadata!.name), ['a', 'b']);
    assert.equal(p1.metadata!.remainingItemCount, 3);
    assert.ok(p1.metadata!.continue);
    const p2 = await foos.list({ limit: 2, continue: p1.metadata!.continue });
    assert.deepEqual(p2.items.map((o) => o.metadata!.name), ['c', 'd']);
    assert.equal(p2.metadata!.resourceVersion, p1.metadata!.resourceVersion, 'pages report the first page resourceVersion');
    const p3 = await foos.list({ limit: 2, continue: p2.metadata!.continue });
    assert.deepEqual(p3.items.map((o) => o.metadata!.name), ['e']);
    assert.equal(p3.metadata!.continue, undefined);
    fake.clearActions();
    const names: string[] = [];
    for await (const o of foos.listAll({ limit: 2 })) names.push(o.metadata!.name!);
    assert.deepEqual(names, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(fake.actions().filter((a) => a.verb === 'list').length, 3);
    await rejects(foos.list({ limit: 2, continue: 'garbage' }), isBadRequest, 'BadRequest for a bad continue token');
  });
});

describe('FakeTransport patch', () => {
  it('merge patch: changes fields, bumps generation, conflicts on a stale resourceVersion', async () => {
    const { foos } = setup();
    const v1 = await foos.create(foo('a', { spec: { color: 'red', replicas: 1 } }));
    const v2 = await foos.patch('a', { type: 'merge', patch: { spec: { color: null, replicas: 4 }, metadata: { labels: { l: 'v' } } } });
    assert.deepEqual(v2.spec, { replicas: 4 });
    assert.deepEqual(v2.metadata!.labels, { l: 'v' });
    assert.equal(v2.metadata!.generation, 2);
    await rejects(
      foos.patch('a', { type: 'merge', patch: { metadata: { resourceVersion: v1.metadata!.resourceVersion }, spec: { replicas: 9 } } }),
      isConflict,
      'Conflict',
    );
    await rejects(foos.patch('missing', { type: 'merge', patch: {} }), isNotFound, 'NotFound');
    const withStatus = await foos.patch('a', { type: 'merge', patch: { status: { phase: 'ignored' } } });
    assert.equal(withStatus.status, undefined, 'status is ignored on the main resource');
  });

  it('json patch: applies operations, 422 when a test fails, 400 when malformed', async () => {
    const { foos } = setup();
    await foos.create(foo('a', { metadata: { name: 'a', labels: { 'example.com/x': '1' } } }));
    const v = await foos.patch('a', {
      type: 'json',
      patch: [
        { op: 'test', path: '/spec/replicas', value: 1 },
        { op: 'replace', path: '/spec/replicas', value: 2 },
        { op: 'add', path: '/spec/list', value: ['x'] },
        { op: 'add', path: '/spec/list/-', value: 'y' },
        { op: 'remove', path: '/metadata/labels/example.com~1x' },
      ],
    });
    assert.deepEqual(v.spec, { replicas: 2, list: ['x', 'y'] });
    assert.deepEqual(v.metadata!.labels, {});
    const failed = await rejects(foos.patch('a', { type: 'json', patch: [{ op: 'test', path: '/spec/replicas', value: 1 }] }), isInvalid, 'Invalid');
    assert.equal(failed.code, 422);
    assert.equal((await foos.get('a')).spec!.replicas, 2, 'nothing applied');
    await rejects(foos.patch('a', { type: 'json', patch: { op: 'add' } as never }), isBadRequest, 'BadRequest');
  });

  it('apply creates when absent, then merges the applied fields (fake-apply.test.ts has the rest); the tracker needs a field manager', async () => {
    const { fake, foos } = setup();
    const created = await foos.apply({ metadata: { name: 'a' }, spec: { replicas: 3, color: 'blue' } }, { fieldManager: 'me' });
    assert.equal(created.metadata!.generation, 1);
    assert.equal(created.kind, 'Foo');
    const merged = await foos.apply({ metadata: { name: 'a', labels: { k: 'v' } }, spec: { replicas: 5 } }, { fieldManager: 'me' });
    assert.deepEqual(merged.spec, { replicas: 5 }, 'color: applied before by the same manager, left out now: removed');
    assert.deepEqual(merged.metadata!.labels, { k: 'v' });
    assert.equal(merged.metadata!.uid, created.metadata!.uid);
    // The typed client always names one (see fake-apply.test.ts); the tracker refuses an apply without it.
    assert.throws(() => fake.tracker.patch(FOOS, 'ns1', 'b', 'apply', { metadata: { name: 'b' } }), isInvalid, 'Invalid without fieldManager');
    const status = await foos.applyStatus({ metadata: { name: 'a' }, status: { phase: 'Ready' } }, { fieldManager: 'me' });
    assert.equal(status.status!.phase, 'Ready');
    assert.deepEqual(status.spec, { replicas: 5 });
    await rejects(foos.applyStatus({ metadata: { name: 'nope' }, status: {} }, { fieldManager: 'me' }), isNotFound, 'applyStatus needs the object');
    const patched = await foos.patchStatus('a', { type: 'merge', patch: { status: { replicas: 2 } } });
    assert.deepEqual(patched.status, { phase: 'Ready', replicas: 2 });
  });
});

describe('FakeTransport scale subresource', () => {
  it('reads and writes replicas through the registered paths', async () => {
    const { foos, fake } = setup();
    await foos.create(foo('a', { spec: { replicas: 2 } }));
    await foos.patchStatus('a', { type: 'merge', patch: { status: { replicas: 1, selector: 'app=a' } } });
    const s = await foos.getScale('a');
    assert.equal(s.kind, 'Scale');
    assert.equal(s.apiVersion, 'autoscaling/v1');
    assert.deepEqual(s.spec, { replicas: 2 });
    assert.deepEqual(s.status, { replicas: 1, selector: 'app=a' });
    const s2 = await foos.updateScale('a', { ...s, spec: { replicas: 7 } });
    assert.equal(s2.spec!.replicas, 7);
    const obj = await foos.get('a');
    assert.equal(obj.spec!.replicas, 7);
    assert.equal(obj.metadata!.generation, 2);
    await rejects(foos.updateScale('a', s), isConflict, 'Conflict on a stale Scale resourceVersion');
    await rejects(foos.updateScale('a', { spec: { replicas: -1 } }), isInvalid, 'Invalid for negative replicas');
    await rejects(new ResourceClient<Foo>(fake, BARS).getScale('x'), isNotFound, 'NotFound without a scale subresource');
  });
});

describe('FakeTransport actions and reactors', () => {
  it('records every request as an action, seeding records none', async () => {
    const seed: Foo = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'seed', namespace: 'ns1' }, status: { phase: 'Seeded' } };
    const fake = newFakeTransport([FOOS], seed);
    assert.deepEqual(fake.actions(), []);
    const foos = new ResourceClient<Foo>(fake, FOOS, 'ns1');
    const seeded = await foos.get('seed');
    assert.equal(seeded.status!.phase, 'Seeded', 'seeded objects keep status');
    assert.ok(seeded.metadata!.resourceVersion && seeded.metadata!.uid);
    await foos.create(foo('a'));
    await foos.updateStatus({ ...(await foos.get('a')), status: { phase: 'x' } });
    await foos.patch('a', { type: 'merge', patch: { spec: { replicas: 2 } } });
    await foos.list({ labelSelector: 'a=b' });
    await foos.delete('a');
    const actions = fake.actions();
    assert.deepEqual(
      actions.map((a) => [a.verb, a.resource, a.namespace, a.name, a.subresource]),
      [
        ['get', 'foos', 'ns1', 'seed', ''],
        ['create', 'foos', 'ns1', '', ''],
        ['get', 'foos', 'ns1', 'a', ''],
        ['update', 'foos', 'ns1', 'a', 'status'],
        ['patch', 'foos', 'ns1', 'a', ''],
        ['list', 'foos', 'ns1', '', ''],
        ['delete', 'foos', 'ns1', 'a', ''],
      ],
    );
    assert.equal((actions[1]!.object as Foo).metadata!.name, 'a');
    assert.deepEqual(actions[4]!.patch, { spec: { replicas: 2 } });
    assert.equal(actions[4]!.patchType, 'merge');
    assert.equal(actions[5]!.query['labelSelector'], 'a=b');
    assert.ok(actionMatches(actions[3]!, 'update', 'foos/status'));
    assert.ok(!actionMatches(actions[3]!, 'update', 'foos/scale'));
    assert.ok(actionMatches(actions[3]!, '*', 'foos'));
    fake.clearActions();
    assert.deepEqual(fake.actions(), []);
    assert.throws(() => newFakeTransport([FOOS], { apiVersion: 'x/v1', kind: 'Nope', metadata: { name: 'n' } }), /no resource registered/);
  });

  it('reactors inject errors and results; unhandled requests fall through to the tracker', async () => {
    const { fake, foos } = setup();
    let seen = 0;
    fake.prependReactor('*', '*', () => {
      seen++;
      return undefined;
    });
    fake.prependReactor('create', 'foos', (a) =>
      (a.object as Foo).metadata!.name === 'boom' ? { handled: true, error: new ApiError(newStatus(500, 'InternalError', 'injected')) } : { handled: false },
    );
    fake.prependReactor('get', 'foos/status', () => ({ handled: true, result: foo('from-reactor') }));
    await rejects(foos.create(foo('boom')), isInternalError, 'the injected error');
    await rejects(foos.get('boom'), isNotFound, 'the failed create stored nothing');
    await foos.create(foo('ok'));
    assert.equal((await foos.getStatus('ok')).metadata!.name, 'from-reactor');
    assert.equal((await foos.get('ok')).metadata!.name, 'ok');
    assert.equal(seen, 3, 'the catch-all saw every request no earlier reactor handled');
    assert.deepEqual(fake.actions().map((a) => a.verb), ['create', 'get', 'create', 'get', 'get'], 'handled requests are recorded too');
  });
});
