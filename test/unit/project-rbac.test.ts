/**
 * readProjectRbac: a project's config/rbac as `kubectl apply -k config/default` would create it, checked against
 * `kubectl kustomize` (the oracle, when kubectl is on PATH) for the scaffold's layout and for one with an inner
 * namePrefix, a `default` subject and a reference outside the set; the test's overrides; every unsupported input
 * refused at once, naming its file.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { readProjectRbac, rbacFromObjects } from '@kubegen/runtime/internal/testing/envtest/project-rbac.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { runCli } from '../support/cli.js';

const ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
  - apiGroups: [ships.example.com]
    resources: [frigates]
    verbs: [get, list, watch]
`;

/** A project made by `kubegen init` with a role.yaml as `generate` writes it; removed by the caller. */
async function scaffold(): Promise<{ tmp: string; dir: string }> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-rbac-'));
  const res = await runCli(tmp, 'init', '--domain', 'example.com', 'fleet');
  assert.equal(res.code, 0, res.err);
  const dir = path.join(tmp, 'fleet');
  fs.writeFileSync(path.join(dir, 'config/rbac/role.yaml'), ROLE);
  // kustomize refuses a CRD folder with no resources, as `create api` would leave it.
  fs.mkdirSync(path.join(dir, 'config/crd/bases'));
  fs.writeFileSync(path.join(dir, 'config/crd/bases/crd.yaml'), 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: frigates.ships.example.com\n');
  fs.appendFileSync(path.join(dir, 'config/crd/kustomization.yaml'), '  - bases/crd.yaml\n');
  return { tmp, dir };
}

const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const key = (o: KubeObject): string => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
const byKey = (objs: readonly KubeObject[]): KubeObject[] => [...objs].sort((a, b) => key(a).localeCompare(key(b)));

/** The RBAC objects `kubectl kustomize config/default` renders, or undefined without kubectl. */
function kustomized(dir: string): KubeObject[] | undefined {
  const res = spawnSync('kubectl', ['kustomize', path.join(dir, 'config/default')], { encoding: 'utf8' });
  if (res.error) return undefined;
  assert.equal(res.status, 0, res.stderr);
  return (loadAll(res.stdout) as KubeObject[]).filter((o) => RBAC_KINDS.has(o.kind ?? ''));
}

