/**
 * ResourceClient over HttpTransport against a real kube-apiserver (envtest): every verb on sample-controller's Foo
 * (namespaced, status subresource) and on the cluster-scoped Widget test CRD (status + scale subresources).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
} from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, WatchEvent } from '@kubegen/runtime/internal/client/types.js';
import { FOO, WIDGET } from './support/crds.js';
import { sharedEnv, uniqueName, type TestEnv } from './support/env.js';

interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
  status?: { availableReplicas?: number };
}

interface Widget extends KubeObject {
  spec?: { replicas?: number; color?: string; size?: number };
  status?: { replicas?: number; selector?: string; phase?: string };
}

const foo = (name: string, labels: Record<string, string> = {}, replicas = 1): Foo => ({
  metadata: { name, labels },
  spec: { deploymentName: `${name}-deploy`, replicas },
});

async function rejectsWith(p: Promise<unknown>, check: (err: unknown) => boolean, what: string): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    assert.ok(check(err), `expected ${what}, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    return err;
  }
  assert.fail(`expected ${what}, but the call succeeded`);
}

/** Collects watch events until `until` says stop (then stops the watch) or the server ends the stream. */
async function collect<T>(w: AsyncIterable<WatchEvent<T>> & { stop(): void }, until: (events: WatchEvent<T>[]) => boolean): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  for await (const ev of w) {
    events.push(ev);
    if (until(events)) {
      w.stop();
      break;
    }
  }
  return events;
}

