/**
 * A built-in kind the runtime did not type before the whole API was generated, in the newcomer's project: two test
 * files a user adds beside the scaffold's, about a PodDisruptionBudget for a kind's Pods, written against
 * `@kubegen/runtime/api/policy/<version>` and `KubeClientset` as installed from the tarballs.
 *
 * Which version where, honestly: the unit test (the fake clientset, `npm test`) uses policy/v1, what every cluster
 * from Kubernetes 1.21 on serves and what a controller for today's clusters owns. The envtest test
 * (`npm run test:envtest`, kube-apiserver 1.20 on the `full` and `cluster` profiles) uses policy/v1beta1, the version
 * 1.20 serves, and checks that policy/v1 is refused there with the line naming the release it needs — so a user
 * who runs the suite on newer binaries (`KUBEBUILDER_ASSETS`) sees at once why that assertion changed.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The names the files use: the project's API group and version, and its kind. */
export interface BudgetProject {
  group: string;
  version: string;
  kind: string;
}

/** The name of the unit test the files add for `kind`, as `node --test` prints it. */
export const budgetUnitTest = (kind: string): string => `a ${kind} owns a policy/v1 PodDisruptionBudget for its Pods, applied through the typed client`;
/** The name of the envtest test the files add. */
export const BUDGET_ENVTEST_TEST = 'kube-apiserver 1.20 serves PodDisruptionBudget as policy/v1beta1, and names policy/v1 as not served';

/** Writes `src/controllers/<kind>-budget.test.ts` and `test/envtest/<kind>-budget.test.ts` into `project`. */
export function addBudgetTests(project: string, p: BudgetProject): void {
  const kind = p.kind;
  const file = `${kind.toLowerCase()}-budget.test.ts`;
  const api = `../generated/${p.group}/${p.version}/index.js`;
  fs.writeFileSync(path.join(project, 'src/controllers', file), `// A PodDisruptionBudget for a ${kind}'s Pods, owned by the ${kind}, through the typed built-in API on the fake
// clientset. policy/v1: what every cluster from Kubernetes 1.21 on serves (envtest's 1.20 serves policy/v1beta1:
// test/envtest/${file}).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClientset, setControllerReference } from '@kubegen/runtime';
import { allBuiltinResources } from '@kubegen/runtime/testing/fake';
import { podDisruptionBudgetApply } from '@kubegen/runtime/api/policy/v1';
import { createFakeClientset } from '../generated/fake.js';
import { API_VERSION } from '${api}';
import type { ${kind} } from '${api}';

test('${budgetUnitTest(kind)}', async () => {
  const owner: ${kind} = { apiVersion: API_VERSION, kind: '${kind}', metadata: { name: 'f', namespace: 'default', uid: 'uid-f' }, spec: {} };
  const clientset = createFakeClientset([owner], allBuiltinResources);
  const budgets = new KubeClientset(clientset.transport).policyV1.podDisruptionBudgets('default');
  const budget = { ...podDisruptionBudgetApply('f', 'default'), spec: { minAvailable: 2, selector: { matchLabels: { app: 'f' } } } };
  setControllerReference(owner, budget);
  await budgets.apply(budget, { fieldManager: '${kind.toLowerCase()}-controller' });
  const stored = await budgets.get('f');
  assert.equal(stored.apiVersion, 'policy/v1');
  assert.equal(stored.spec?.minAvailable, 2);
  assert.deepEqual(stored.metadata?.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [['${kind}', 'uid-f', true]]);
});
`);
  fs.writeFileSync(path.join(project, 'test/envtest', file), `// envtest's kube-apiserver (1.20 unless KUBEBUILDER_ASSETS says otherwise) serves PodDisruptionBudget as
// policy/v1beta1 only; policy/v1 came in 1.21. src/controllers/${file} uses policy/v1 on the fake.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClientset, createTransport } from '@kubegen/runtime';
import { isNotServed } from '@kubegen/runtime/client';
import { createTestNamespace, deleteTestNamespace } from '@kubegen/runtime/testing';
import { envtestKubeconfig } from './setup.js';

test('${BUDGET_ENVTEST_TEST}', async () => {
  const transport = createTransport({ kubeconfig: envtestKubeconfig() });
  const namespace = await createTestNamespace(transport, 'budget');
  try {
    const cs = new KubeClientset(transport);
    const created = await cs.policyV1beta1.podDisruptionBudgets(namespace).create({
      apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'frigates' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'frigate' } } },
    });
    assert.equal(created.spec?.minAvailable, 1);
    await assert.rejects(cs.policyV1.podDisruptionBudgets(namespace).list(), (err: unknown) =>
      isNotServed(err) && /policy\\/v1 PodDisruptionBudget needs Kubernetes 1\\.21 or later/.test(err.message));
  } finally {
    await deleteTestNamespace(transport, namespace);
    transport.close();
  }
});
`);
}
