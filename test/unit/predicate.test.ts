import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import {
  and,
  annotationChanged,
  generationChanged,
  labelChanged,
  labelSelector,
  not,
  or,
  resourceVersionChanged,
  admits,
  type Predicate,
} from '@kubegen/runtime/internal/predicate/predicate.js';

const obj = (meta: KubeObject['metadata']): KubeObject => ({ metadata: { name: 'a', namespace: 'ns', ...meta } });

const base = obj({ resourceVersion: '1', generation: 1, labels: { app: 'x' }, annotations: { a: '1' } });
const statusOnly = obj({ resourceVersion: '2', generation: 1, labels: { app: 'x' }, annotations: { a: '1' } });
const specChange = obj({ resourceVersion: '3', generation: 2, labels: { app: 'x' }, annotations: { a: '1' } });
const labelsChange = obj({ resourceVersion: '4', generation: 1, labels: { app: 'y' }, annotations: { a: '1' } });
const annChange = obj({ resourceVersion: '5', generation: 1, labels: { app: 'x' }, annotations: { a: '2' } });

const table: [string, Predicate, KubeObject, boolean][] = [
  ['generationChanged drops status-only update', generationChanged(), statusOnly, false],
  ['generationChanged passes spec change', generationChanged(), specChange, true],
  ['resourceVersionChanged passes any write', resourceVersionChanged(), statusOnly, true],
  ['resourceVersionChanged drops resync', resourceVersionChanged(), base, false],
  ['labelChanged drops spec change', labelChanged(), specChange, false],
  ['labelChanged passes label change', labelChanged(), labelsChange, true],
  ['annotationChanged drops label change', annotationChanged(), labelsChange, false],
  ['annotationChanged passes annotation change', annotationChanged(), annChange, true],
  ['and: both must pass', and(generationChanged(), labelChanged()), specChange, false],
  ['or: one passing suffices', or(generationChanged(), labelChanged()), labelsChange, true],
  ['or: none passing', or(generationChanged(), labelChanged()), statusOnly, false],
  ['not inverts', not(generationChanged()), statusOnly, true],
];

for (const [name, p, newObj, want] of table) {
  test(`update: ${name}`, () => assert.equal(admits(p, 'update', newObj, base), want));
}

test('change predicates let create/delete/generic through', () => {
  for (const p of [generationChanged(), resourceVersionChanged(), labelChanged(), annotationChanged()]) {
    assert.equal(admits(p, 'create', base), true);
    assert.equal(admits(p, 'delete', base), true);
    assert.equal(admits(p, 'generic', base), true);
  }
  assert.equal(admits(not(generationChanged()), 'create', base), false, 'not of a missing hook is false');
});

test('missing and empty label maps are equal', () => {
  assert.equal(admits(labelChanged(), 'update', obj({ labels: {} }), obj({})), false);
  assert.equal(admits(annotationChanged(), 'update', obj({ annotations: { k: 'v' } }), obj({})), true);
});

test('labelSelector filters every event kind (string, metav1 LabelSelector)', () => {
  const p = labelSelector('app in (x,z),!skip');
  assert.equal(admits(p, 'create', base), true);
  assert.equal(admits(p, 'delete', labelsChange), false);
  assert.equal(admits(p, 'update', labelsChange, base), false, 'judged on the new object');
  assert.equal(admits(p, 'generic', obj({ labels: { app: 'x', skip: '' } })), false);
  const q = labelSelector({ matchLabels: { app: 'y' } });
  assert.equal(admits(q, 'create', labelsChange), true);
  assert.equal(admits(q, 'create', base), false);
  assert.throws(() => labelSelector('app in ('));
});