describe('ResourceClient over HttpTransport (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let foos: ResourceClient<Foo>;
  let widgets: ResourceClient<Widget>;

  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('client');
    foos = new ResourceClient<Foo>(env.transport, FOO, ns);
    widgets = new ResourceClient<Widget>(env.transport, WIDGET);
  });
  after(async () => {
    await env?.release();
  });

  it('creates, gets and updates; a stale update is a conflict', async () => {
    const created = await foos.create(foo('crud'));
    assert.equal(created.metadata?.namespace, ns);
    assert.equal(created.kind, 'Foo');
    assert.ok(created.metadata?.uid);
    const got = await foos.get('crud');
    assert.equal(got.spec?.replicas, 1);
    assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);

    const updated = await foos.update({ ...got, spec: { ...got.spec, replicas: 3 } });
    assert.equal(updated.spec?.replicas, 3);
    assert.notEqual(updated.metadata?.resourceVersion, got.metadata?.resourceVersion);

    await rejectsWith(foos.update({ ...got, spec: { ...got.spec, replicas: 4 } }), isConflict, 'a Conflict');
    assert.equal((await foos.get('crud')).spec?.replicas, 3);
  });

  it('reports NotFound, AlreadyExists and Invalid (422) with the apiserver Status', async () => {
    const nf = await rejectsWith(foos.get('does-not-exist'), isNotFound, 'NotFound');
    assert.equal((nf as { code: number }).code, 404);
    assert.equal((nf as { status: { details?: { name?: string } } }).status.details?.name, 'does-not-exist');

    await foos.create(foo('dup'));
    await rejectsWith(foos.create(foo('dup')), isAlreadyExists, 'AlreadyExists');

    const invalid = await rejectsWith(foos.create(foo('Not_A_Valid_Name')), isInvalid, 'Invalid');
    assert.equal((invalid as { code: number }).code, 422);
    await rejectsWith(foos.create(foo('too-many', {}, 50)), isInvalid, 'Invalid (schema maximum)');
  });

  it('lists with label and field selectors', async () => {
    await foos.create(foo('sel-a', { tier: 'web', sel: 'yes' }));
    await foos.create(foo('sel-b', { tier: 'api', sel: 'yes' }));
    await foos.create(foo('sel-c', { tier: 'web', sel: 'yes' }));

    const web = await foos.list({ labelSelector: 'sel=yes,tier=web' });
    assert.deepEqual(web.items.map((f) => f.metadata?.name).sort(), ['sel-a', 'sel-c']);
    const setBased = await foos.list({ labelSelector: 'sel=yes,tier in (api,db)' });
    assert.deepEqual(setBased.items.map((f) => f.metadata?.name), ['sel-b']);
    const byName = await foos.list({ fieldSelector: 'metadata.name=sel-b' });
    assert.deepEqual(byName.items.map((f) => f.metadata?.name), ['sel-b']);
    assert.equal(byName.kind, 'FooList');
    assert.ok(byName.metadata?.resourceVersion);
  });

  it('pages with limit/continue and listAll walks every page', async () => {
    const pageNs = await env.newNamespace('paging');
    const paged = new ResourceClient<Foo>(env.transport, FOO, pageNs);
    for (let i = 0; i < 7; i++) await paged.create(foo(`p-${i}`));

    const first = await paged.list({ limit: 3 });
    assert.equal(first.items.length, 3);
    assert.ok(first.metadata?.continue, 'a continue token');
    assert.equal(first.metadata?.remainingItemCount, 4);
    const second = await paged.list({ limit: 3, continue: first.metadata.continue });
    assert.equal(second.items.length, 3);
    const third = await paged.list({ limit: 3, continue: second.metadata?.continue });
    assert.equal(third.items.length, 1);
    assert.ok(!third.metadata?.continue);
    const names = [...first.items, ...second.items, ...third.items].map((f) => f.metadata?.name);
    assert.equal(new Set(names).size, 7);

    const all: string[] = [];
    for await (const f of paged.listAll({ limit: 2 })) all.push(f.metadata!.name!);
    assert.deepEqual(all.sort(), ['p-0', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6']);
  });

  it('watches from a resourceVersion with typed ADDED/MODIFIED/DELETED events', async () => {
    const watchNs = await env.newNamespace('watch');
    const wfoos = new ResourceClient<Foo>(env.transport, FOO, watchNs);
    await wfoos.create(foo('before'));
    const list = await wfoos.list();
    const w = await wfoos.watch({ resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true });
    const events = collect(w, (evs) => evs.some((e) => e.type === 'DELETED'));
    await wfoos.create(foo('w1'));
    await wfoos.patch('w1', { type: 'merge', patch: { spec: { replicas: 2 } } });
    await wfoos.delete('w1');
    const got = (await events).filter((e) => e.type !== 'BOOKMARK');
    assert.deepEqual(
      got.map((e) => `${e.type}:${e.object.metadata?.name}`),
      ['ADDED:w1', 'MODIFIED:w1', 'DELETED:w1'],
      'the object created before the watch RV is not replayed',
    );
    assert.equal(got[1]!.object.spec?.replicas, 2);
    assert.equal(got[1]!.object.kind, 'Foo');
  });

  it('watch from resourceVersion 0 replays current state; timeoutSeconds ends the stream', async () => {
    const watchNs = await env.newNamespace('watch-timeout');
    const wfoos = new ResourceClient<Foo>(env.transport, FOO, watchNs);
    await wfoos.create(foo('existing'));
    const w = await wfoos.watch({ resourceVersion: '0', timeoutSeconds: 1 });
    const events: WatchEvent<Foo>[] = [];
    for await (const ev of w) events.push(ev); // ends when the server closes the stream
    assert.deepEqual(
      events.map((e) => `${e.type}:${e.object.metadata?.name}`),
      ['ADDED:existing'],
    );
  });

  it('stop() ends a watch iteration without an error', async () => {
    const w = await foos.watch({ resourceVersion: '0' });
    setTimeout(() => w.stop(), 200);
    const events: WatchEvent<Foo>[] = [];
    for await (const ev of w) events.push(ev);
    assert.ok(events.every((e) => e.type === 'ADDED'));
  });

  it('deletes with a propagation policy; preconditions with a wrong uid conflict', async () => {
    await foos.create(foo('del-a'));
    await rejectsWith(foos.delete('del-a', { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }), isConflict, 'a Conflict');
    assert.ok(await foos.get('del-a'));
    const current = await foos.get('del-a');
    await foos.delete('del-a', { propagationPolicy: 'Foreground', preconditions: { uid: current.metadata!.uid! } });
    // Foreground deletion sets a finalizer the (absent) garbage collector would remove: the object lingers
    // with a deletionTimestamp, or is gone.
    try {
      const lingering = await foos.get('del-a');
      assert.ok(lingering.metadata?.deletionTimestamp, 'marked for deletion');
    } catch (err) {
      assert.ok(isNotFound(err));
    }
    await foos.create(foo('del-b'));
    await foos.delete('del-b', { propagationPolicy: 'Background' });
    await rejectsWith(foos.get('del-b'), isNotFound, 'NotFound after delete');
    await rejectsWith(foos.delete('del-b'), isNotFound, 'NotFound deleting twice');
  });

  it('deleteCollection removes only the selected objects', async () => {
    const dcNs = await env.newNamespace('delcoll');
    const dc = new ResourceClient<Foo>(env.transport, FOO, dcNs);
    await dc.create(foo('x1', { batch: 'one' }));
    await dc.create(foo('x2', { batch: 'one' }));
    await dc.create(foo('keep', { batch: 'two' }));
    await dc.deleteCollection({ labelSelector: 'batch=one' });
    assert.deepEqual((await dc.list()).items.map((f) => f.metadata?.name), ['keep']);
  });

  it('patches with merge, json and server-side apply (field manager, conflicts, force)', async () => {
    await foos.create(foo('patchme', { a: '1' }));
    const merged = await foos.patch('patchme', { type: 'merge', patch: { metadata: { labels: { b: '2' } }, spec: { replicas: 5 } } });
    assert.deepEqual(merged.metadata?.labels, { a: '1', b: '2' });
    assert.equal(merged.spec?.replicas, 5);

    const jsonPatched = await foos.patch('patchme', {
      type: 'json',
      patch: [
        { op: 'test', path: '/spec/replicas', value: 5 },
        { op: 'replace', path: '/spec/replicas', value: 6 },
        { op: 'remove', path: '/metadata/labels/a' },
      ],
    });
    assert.equal(jsonPatched.spec?.replicas, 6);
    assert.deepEqual(jsonPatched.metadata?.labels, { b: '2' });

    const applied = await foos.apply({ metadata: { name: 'ssa' }, spec: { deploymentName: 'ssa-deploy', replicas: 2 } }, { fieldManager: 'alice' });
    assert.equal(applied.spec?.replicas, 2);
    const managers = (applied.metadata?.managedFields as { manager: string }[]).map((m) => m.manager);
    assert.ok(managers.includes('alice'));

    await rejectsWith(foos.apply({ metadata: { name: 'ssa' }, spec: { replicas: 3 } }, { fieldManager: 'bob' }), isConflict, 'an apply Conflict');
    const forced = await foos.apply({ metadata: { name: 'ssa' }, spec: { replicas: 3 } }, { fieldManager: 'bob', force: true });
    assert.equal(forced.spec?.replicas, 3);
    assert.equal(forced.spec?.deploymentName, 'ssa-deploy');
  });

  it('dryRun writes are validated but not persisted', async () => {
    const dry = await foos.create(foo('dry'), { dryRun: true });
    assert.equal(dry.metadata?.name, 'dry');
    await rejectsWith(foos.get('dry'), isNotFound, 'NotFound after a dry-run create');
    await rejectsWith(foos.create(foo('dry-invalid', {}, 99), { dryRun: true }), isInvalid, 'Invalid in dry run');

    const real = await foos.create(foo('dry-real'));
    const dryUpdated = await foos.update({ ...real, spec: { ...real.spec, replicas: 7 } }, { dryRun: true });
    assert.equal(dryUpdated.spec?.replicas, 7);
    const dryPatched = await foos.patch('dry-real', { type: 'merge', patch: { spec: { replicas: 8 } } }, { dryRun: true });
    assert.equal(dryPatched.spec?.replicas, 8);
    await foos.delete('dry-real', { dryRun: true });
    const after = await foos.get('dry-real');
    assert.equal(after.spec?.replicas, 1);
    assert.equal(after.metadata?.resourceVersion, real.metadata?.resourceVersion);
  });

  it('status subresource: the main resource ignores status, getStatus/updateStatus/patchStatus write it', async () => {
    const created = await foos.create({ ...foo('stat'), status: { availableReplicas: 9 } });
    assert.equal(created.status?.availableReplicas, undefined, 'status dropped on create');
    const viaMain = await foos.update({ ...created, status: { availableReplicas: 4 } });
    assert.equal(viaMain.status?.availableReplicas, undefined, 'status ignored on update of the main resource');

    const st = await foos.getStatus('stat');
    const updated = await foos.updateStatus({ ...st, status: { availableReplicas: 2 }, spec: { ...st.spec, replicas: 9 } });
    assert.equal(updated.status?.availableReplicas, 2);
    assert.equal(updated.spec?.replicas, 1, 'spec ignored on a status update');

    const patched = await foos.patchStatus('stat', { type: 'merge', patch: { status: { availableReplicas: 3 } } });
    assert.equal(patched.status?.availableReplicas, 3);
    assert.equal((await foos.get('stat')).status?.availableReplicas, 3);
  });

  it('cluster-scoped Widget: CRUD, status and the scale subresource', async () => {
    const name = uniqueName('widget');
    try {
      const created = await widgets.create({ metadata: { name }, spec: { replicas: 1, color: 'red' } });
      assert.equal(created.metadata?.namespace, undefined);
      assert.ok((await widgets.list({ fieldSelector: `metadata.name=${name}` })).items.length === 1);

      await widgets.patchStatus(name, { type: 'merge', patch: { status: { replicas: 1, selector: 'app=w' } } });
      const scale = await widgets.getScale(name);
      assert.equal(scale.kind, 'Scale');
      assert.equal(scale.spec?.replicas, 1);
      assert.equal(scale.status?.replicas, 1);
      assert.equal(scale.status?.selector, 'app=w');

      const scaled = await widgets.updateScale(name, { ...scale, spec: { replicas: 4 } });
      assert.equal(scaled.spec?.replicas, 4);
      assert.equal((await widgets.get(name)).spec?.replicas, 4);
      await rejectsWith(widgets.updateScale(name, { ...scale, spec: { replicas: 5 } }), isConflict, 'a stale scale update conflict');
    } finally {
      await widgets.delete(name).catch(() => undefined);
    }
    await rejectsWith(widgets.get(name), isNotFound, 'NotFound after delete');
  });
});
