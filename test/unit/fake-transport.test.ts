import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isAlreadyExists, isBadRequest, isConflict, isInvalid, isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { BARS, FOOS, NAMESPACES, foo, setup } from './fake-fixtures.js';
import type { Foo } from './fake-fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function rejects(p: Promise<unknown>, check: (e: unknown) => boolean, what: string): Promise<ApiError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined, `expected ${what}, but it resolved`);
  assert.ok(check(caught), `expected ${what}, got ${String(caught)}`);
  return caught as ApiError;
}

describe('FakeTransport create/get', () => {
  it('assigns server metadata, fills type meta, drops status under a status subresource', async () => {
    const { foos } = setup();
    const created = await foos.create(foo('a', { status: { phase: 'x' } }));
    const m = created.metadata!;
    assert.match(m.uid!, UUID);
    assert.match(m.resourceVersion!, /^[1-9]\d*$/);
    assert.equal(m.generation, 1);
    assert.equal(m.creationTimestamp, '2024-05-06T07:08:09Z');
    assert.equal(m.namespace, 'ns1');
    assert.equal(created.apiVersion, 'example.com/v1');
    assert.equal(created.kind, 'Foo');
    assert.equal(created.status, undefined);
    const got = await foos.get('a');
    assert.deepEqual(got, created);
    got.spec!.color = 'mutated';
    assert.equal((await foos.get('a')).spec!.color, undefined, 'the store is not reachable through returned objects');
  });

  it('uses one increasing resourceVersion counter across resources', async () => {
    const { foos, bars } = setup();
    const a = await foos.create(foo('a'));
    const b = await bars.create(foo('b'));
    const c = await foos.create(foo('c'));
    assert.deepEqual([a, b, c].map((o) => Number(o.metadata!.resourceVersion)), [1, 2, 3]);
    assert.equal(b.metadata!.namespace, undefined, 'cluster-scoped objects have no namespace');
  });

  it('supports generateName', async () => {
    const { foos } = setup();
    const created = await foos.create({ metadata: { generateName: 'web-' }, spec: {} });
    assert.match(created.metadata!.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('answers AlreadyExists, NotFound, Invalid and BadRequest like the apiserver', async () => {
    const { fake, foos } = setup();
    await foos.create(foo('a'));
    const exists = await rejects(foos.create(foo('a')), isAlreadyExists, 'AlreadyExists');
    assert.equal(exists.code, 409);
    assert.equal(exists.message, 'foos.example.com "a" already exists');
    const missing = await rejects(foos.get('nope'), isNotFound, 'NotFound');
    assert.deepEqual(missing.status.details, { name: 'nope', group: 'example.com', kind: 'foos' });
    const bad = await rejects(foos.create(foo('Bad_Name')), isInvalid, 'Invalid');
    assert.equal(bad.code, 422);
    assert.equal(bad.status.details?.causes?.[0]?.field, 'metadata.name');
    assert.match(bad.message, /^Foo\.example\.com "Bad_Name" is invalid: metadata\.name: Invalid value/);
    await rejects(foos.create({ metadata: {} }), isInvalid, 'Invalid for a missing name');
    await rejects(foos.create(foo('a', { metadata: { name: 'a', labels: { 'bad key': 'v' } } })), isInvalid, 'Invalid label');
    const nsClient = new ResourceClient<Foo>(fake, NAMESPACES);
    await rejects(nsClient.create({ metadata: { name: 'has.dot' } }), isInvalid, 'namespace names are DNS labels');
    assert.equal((await nsClient.create({ metadata: { name: 'ok' } })).metadata!.name, 'ok');
    const ns2 = new ResourceClient<Foo>(fake, FOOS, 'ns2');
    await rejects(ns2.create(foo('x', { metadata: { name: 'x', namespace: 'ns3' } })), isBadRequest, 'namespace mismatch');
    await rejects(foos.create(foo('x', { metadata: { name: 'x', resourceVersion: '5' } })), isBadRequest, 'resourceVersion on create');
    const unknown = new ResourceClient<Foo>(fake, { ...BARS, resource: 'bazs' });
    await rejects(unknown.list(), isNotFound, 'NotFound for an unregistered resource');
  });
});

describe('FakeTransport update and status', () => {
  it('rejects a stale resourceVersion, accepts an unconditional update', async () => {
    const { foos } = setup();
    const v1 = await foos.create(foo('a'));
    const v2 = await foos.update({ ...v1, spec: { replicas: 2 } });
    assert.ok(Number(v2.metadata!.resourceVersion) > Number(v1.metadata!.resourceVersion));
    const stale = await rejects(foos.update({ ...v1, spec: { replicas: 3 } }), isConflict, 'Conflict');
    assert.match(stale.message, /^Operation cannot be fulfilled on foos\.example\.com "a": the object has been modified/);
    const { resourceVersion: _rv, ...metaNoRv } = v1.metadata!;
    const v3 = await foos.update({ ...v1, metadata: metaNoRv, spec: { replicas: 3 } });
    assert.equal(v3.spec!.replicas, 3);
    await rejects(foos.update(foo('missing')), isNotFound, 'NotFound');
  });

  it('bumps generation on spec changes only, keeps server-owned metadata', async () => {
    const { foos } = setup();
    const v1 = await foos.create(foo('a'));
    const labelled = await foos.update({ ...v1, metadata: { ...v1.metadata, labels: { x: 'y' }, uid: undefined, creationTimestamp: 'bogus' } });
    assert.equal(labelled.metadata!.generation, 1);
    assert.equal(labelled.metadata!.uid, v1.metadata!.uid);
    assert.equal(labelled.metadata!.creationTimestamp, v1.metadata!.creationTimestamp);
    const respec = await foos.update({ ...labelled, spec: { replicas: 5 } });
    assert.equal(respec.metadata!.generation, 2);
  });

  it('ignores status on the main resource and only takes status from updateStatus', async () => {
    const { foos } = setup();
    const v1 = await foos.create(foo('a'));
    const v2 = await foos.update({ ...v1, status: { phase: 'Ignored' } });
    assert.equal(v2.status, undefined);
    assert.equal(v2.metadata!.resourceVersion, v1.metadata!.resourceVersion, 'a no-op update stores nothing');
    const v3 = await foos.updateStatus({ ...v2, spec: { replicas: 99 }, metadata: { ...v2.metadata, labels: { no: 'pe' } }, status: { phase: 'Ready' } });
    assert.equal(v3.status!.phase, 'Ready');
    assert.equal(v3.spec!.replicas, 1);
    assert.equal(v3.metadata!.labels, undefined);
    assert.equal(v3.metadata!.generation, 1);
    assert.deepEqual(await foos.getStatus('a'), v3);
    await rejects(foos.updateStatus({ ...v1, status: { phase: 'Old' } }), isConflict, 'Conflict on a stale status update');
  });

  it('without a status subresource, status is part of the object (and of generation, as for CRDs)', async () => {
    const { bars } = setup();
    const v1 = await bars.create(foo('b', { status: { phase: 'kept' } }));
    assert.equal(v1.status!.phase, 'kept');
    const v2 = await bars.update({ ...v1, status: { phase: 'changed' } });
    assert.equal(v2.status!.phase, 'changed');
    assert.equal(v2.metadata!.generation, 2);
    await rejects(bars.updateStatus(v2), isNotFound, 'NotFound for the missing status subresource');
  });
});

describe('FakeTransport delete and finalizers', () => {
  it('deletes, honours preconditions', async () => {
    const { foos } = setup();
    const a = await foos.create(foo('a'));
    await rejects(foos.delete('a', { preconditions: { uid: 'other' } }), isConflict, 'uid precondition');
    await rejects(foos.delete('a', { preconditions: { resourceVersion: '999' } }), isConflict, 'rv precondition');
    await foos.delete('a', { preconditions: { uid: a.metadata!.uid, resourceVersion: a.metadata!.resourceVersion } });
    await rejects(foos.get('a'), isNotFound, 'gone');
    await rejects(foos.delete('a'), isNotFound, 'NotFound on a second delete');
  });

  it('marks objects with finalizers, forbids new finalizers, removes on the last finalizer', async () => {
    const { foos, now } = setup();
    await foos.create(foo('a', { metadata: { name: 'a', finalizers: ['example.com/one', 'example.com/two'] } }));
    now.ms += 60_000;
    await foos.delete('a');
    const marked = await foos.get('a');
    assert.equal(marked.metadata!.deletionTimestamp, '2024-05-06T07:09:09Z');
    assert.equal(marked.metadata!.deletionGracePeriodSeconds, 0);
    await foos.delete('a');
    assert.deepEqual(await foos.get('a'), marked, 'a second delete changes nothing');
    const added = await rejects(
      foos.update({ ...marked, metadata: { ...marked.metadata, finalizers: ['example.com/one', 'example.com/two', 'example.com/three'] } }),
      isInvalid,
      'Invalid',
    );
    assert.match(added.message, /no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example.com\/three"\}/);
    const one = await foos.update({ ...marked, metadata: { ...marked.metadata, finalizers: ['example.com/two'] } });
    assert.equal(one.metadata!.deletionTimestamp, marked.metadata!.deletionTimestamp, 'deletionTimestamp cannot be cleared');
    await foos.patch('a', { type: 'json', patch: [{ op: 'remove', path: '/metadata/finalizers' }] });
    await rejects(foos.get('a'), isNotFound, 'removed with the last finalizer');
  });

  it('deleteCollection deletes what the selectors select', async () => {
    const { foos, fake } = setup();
    await foos.create(foo('a', { metadata: { name: 'a', labels: { app: 'x' } } }));
    await foos.create(foo('b', { metadata: { name: 'b', labels: { app: 'y' } } }));
    await new ResourceClient<Foo>(fake, FOOS, 'ns2').create(foo('c', { metadata: { name: 'c', labels: { app: 'x' } } }));
    await foos.deleteCollection({ labelSelector: 'app=x' });
    assert.deepEqual((await foos.list()).items.map((o) => o.metadata!.name), ['b']);
    assert.equal((await new ResourceClient<Foo>(fake, FOOS, 'ns2').list()).items.length, 1, 'other namespaces untouched');
    await new ResourceClient<Foo>(fake, FOOS).deleteCollection({ fieldSelector: 'metadata.name=c' });
    assert.equal((await new ResourceClient<Foo>(fake, FOOS).list()).items.length, 1);
  });
});

describe('FakeTransport dry run', () => {
  it('validates and answers without storing', async () => {
    const { foos } = setup();
    const dry = await foos.create(foo('a'), { dryRun: true });
    assert.equal(dry.metadata!.name, 'a');
    assert.match(dry.metadata!.uid!, UUID);
    await rejects(foos.get('a'), isNotFound, 'not stored');
    await rejects(foos.create(foo('Bad!'), { dryRun: true }), isInvalid, 'still validated');
    const real = await foos.create(foo('a'));
    const dryUpdate = await foos.update({ ...real, spec: { replicas: 7 } }, { dryRun: true });
    assert.equal(dryUpdate.spec!.replicas, 7);
    assert.deepEqual(await foos.get('a'), real);
    await foos.patch('a', { type: 'merge', patch: { spec: { replicas: 8 } } }, { dryRun: true });
    await foos.delete('a', { dryRun: true });
    await foos.deleteCollection({ dryRun: true });
    assert.deepEqual(await foos.get('a'), real);
  });
});
