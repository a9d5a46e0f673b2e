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
import { clusterOf, installRbac, requestServiceAccountToken, runAsServiceAccount, writeTokenKubeconfig } from '@kubegen/runtime/internal/testing/envtest/envtest-rbac.js';
import { waitForPermissions } from '@kubegen/runtime/internal/testing/envtest/rbac-in-effect.js';
import { explainError } from '@kubegen/runtime/internal/client/forbidden.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';
import { ForbiddenRequestsError, recordForbidden } from '@kubegen/runtime/internal/testing/envtest/forbidden-recorder.js';
import { rbacFromObjects, readProjectRbac } from '@kubegen/runtime/internal/testing/envtest/project-rbac.js';
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

  /** A ServiceAccount `writer` in `ns`, a Role with `rules` and a RoleBinding of it to the ServiceAccount. */
  function writerRbac(ns: string, rules: object[]): ReturnType<typeof rbacFromObjects> {
    return rbacFromObjects(
      [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'writer', namespace: ns } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'writer', namespace: ns }, rules } as KubeObject,
        {
          apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'writer', namespace: ns },
          subjects: [{ kind: 'ServiceAccount', name: 'writer', namespace: ns }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
        } as KubeObject,
      ],
      { namespace: ns, name: 'writer' },
    );
  }

  it('reports an escalation refusal as such: the permissions not held and the markers that grant them', async () => {
    const ns = await env.newNamespace('escalate');
    const identity = await runAsServiceAccount(env.transport, clusterOf(env.kubeConfig), writerRbac(ns, [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create'] }]), {
      kubeconfigPath: path.join(tmp, 'writer.kubeconfig'),
    });
    const roles = new ResourceClient<KubeObject>(createTransport({ kubeconfig: identity.kubeconfigPath }), { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', listKind: 'RoleList', namespaced: true }, ns);
    try {
      const err = await roles
        .create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list'] }] } as KubeObject)
        .then(() => assert.fail('the apiserver let the Role grant what its writer does not hold'), (e: unknown) => e);
      const line = explainError(err);
      assert.match(line, /refused as privilege escalation/, line);
      assert.match(line, /the object grants permissions not held: get, list endpoints \(core group\)/, line);
      assert.match(line, /the marker \+kubebuilder:rbac:groups="",resources=endpoints,verbs=get;list grants them/, line);
      assert.doesNotMatch(line, /resources=roles,verbs=create/, 'the write itself was allowed: its marker is not the fix');
    } finally {
      await identity.uninstall();
    }
  });

  it('waits until the ServiceAccount holds its permissions, and names a rule that never takes effect', async () => {
    const ns = await env.newNamespace('in-effect');
    const full = writerRbac(ns, [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]);
    // Only the ServiceAccount: its binding is never made.
    await installRbac(env.transport, rbacFromObjects(full.objects.filter((o) => o.kind === 'ServiceAccount'), full.serviceAccount));
    const kubeconfigPath = path.join(tmp, 'in-effect.kubeconfig');
    writeTokenKubeconfig(kubeconfigPath, clusterOf(env.kubeConfig), await requestServiceAccountToken(env.transport, full.serviceAccount), ns);
    const asWriter = createTransport({ kubeconfig: kubeconfigPath });
    try {
      await assert.rejects(waitForPermissions(asWriter, full, { timeoutMs: 300 }), new RegExp(`still refused:\\n- list secrets \\(core group\\) in namespace ${ns}, from Role writer$`));
      await installRbac(env.transport, full);
      await waitForPermissions(asWriter, full);
      // Once it resolved, the rule holds at once (no retry).
      await new ResourceClient<KubeObject>(asWriter, builtinResources.secrets, ns).list();
    } finally {
      asWriter.close();
    }
  });
});
