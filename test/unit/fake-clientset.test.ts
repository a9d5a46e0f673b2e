import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAlreadyExists, isConflict, isInvalid, isNotFound } from '@kubegen/runtime';
import { isApplyConflict } from '@kubegen/runtime/client';
import { createFakeClientset } from '../golden/sample-controller/fake.js';
import type { Foo } from '../golden/sample-controller/samplecontroller.k8s.io/v1alpha1/types.js';
import { fooApply } from '../golden/sample-controller/samplecontroller.k8s.io/v1alpha1/index.js';

/**
 * The generated fake clientset, driven as a user's controller unit test would: the same generated `Clientset`
 * over the in-memory tracker, through every verb.
 */
const foo = (name: string, replicas = 1, labels: Record<string, string> = {}): Foo => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { name, namespace: 'ns1', labels },
  spec: { deploymentName: `${name}-deploy`, replicas },
});

test('create/get/list/update/delete through the generated fake clientset', async () => {
  const cs = createFakeClientset([foo('seeded')]);
  const foos = cs.samplecontrollerV1alpha1.foos('ns1');
  const created = await foos.create(foo('a', 1, { app: 'x' }));
  assert.ok(created.metadata?.uid, 'uid assigned');
  assert.ok(created.metadata?.resourceVersion, 'resourceVersion assigned');
  assert.equal(created.metadata?.generation, 1);
  assert.ok(created.metadata?.creationTimestamp);
  await assert.rejects(foos.create(foo('a')), isAlreadyExists);
  await assert.rejects(foos.create(foo('Not_Valid')), isInvalid);

  const got = await foos.get('a');
  assert.deepEqual(got, created);
  assert.deepEqual((await foos.list()).items.map((f) => f.metadata?.name).sort(), ['a', 'seeded']);
  assert.deepEqual((await foos.list({ labelSelector: 'app=x' })).items.map((f) => f.metadata?.name), ['a']);

  const updated = await foos.update({ ...got, spec: { ...got.spec, replicas: 3 } });
  assert.equal(updated.metadata?.generation, 2, 'spec change bumps generation');
  await assert.rejects(foos.update({ ...got, spec: { replicas: 4 } }), isConflict, 'stale resourceVersion conflicts');

  await foos.delete('a');
  await assert.rejects(foos.get('a'), isNotFound);
  const verbs = cs.fake.actions().map((a) => a.verb);
  assert.deepEqual(verbs.slice(0, 3), ['create', 'create', 'create']);
  assert.ok(verbs.includes('delete'));
});

test('status subresource: updateStatus writes only status, update ignores status', async () => {
  const cs = createFakeClientset();
  const foos = cs.samplecontrollerV1alpha1.foos('ns1');
  const created = await foos.create(foo('s'));
  const withStatus = await foos.updateStatus({ ...created, status: { availableReplicas: 2 } });
  assert.equal(withStatus.status?.availableReplicas, 2);
  assert.equal(withStatus.metadata?.generation, 1, 'status does not bump generation');
  const viaMain = await foos.update({ ...withStatus, status: { availableReplicas: 9 } });
  assert.equal(viaMain.status?.availableReplicas, 2, 'status through the main resource is ignored');
});

test('patch (merge and json) and watch see the change', async () => {
  const cs = createFakeClientset([foo('p')]);
  const foos = cs.samplecontrollerV1alpha1.foos('ns1');
  const start = (await foos.list()).metadata?.resourceVersion;
  const w = await foos.watch({ resourceVersion: start });
  await foos.patch('p', { type: 'merge', patch: { spec: { replicas: 5 } } });
  await foos.patch('p', { type: 'json', patch: [{ op: 'replace', path: '/spec/deploymentName', value: 'renamed' }] });
  await foos.delete('p');
  const seen: string[] = [];
  for await (const ev of w) {
    seen.push(`${ev.type}:${(ev.object as Foo).spec?.replicas}:${(ev.object as Foo).spec?.deploymentName}`);
    if (seen.length === 3) w.stop();
  }
  assert.deepEqual(seen, ['MODIFIED:5:p-deploy', 'MODIFIED:5:renamed', 'DELETED:5:renamed']);
});

test('reactors inject errors into the generated clients', async () => {
  const cs = createFakeClientset();
  cs.fake.prependReactor('create', 'foos', () => ({ handled: true, error: new Error('boom') }));
  await assert.rejects(cs.samplecontrollerV1alpha1.foos('ns1').create(foo('x')), /boom/);
});

test('typed server-side apply through the generated fake clientset: conflict, force, shared ownership', async () => {
  const cs = createFakeClientset();
  const foos = cs.samplecontrollerV1alpha1.foos('ns1');
  const a = await foos.apply({ ...fooApply('a', 'ns1'), spec: { deploymentName: 'd', replicas: 1 } }, { fieldManager: 'writer' });
  assert.equal(a.spec?.replicas, 1);
  const err = await foos.apply({ ...fooApply('a', 'ns1'), spec: { replicas: 2 } }, { fieldManager: 'scaler' }).catch((e: unknown) => e);
  assert.ok(isApplyConflict(err));
  assert.deepEqual(err.conflicts, [{ field: '.spec.replicas', manager: 'writer', message: 'conflict with "writer"' }]);
  const forced = await foos.apply({ ...fooApply('a', 'ns1'), spec: { replicas: 2 } }, { fieldManager: 'scaler', force: true });
  assert.equal(forced.spec?.replicas, 2);
  const shared = await foos.apply({ ...fooApply('a', 'ns1'), spec: { deploymentName: 'd' } }, { fieldManager: 'scaler' });
  const managers = (shared.metadata?.managedFields as { manager: string; fieldsV1: unknown }[]).map((e) => [e.manager, e.fieldsV1]);
  assert.deepEqual(managers.sort(), [
    ['scaler', { 'f:spec': { 'f:deploymentName': {} } }],
    ['writer', { 'f:spec': { 'f:deploymentName': {} } }],
  ]);
  assert.equal(shared.spec?.replicas, undefined, 'replicas: released by scaler, no longer owned by writer: removed');
  cs.fake.fieldManager = 'my-controller';
  const defaulted = await foos.apply({ ...fooApply('a', 'ns1'), spec: { deploymentName: 'd' } });
  assert.ok((defaulted.metadata?.managedFields as { manager: string }[]).some((e) => e.manager === 'my-controller'));
});
