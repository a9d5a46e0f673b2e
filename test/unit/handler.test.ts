import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import type { Request } from '@kubegen/runtime/internal/reconcile/index.js';
import {
  enqueueForObject,
  enqueueForOwner,
  enqueueMapped,
  type RequestSink,
} from '@kubegen/runtime/internal/handler/handler.js';

function recorder(): RequestSink & { got: Request[] } {
  const got: Request[] = [];
  return { got, add: (r) => got.push(r) };
}

const fooOwner = { group: 'samplecontroller.k8s.io', kind: 'Foo', namespaced: true };

const deployment = (refs: NonNullable<KubeObject['metadata']>['ownerReferences']): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns', ownerReferences: refs },
});

const owned = deployment([
  { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'ctrl', uid: '1', controller: true },
  { apiVersion: 'samplecontroller.k8s.io/v1beta1', kind: 'Foo', name: 'other', uid: '2' },
  { apiVersion: 'other.io/v1', kind: 'Foo', name: 'wrong-group', uid: '3', controller: true },
  { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Bar', name: 'wrong-kind', uid: '4' },
]);

test('enqueueForObject: own key on every event, tombstones unwrapped, cluster-scoped gets empty namespace', () => {
  const h = enqueueForObject();
  const s = recorder();
  const o: KubeObject = { metadata: { name: 'a', namespace: 'ns' } };
  h.create!(o, s);
  h.update!(o, { metadata: { name: 'a', namespace: 'ns', resourceVersion: '2' } }, s);
  h.delete!(new DeletedFinalStateUnknown('ns/a', o), s);
  h.generic!({ metadata: { name: 'node1' } }, s);
  h.create!({ metadata: {} }, s);
  assert.deepEqual(s.got, [
    { namespace: 'ns', name: 'a' },
    { namespace: 'ns', name: 'a' },
    { namespace: 'ns', name: 'a' },
    { namespace: '', name: 'node1' },
  ]);
});

test('enqueueForOwner onlyControllers: only the controlling owner of the group and kind', () => {
  const s = recorder();
  enqueueForOwner(fooOwner, { onlyControllers: true }).create!(owned, s);
  assert.deepEqual(s.got, [{ namespace: 'ns', name: 'ctrl' }]);
});

test('enqueueForOwner matches every owner of the group and kind, any version, via apiVersion too', () => {
  const s = recorder();
  enqueueForOwner({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo' }).create!(owned, s);
  assert.deepEqual(s.got, [
    { namespace: 'ns', name: 'ctrl' },
    { namespace: 'ns', name: 'other' },
  ]);
});

test('enqueueForOwner: update enqueues old and new owners; tombstones; cluster-scoped owner', () => {
  const h = enqueueForOwner(fooOwner, { onlyControllers: true });
  const s = recorder();
  const before = deployment([{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'old', uid: '9', controller: true }]);
  h.update!(before, owned, s);
  h.delete!(new DeletedFinalStateUnknown('ns/d', owned), s);
  assert.deepEqual(s.got, [
    { namespace: 'ns', name: 'old' },
    { namespace: 'ns', name: 'ctrl' },
    { namespace: 'ns', name: 'ctrl' },
  ]);
  const c = recorder();
  enqueueForOwner({ group: 'samplecontroller.k8s.io', kind: 'Foo', namespaced: false }, { onlyControllers: true }).create!(owned, c);
  assert.deepEqual(c.got, [{ namespace: '', name: 'ctrl' }]);
  const none = recorder();
  h.create!(deployment(undefined), none);
  assert.deepEqual(none.got, []);
});

test('enqueueMapped: whatever the function returns, tombstones unwrapped', () => {
  const h = enqueueMapped<KubeObject>((o) => [
    { namespace: 'x', name: `${o.metadata!.name}-1` },
    { namespace: 'x', name: `${o.metadata!.name}-2` },
  ]);
  const s = recorder();
  h.delete!(new DeletedFinalStateUnknown('ns/d', owned), s);
  h.generic!(owned, s);
  assert.deepEqual(s.got.map((r) => r.name), ['d-1', 'd-2', 'd-1', 'd-2']);
});
