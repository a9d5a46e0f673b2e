/**
 * internStrings (cache/intern-strings.ts): pointing an object's strings at a similar object's equal strings changes
 * nothing observable, leaves frozen parts alone and never throws on odd shapes. (That the copies are really shared
 * is a heap matter, measured by `npm run bench:scale`.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { internStrings } from '@kubegen/runtime/internal/cache/intern-strings.js';
import { deepFreeze } from '@kubegen/runtime/internal/cache/transform.js';

const foo = (name: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject =>
  JSON.parse(
    JSON.stringify({
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: {
        name,
        namespace: 'ns',
        uid: `uid-${name}`,
        creationTimestamp: '2026-01-01T00:00:00Z',
        labels: { app: 'bench', shard: name },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u1', controller: true }],
        managedFields: [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} }, manager: 'm', operation: 'Update', time: '2026-01-01T00:00:00Z' }],
        ...extra,
      },
      spec: { deploymentName: name, replicas: 1 },
    }),
  ) as KubeObject;

describe('internStrings', () => {
  it('leaves the object equal to what it was, with a like object, a different one, or none', () => {
    for (const like of [foo('a'), foo('b', { namespace: 'other', labels: { app: 'x' }, managedFields: [] }), undefined]) {
      const obj = foo('a');
      const before = structuredClone(obj);
      internStrings(obj, like);
      assert.deepEqual(obj, before);
    }
  });

  it('does not write to frozen objects or parts, and does not throw on odd shapes', () => {
    const frozen = deepFreeze(foo('a'));
    assert.doesNotThrow(() => internStrings(frozen, foo('a')));
    const partly = foo('a');
    Object.freeze(partly.metadata!.labels);
    Object.freeze(partly.metadata!.managedFields![0]);
    assert.doesNotThrow(() => internStrings(partly, foo('a')));
    const odd = [
      {},
      { metadata: null },
      { metadata: { labels: 'x', managedFields: {}, ownerReferences: [null, 1] } },
      { metadata: { managedFields: [null, 'x', { time: 1 }], creationTimestamp: 5 } },
    ] as unknown as KubeObject[];
    for (const o of odd) for (const l of odd) assert.doesNotThrow(() => internStrings(structuredClone(o), l));
  });
});
