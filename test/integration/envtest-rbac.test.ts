/**
 * A manager run as its ServiceAccount, bound to a project's config/rbac as kustomize would apply it (the scaffold's
 * layout, in the test's namespace with a prefix of its own): with the marker that grants `services` missing, the
 * forbidden list is recorded and the wait for the reconcile fails at once naming it, the user and the marker; with
 * the rule restored, the same controller reconciles. Real apiserver RBAC (the `full` profile) and TokenRequest.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { createTransport } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { clusterOf, runAsServiceAccount } from '@kubegen/runtime/internal/testing/envtest/envtest-rbac.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';
import { ForbiddenRequestsError, recordForbidden } from '@kubegen/runtime/internal/testing/envtest/forbidden-recorder.js';
import { readProjectRbac } from '@kubegen/runtime/internal/testing/envtest/project-rbac.js';
import { runCli } from '../support/cli.js';
import { sharedEnv, type TestEnv } from './support/env.js';

/** role.yaml as `npm run generate` writes it for a controller of ConfigMaps that owns Services; `withServices` false drops that marker's rule. */
function roleYaml(withServices: boolean): string {
  const services = '  - apiGroups: [""]\n    resources: [services]\n    verbs: [get, list, watch]\n';
  return `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules:\n  - apiGroups: [""]\n    resources: [configmaps]\n    verbs: [get, list, watch, patch]\n${withServices ? services : ''}`;
}

describe('a manager as its ServiceAccount, bound to the project RBAC (envtest)', () => {
  let env: TestEnv;
  let tmp: string;
  let project: string;
  before(async () => {
    env = await sharedEnv();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-envtest-rbac-'));
    const init = await runCli(tmp, 'init', '--domain', 'example.com', 'lighthouse');
    assert.equal(init.code, 0, init.err);
    project = path.join(tmp, 'lighthouse');
  });
  after(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    await env?.release();
  });

  /** Runs a ConfigMap controller that owns Services as the ServiceAccount until the ConfigMap is labelled (or the wait fails). */
  async function reconcileAs(kubeconfig: string, ns: string): Promise<ReturnType<typeof recordForbidden>> {
    const asManager = recordForbidden(createTransport({ kubeconfig }));
    const mgr = new Manager({ transport: asManager, namespace: ns, logger: nullLogger, metricsBindAddress: '0' });
    const configMaps = mgr.getClient().resource<KubeObject>(builtinResources.configMaps, ns);
    controllerFor(mgr, builtinResources.configMaps)
      .owns(builtinResources.services)
      .complete(async (req, ctx) => {
        await configMaps.patch(req.name, { type: 'merge', patch: { metadata: { labels: { reconciled: 'true' } } } }, { signal: ctx.signal });
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal).catch(() => undefined);
    const admin = new ResourceClient<KubeObject>(env.transport, builtinResources.configMaps, ns);
    try {
      await eventually(
        async () => assert.equal((await admin.get('lamp')).metadata?.labels?.['reconciled'], 'true'),
        { timeoutMs: 30_000, failFast: () => asManager.assertNoneForbidden() },
      );
      return asManager;
    } finally {
      stop.abort();
      await running;
      asManager.close();
    }
  }

  it('names the request a missing marker leaves forbidden, and reconciles once the rule is back', async () => {
    const ns = await env.newNamespace('rbac');
    const role = path.join(project, 'config/rbac/role.yaml');
    fs.writeFileSync(role, roleYaml(false));
    const rbac = readProjectRbac(project, { namespace: ns, namePrefix: `${ns}-` });
    const user = `system:serviceaccount:${ns}:${ns}-controller-manager`;
    assert.equal(rbac.user, user);
    const identity = await runAsServiceAccount(env.transport, clusterOf(env.kubeConfig), rbac, { kubeconfigPath: path.join(tmp, 'sa.kubeconfig') });
    await new ResourceClient<KubeObject>(env.transport, builtinResources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lamp' } });
    try {
      const refused = await reconcileAs(identity.kubeconfigPath, ns).then(
        () => assert.fail('the manager reconciled without the services rule'),
        (err: unknown) => err,
      );
      assert.ok(refused instanceof ForbiddenRequestsError, String(refused));
      assert.match(
        refused.message,
        new RegExp(`- list services \\(core group\\) in namespace ${ns}, as ${user}; the marker \\+kubebuilder:rbac:groups="",resources=services,verbs=list grants it`),
      );
      // The informer's streaming watch (WatchList) and its list: the missing rule, nothing else of the project RBAC.
      assert.deepEqual(refused.refused.map((r) => `${r.request.verb} ${r.request.resource}`).sort(), ['list services', 'watch services']);

      fs.writeFileSync(role, roleYaml(true));
      const restored = await runAsServiceAccount(env.transport, clusterOf(env.kubeConfig), readProjectRbac(project, { namespace: ns, namePrefix: `${ns}-` }), { kubeconfigPath: identity.kubeconfigPath });
      const clean = await reconcileAs(restored.kubeconfigPath, ns);
      assert.deepEqual(clean.forbidden, []);
    } finally {
      await identity.uninstall();
    }
    for (const name of [`${ns}-manager-role`, `${ns}-metrics-auth-role`]) {
      await assert.rejects(new ResourceClient<KubeObject>(env.transport, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', listKind: 'ClusterRoleList', namespaced: false }).get(name), /not found/, `uninstall deletes ${name}`);
    }
  });
});
