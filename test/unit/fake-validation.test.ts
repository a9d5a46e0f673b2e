import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isInvalid, type ApiError } from '@kubegen/runtime';
import type { CompileRules, ValidatedCrd } from '@kubegen/runtime/validation';
import { createFakeClientsetFromCrds } from '../golden/sample-controller/fake.js';
import type { Foo } from '../golden/sample-controller/samplecontroller.k8s.io/v1alpha1/types.js';
import { fooApply } from '../golden/sample-controller/samplecontroller.k8s.io/v1alpha1/index.js';

/**
 * The generated fake clientset built with its CRD validates every write as the apiserver would: a unit test fails
 * where the server refuses. CEL goes through a stub CompileRules here (the transition rule `deploymentName` is
 * immutable), so this test does not depend on the CEL layer.
 */
const CRD: ValidatedCrd = {
  metadata: { name: 'foos.samplecontroller.k8s.io' },
  spec: {
    group: 'samplecontroller.k8s.io', scope: 'Namespaced', names: { kind: 'Foo', plural: 'foos' },
    versions: [{
      name: 'v1alpha1', served: true, storage: true, subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              'x-kubernetes-validations': [{ rule: 'self.deploymentName == oldSelf.deploymentName', message: 'deploymentName is immutable' }],
              properties: { deploymentName: { type: 'string', pattern: '^[a-z-]+$' }, replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 } },
            },
            status: { type: 'object', properties: { availableReplicas: { type: 'integer', minimum: 0 } } },
          },
        },
      },
    }],
  },
};

const immutableName: CompileRules = (node) => ({
  compileErrors: [],
  evaluate: (self, old) => {
    if (!node['x-kubernetes-validations'] || !old) return [];
    const now = (self as { deploymentName?: string }).deploymentName;
    const before = (old.value as { deploymentName?: string }).deploymentName;
    return now === before ? [] : [{ fieldPath: '', reason: 'FieldValueInvalid', message: 'deploymentName is immutable', rule: 'self.deploymentName == oldSelf.deploymentName' }];
  },
});

const foo = (name: string, spec: Record<string, unknown>): Foo => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name, namespace: 'ns1' }, spec: spec as Foo['spec'] });

async function causes(p: Promise<unknown>): Promise<string[]> {
  const err = (await p.then(() => undefined, (e: unknown) => e)) as ApiError | undefined;
  assert.ok(err && isInvalid(err), `expected 422 Invalid, got ${String(err)}`);
  return (err.status.details?.causes ?? []).map((c) => `${c.field} ${c.reason} ${c.message}`);
}

describe('fake clientset validating against its CRDs', () => {
  it('create: refuses schema violations with the apiserver causes; defaults and prunes what it stores', async () => {
    const cs = await createFakeClientsetFromCrds([CRD], [], { compileRules: immutableName });
    const foos = cs.samplecontrollerV1alpha1.foos('ns1');
    assert.deepEqual(await causes(foos.create(foo('a', { deploymentName: 'Bad', replicas: 20 }))), [
      "spec.deploymentName FieldValueInvalid Invalid value: \"Bad\": spec.deploymentName in body should match '^[a-z-]+$'",
      'spec.replicas FieldValueInvalid Invalid value: 20: spec.replicas in body should be less than or equal to 10',
    ]);
    const created = await foos.create(foo('a', { deploymentName: 'web', bogus: true }));
    assert.deepEqual(created.spec, { deploymentName: 'web', replicas: 1 });
  });

  it('update: transition rules see oldSelf; patch and apply are validated too', async () => {
    const cs = await createFakeClientsetFromCrds([CRD], [], { compileRules: immutableName });
    const foos = cs.samplecontrollerV1alpha1.foos('ns1');
    const created = await foos.create(foo('a', { deploymentName: 'web', replicas: 2 }));
    assert.deepEqual(await causes(foos.update({ ...created, spec: { deploymentName: 'other', replicas: 2 } })), ['spec FieldValueInvalid Invalid value: deploymentName is immutable']);
    assert.equal((await foos.update({ ...created, spec: { deploymentName: 'web', replicas: 3 } })).spec?.replicas, 3);
    assert.deepEqual(await causes(foos.patch('a', { type: 'merge', patch: { spec: { replicas: 0 } } })), ['spec.replicas FieldValueInvalid Invalid value: 0: spec.replicas in body should be greater than or equal to 1']);
    assert.deepEqual(await causes(foos.apply({ ...fooApply('a', 'ns1'), spec: { deploymentName: 'renamed' } }, { fieldManager: 't', force: true })), ['spec FieldValueInvalid Invalid value: deploymentName is immutable']);
    assert.deepEqual(await causes(foos.apply({ ...fooApply('b', 'ns1'), spec: { deploymentName: 'x', replicas: 11 } }, { fieldManager: 't' })), ['spec.replicas FieldValueInvalid Invalid value: 11: spec.replicas in body should be less than or equal to 10']);
  });

  it('status writes go through the status schema', async () => {
    const cs = await createFakeClientsetFromCrds([CRD], [], { compileRules: immutableName });
    const foos = cs.samplecontrollerV1alpha1.foos('ns1');
    const created = await foos.create(foo('a', { deploymentName: 'web' }));
    assert.deepEqual(await causes(foos.updateStatus({ ...created, status: { availableReplicas: -1 } })), ['status.availableReplicas FieldValueInvalid Invalid value: -1: availableReplicas in body should be greater than or equal to 0']);
    assert.equal((await foos.updateStatus({ ...created, status: { availableReplicas: 2 } })).status?.availableReplicas, 2);
  });

  it('validate: false stores what the schema refuses, as the plain fake does', async () => {
    const cs = await createFakeClientsetFromCrds([CRD], [], { validate: false });
    const created = await cs.samplecontrollerV1alpha1.foos('ns1').create(foo('a', { deploymentName: 'Bad', replicas: 20 }));
    assert.equal(created.spec?.replicas, 20);
  });
});