describe('readProjectRbac', () => {
  it("renders a scaffolded project's RBAC as kubectl kustomize config/default does", async (t) => {
    const { tmp, dir } = await scaffold();
    try {
      const rbac = readProjectRbac(dir);
      assert.deepEqual(rbac.serviceAccount, { namespace: 'fleet-system', name: 'fleet-controller-manager' });
      assert.equal(rbac.user, 'system:serviceaccount:fleet-system:fleet-controller-manager');
      assert.deepEqual(rbac.namespaces, ['fleet-system']);
      assert.deepEqual(rbac.objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRole', 'ClusterRole', 'Role', 'ClusterRoleBinding', 'ClusterRoleBinding', 'RoleBinding']);
      const binding = rbac.objects.find((o) => o.metadata?.name === 'fleet-manager-rolebinding') as KubeObject & Record<string, any>;
      assert.deepEqual(binding['roleRef'], { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fleet-manager-role' });
      assert.deepEqual(binding['subjects'], [{ kind: 'ServiceAccount', name: 'fleet-controller-manager', namespace: 'fleet-system' }]);
      assert.equal(binding.metadata?.labels?.['app.kubernetes.io/managed-by'], 'kustomize', "config/default's labels");
      const oracle = kustomized(dir);
      if (!oracle) return t.skip('kubectl is not on PATH');
      assert.deepEqual(byKey(rbac.objects), byKey(oracle));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('applies the rbac folder\'s own namePrefix first, sets the namespace of `default` subjects, and leaves references outside the set alone', async (t) => {
    const { tmp, dir } = await scaffold();
    try {
      const kustomization = path.join(dir, 'config/rbac/kustomization.yaml');
      fs.writeFileSync(kustomization, `${fs.readFileSync(kustomization, 'utf8')}  - viewer_binding.yaml\nnamePrefix: inner-\n`);
      fs.writeFileSync(
        path.join(dir, 'config/rbac/viewer_binding.yaml'),
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: viewer\n  namespace: system\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\n' +
          'subjects:\n  - kind: ServiceAccount\n    name: default\n  - kind: ServiceAccount\n    name: controller-manager\n    namespace: system\n  - kind: User\n    name: jane\n',
      );
      const rbac = readProjectRbac(dir);
      assert.equal(rbac.serviceAccount.name, 'fleet-inner-controller-manager');
      const viewer = rbac.objects.find((o) => o.metadata?.name === 'fleet-inner-viewer') as KubeObject & Record<string, any>;
      assert.equal(viewer['roleRef'].name, 'view', 'a ClusterRole outside the set keeps its name');
      assert.deepEqual(viewer['subjects'], [
        { kind: 'ServiceAccount', name: 'default', namespace: 'fleet-system' },
        { kind: 'ServiceAccount', name: 'fleet-inner-controller-manager', namespace: 'fleet-system' },
        { kind: 'User', name: 'jane' },
      ]);
      const oracle = kustomized(dir);
      if (!oracle) return t.skip('kubectl is not on PATH');
      assert.deepEqual(byKey(rbac.objects), byKey(oracle));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("puts namespaced objects and the ServiceAccount's subjects in a test's namespace with a test's prefix when asked", async () => {
    const { tmp, dir } = await scaffold();
    try {
      const rbac = readProjectRbac(dir, { namespace: 'test-x1', namePrefix: 'run7-' });
      assert.deepEqual(rbac.serviceAccount, { namespace: 'test-x1', name: 'run7-controller-manager' });
      assert.deepEqual(rbac.namespaces, ['test-x1']);
      const binding = rbac.objects.find((o) => o.kind === 'RoleBinding') as KubeObject & Record<string, any>;
      assert.deepEqual([binding.metadata?.namespace, binding['roleRef'].name, binding['subjects'][0].namespace], ['test-x1', 'run7-leader-election-role', 'test-x1']);
      assert.ok(rbac.objects.filter((o) => o.kind === 'ClusterRole').every((o) => o.metadata?.namespace === undefined), 'cluster-scoped objects get no namespace');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('refuses what it does not apply, naming each file, all in one error', async () => {
    const { tmp, dir } = await scaffold();
    try {
      const rbacKustomization = path.join(dir, 'config/rbac/kustomization.yaml');
      fs.writeFileSync(rbacKustomization, `${fs.readFileSync(rbacKustomization, 'utf8')}  - token.yaml\n  - ../extra\nnameSuffix: -x\n`);
      fs.writeFileSync(path.join(dir, 'config/rbac/token.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n');
      fs.mkdirSync(path.join(dir, 'config/extra'));
      fs.rmSync(path.join(dir, 'config/rbac/role.yaml'));
      const defaults = path.join(dir, 'config/default/kustomization.yaml');
      fs.writeFileSync(defaults, `${fs.readFileSync(defaults, 'utf8')}patches:\n  - target: {kind: ClusterRole}\n    patch: '[]'\n`);
      const err = (() => {
        try {
          readProjectRbac(dir);
        } catch (e) {
          return e as Error;
        }
        return assert.fail('readProjectRbac accepted unsupported input');
      })();
      assert.match(err.message, /^project RBAC: 5 problems:\n/);
      assert.match(err.message, /config\/default\/kustomization\.yaml: patches\[0\] may change RBAC objects/);
      assert.match(err.message, /config\/rbac\/kustomization\.yaml: `nameSuffix` is not supported/);
      assert.match(err.message, /config\/rbac\/kustomization\.yaml: resources\[9\] \.\.\/extra is a folder/);
      assert.match(err.message, /config\/rbac\/role\.yaml: does not exist \(`npm run generate` writes it/);
      assert.match(err.message, /config\/rbac\/token\.yaml: kind "Secret" is not installed/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('refuses a config/default that does not deploy config/rbac, and a folder with two ServiceAccounts unless one is named', async () => {
    const { tmp, dir } = await scaffold();
    try {
      const rbacKustomization = path.join(dir, 'config/rbac/kustomization.yaml');
      fs.writeFileSync(rbacKustomization, `${fs.readFileSync(rbacKustomization, 'utf8')}  - other_account.yaml\n`);
      fs.writeFileSync(path.join(dir, 'config/rbac/other_account.yaml'), 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: helper\n  namespace: system\n');
      assert.throws(() => readProjectRbac(dir), /config\/rbac\/kustomization\.yaml: needs exactly one ServiceAccount .*\(found: controller-manager, helper\); pass serviceAccountName/);
      assert.equal(readProjectRbac(dir, { serviceAccountName: 'helper' }).serviceAccount.name, 'fleet-helper');
      const defaults = path.join(dir, 'config/default/kustomization.yaml');
      fs.writeFileSync(defaults, fs.readFileSync(defaults, 'utf8').replace('  - ../rbac\n', ''));
      assert.throws(() => readProjectRbac(dir, { serviceAccountName: 'helper' }), /config\/default\/kustomization\.yaml: `resources` does not include \.\.\/rbac/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('rbacFromObjects', () => {
  it('orders rendered objects for apply and refuses other kinds or a missing ServiceAccount', () => {
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'm', namespace: 'ns' } };
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'b' } };
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } };
    assert.deepEqual(rbacFromObjects([binding, role, sa], { namespace: 'ns', name: 'm' }).objects.map((o) => o.kind), ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']);
    assert.throws(() => rbacFromObjects([sa, { kind: 'Secret', metadata: { name: 's' } }], { namespace: 'ns', name: 'm' }), /Secret s is not one of ServiceAccount/);
    assert.throws(() => rbacFromObjects([role], { namespace: 'ns', name: 'm' }), /ServiceAccount ns\/m is not among the objects/);
  });
});
