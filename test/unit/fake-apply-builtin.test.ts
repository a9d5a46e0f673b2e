/**
 * Server-side apply of a built-in kind on the fake tracker merges as kube-apiserver does, by the structured-merge-diff
 * schema the generated descriptor carries: two field managers apply one apps/v1 Deployment, each owning its own
 * container (list-map entries by `name`), env entries by `name` deep in the pod template, ports by `containerPort`
 * and `protocol` (`TCP` when left out), and the selector as one atomic field. The same scenario runs on
 * kube-apiserver in test/integration/apply-builtin.test.ts, which checks that the fake answers the same.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { allBuiltinResources } from '@kubegen/runtime/internal/testing/fake/builtin-resources.js';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { runDeploymentApply, type StepOutcome } from '../support/deployment-apply.js';

type Applied = Extract<StepOutcome, { containers: unknown }>;

/** A manager's fields under `spec.template.spec.containers`. */
const containerFields = (o: Applied, manager: string): Record<string, unknown> =>
  (o.fields[manager] as { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': Record<string, unknown> } } } })['f:spec']['f:template']['f:spec']['f:containers'];

describe('fake server-side apply of a Deployment (apps/v1) by two field managers', () => {
  let outcomes: Map<string, StepOutcome>;
  before(async () => {
    const cs = new KubeClientset(newFakeTransport([...allBuiltinResources]));
    outcomes = await runDeploymentApply(cs.appsV1.deployments('ns'), 'web');
  });
  const applied = (label: string): Applied => {
    const o = outcomes.get(label);
    assert.ok(o && 'containers' in o, `${label}: applied, got ${JSON.stringify(o)}`);
    return o;
  };
  const conflicts = (label: string): unknown => {
    const o = outcomes.get(label);
    assert.ok(o && 'conflict' in o, `${label}: a conflict, got ${JSON.stringify(o)}`);
    return o.conflict.conflicts;
  };

  it('each owning a different container: both containers survive, each manager owns its own entry', () => {
    const o = applied('mb applies container b');
    assert.deepEqual(o.containers.map((c) => [c.name, c.image]), [['a', 'a:1'], ['b', 'b:1']]);
    assert.deepEqual(containerFields(o, 'ma'), {
      'k:{"name":"a"}': {
        '.': {},
        'f:env': { 'k:{"name":"X"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
        'f:image': {},
        'f:name': {},
        'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
      },
    });
    assert.deepEqual(containerFields(o, 'mb'), {
      'k:{"name":"b"}': {
        '.': {},
        'f:image': {},
        'f:name': {},
        'f:ports': {
          'k:{"containerPort":53,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
          'k:{"containerPort":80,"protocol":"UDP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
        },
      },
    });
    assert.deepEqual(o.containers[1]!.ports, [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 53, protocol: 'TCP' }], 'a port without protocol gets TCP, unowned');
  });

  it('the selector is one atomic field; template labels are a map of fields', () => {
    const spec = (applied('ma applies container a').fields['ma'] as { 'f:spec': Record<string, unknown> })['f:spec'];
    assert.deepEqual(spec['f:selector'], {});
    assert.deepEqual((spec['f:template'] as Record<string, unknown>)['f:metadata'], { 'f:labels': { 'f:app': {} } });
    assert.deepEqual(conflicts('mb sets another selector'), [{ field: '.spec.selector', manager: 'ma', message: 'conflict with "ma"' }]);
  });

  it('env entries merge by name deep in the pod template; each manager owns its own entry', () => {
    const o = applied('mb adds an env entry to a');
    assert.deepEqual(o.containers[0]!.env, [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }]);
    assert.deepEqual((containerFields(o, 'mb')['k:{"name":"a"}'] as Record<string, unknown>)['f:env'], { 'k:{"name":"Y"}': { '.': {}, 'f:name': {}, 'f:value': {} } });
  });

  it('both setting the same container\'s image is a conflict naming the owner and the field', () => {
    assert.deepEqual(conflicts("mb sets a's image"), [{ field: '.spec.template.spec.containers[name="a"].image', manager: 'ma', message: 'conflict with "ma"' }]);
    assert.equal(applied("mb applies a's port 80 with protocol TCP").containers[0]!.image, 'a:1', 'unchanged');
  });

  it('a port applied with protocol TCP is the same entry as one applied without: shared, not added', () => {
    const o = applied("mb applies a's port 80 with protocol TCP");
    assert.deepEqual(o.containers[0]!.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual((containerFields(o, 'mb')['k:{"name":"a"}'] as Record<string, unknown>)['f:ports'], { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } });
  });

  it('re-applying without its container removes only that manager\'s container; dropping an env entry only that entry', () => {
    const dropped = applied('mb drops container b');
    assert.deepEqual(dropped.containers.map((c) => c.name), ['a']);
    assert.deepEqual(Object.keys(containerFields(dropped, 'mb')), ['k:{"name":"a"}']);
    const a = applied('ma drops env X').containers;
    assert.deepEqual(a, [{ name: 'a', image: 'a:1', env: [{ name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }]);
  });
});
