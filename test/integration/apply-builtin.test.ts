/**
 * Server-side apply of a built-in kind on kube-apiserver (the `full` profile, 1.20, whose server-side apply is beta
 * but merges by the same keys), and the fake tracker against it: two field managers apply one apps/v1 Deployment
 * through the typed client (test/support/deployment-apply.ts). Both containers survive, each manager owns its own;
 * env entries merge by name inside a container; a port without `protocol` is the `TCP` one; setting another's image,
 * or another selector (atomic), conflicts; dropping a container or an env entry removes only that one. Every step's
 * outcome (the containers, the selector, each manager's `managedFields`, or the conflict) is the same on the fake.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import { allBuiltinResources } from '@kubegen/runtime/internal/testing/fake/builtin-resources.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { runDeploymentApply, steps, type StepOutcome } from '../support/deployment-apply.js';
import { sharedEnv, type TestEnv } from './support/env.js';

describe('server-side apply of a Deployment by two field managers on kube-apiserver 1.20, and on the fake', () => {
  let env: TestEnv;
  let real: Map<string, StepOutcome>;
  let fake: Map<string, StepOutcome>;

  before(async () => {
    env = await sharedEnv();
    const ns = await env.newNamespace('apply-builtin');
    real = await runDeploymentApply(new KubeClientset(env.transport).appsV1.deployments(ns), 'web');
    fake = await runDeploymentApply(new KubeClientset(newFakeTransport([...allBuiltinResources])).appsV1.deployments(ns), 'web');
  });
  after(() => env?.release());

  const applied = (label: string): Extract<StepOutcome, { containers: unknown }> => {
    const o = real.get(label);
    assert.ok(o && 'containers' in o, `${label}: applied, got ${JSON.stringify(o)}`);
    return o;
  };
  const conflict = (label: string): Extract<StepOutcome, { conflict: unknown }>['conflict'] => {
    const o = real.get(label);
    assert.ok(o && 'conflict' in o, `${label}: a conflict, got ${JSON.stringify(o)}`);
    return o.conflict;
  };
  const containersKey = (fields: unknown): Record<string, unknown> =>
    ((fields as { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': Record<string, unknown> } } } })['f:spec']['f:template']['f:spec']['f:containers']);

  it('both containers survive, each manager owns its own (the apiserver)', () => {
    const o = applied('mb applies container b');
    assert.deepEqual(o.containers.map((c) => [c.name, c.image]), [['a', 'a:1'], ['b', 'b:1']]);
    assert.deepEqual(Object.keys(containersKey(o.fields['ma'])), ['k:{"name":"a"}']);
    assert.deepEqual(Object.keys(containersKey(o.fields['mb'])), ['k:{"name":"b"}']);
    assert.deepEqual(Object.keys((containersKey(o.fields['mb'])['k:{"name":"b"}'] as Record<string, Record<string, unknown>>)['f:ports']!), [
      'k:{"containerPort":53,"protocol":"TCP"}',
      'k:{"containerPort":80,"protocol":"UDP"}',
    ], 'a port without protocol is keyed as TCP');
  });

  it('env entries of one container merge by name; setting the other manager\'s image conflicts (the apiserver)', () => {
    const a = applied('mb adds an env entry to a').containers.find((c) => c.name === 'a')!;
    assert.deepEqual(a.env, [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }]);
    assert.deepEqual(conflict("mb sets a's image").conflicts, [{ field: '.spec.template.spec.containers[name="a"].image', manager: 'ma', message: 'conflict with "ma"' }]);
    assert.deepEqual(applied("mb applies a's port 80 with protocol TCP").containers.find((c) => c.name === 'a')!.ports, [{ containerPort: 80, protocol: 'TCP' }], 'the same port as the one without protocol');
    assert.deepEqual(conflict('mb sets another selector').conflicts, [{ field: '.spec.selector', manager: 'ma', message: 'conflict with "ma"' }], 'the selector is atomic');
  });

  it('dropping a container or an env entry removes only that one (the apiserver)', () => {
    assert.deepEqual(applied('mb drops container b').containers.map((c) => c.name), ['a']);
    const a = applied('ma drops env X').containers[0]!;
    assert.deepEqual([a.image, a.env], ['a:1', [{ name: 'Y', value: '2' }]]);
  });

  it('the fake answers every step as the apiserver did: containers, selector, managedFields, conflicts', () => {
    for (const [label] of steps('web')) assert.deepEqual(fake.get(label), real.get(label), label);
  });
});
