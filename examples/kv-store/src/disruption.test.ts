/** The PodDisruptionBudget version: said, or the newest discovery lists; refused when neither is served. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { disruptionBudget, disruptionBudgetVersion, NoDisruptionBudgetError } from './disruption.js';
import { fakeCluster, kvStore } from './test-support.js';

describe('PodDisruptionBudget version', () => {
  it('auto: policy/v1 where it is served (Kubernetes >= 1.21), even beside policy/v1beta1', async () => {
    assert.equal(await disruptionBudgetVersion(fakeCluster([], ['policy/v1']).transport, 'auto'), 'policy/v1');
    assert.equal(await disruptionBudgetVersion(fakeCluster([], ['policy/v1beta1', 'policy/v1']).transport, 'auto'), 'policy/v1');
  });

  it('auto: policy/v1beta1 where only it is served (Kubernetes 1.20 and before)', async () => {
    assert.equal(await disruptionBudgetVersion(fakeCluster([], ['policy/v1beta1']).transport, 'auto'), 'policy/v1beta1');
  });

  it('auto: refuses, naming both versions and what the policy group serves, when neither is served', async () => {
    await assert.rejects(
      disruptionBudgetVersion(fakeCluster([], []).transport, 'auto'),
      (err: unknown) => err instanceof NoDisruptionBudgetError &&
        err.message === 'the apiserver serves no PodDisruptionBudget (neither policy/v1 nor policy/v1beta1; its policy group: not served): kv-store needs one to keep a quorum of members up',
    );
  });

  it('a version said is used without asking the server', async () => {
    const cs = fakeCluster([], []);
    assert.equal(await disruptionBudgetVersion(cs.transport, 'policy/v1beta1'), 'policy/v1beta1');
    assert.deepEqual(cs.fake.actions(), []);
  });

  it('keeps a quorum: minAvailable is more than half the members, in either version', () => {
    for (const [replicas, min] of [[1, 1], [2, 2], [3, 2], [4, 3], [5, 3]] as const) {
      const v1 = disruptionBudget(kvStore('s', { replicas }), 'policy/v1');
      const v1beta1 = disruptionBudget(kvStore('s', { replicas }), 'policy/v1beta1');
      assert.deepEqual([v1.apiVersion, v1.spec?.minAvailable, v1beta1.apiVersion, v1beta1.spec?.minAvailable], ['policy/v1', min, 'policy/v1beta1', min]);
    }
    assert.equal(disruptionBudget(kvStore('s'), 'policy/v1').spec?.minAvailable, 2, 'the default 3 members');
  });
});
