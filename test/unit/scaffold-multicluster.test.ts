import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';
import { runCli } from '../support/cli.js';

const read = (dir: string, p: string): string => fs.readFileSync(path.join(dir, p), 'utf8');

/**
 * `kubegen init --multicluster`, then `create api` and `generate`: src/main.ts runs a MultiClusterManager over the
 * kubeconfig Secrets of --clusters-namespace, config/rbac lets the manager read those Secrets (a Role in its own
 * namespace), the project file records the choice so `create api` scaffolds a controller with a lane per member,
 * and the project compiles under its strict tsconfig and lint flags with the controller's unit test passing. The
 * envtest suite (a hub and a member) runs in test/integration/newcomer.test.ts.
 */
test('init --multicluster + create api + generate: a multi-cluster manager, Secret RBAC, a cluster-aware controller that compiles and passes its unit test', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-mc-'));
  const dir = path.join(tmp, 'fleet-hub');
  try {
    const init = await runCli(tmp, 'init', '--multicluster', '--domain', 'example.com', 'fleet-hub');
    assert.equal(init.code, 0, init.err);
    assert.equal(parse(read(dir, 'kubegen.project.yaml')).multicluster, true);
    const main = read(dir, 'src/main.ts');
    assert.match(main, /new MultiClusterManager\(\{/);
    assert.match(main, /provider: new KubeconfigSecretProvider\(\{ transport: hub, namespace: clustersNamespace \}\)/);
    assert.match(main, /'clusters-namespace': \{ type: 'string' \}/);
    assert.match(main, /flags\['clusters-namespace'\] \|\| process\.env\['POD_NAMESPACE'\] \|\| 'fleet-hub-system'/);
    assert.match(main, /\/\/ \+kubegen:scaffold:controllers/);
    // RBAC: the Secrets (and cluster-sharding Leases) of the manager's namespace, bound to its ServiceAccount.
    assert.deepEqual((parse(read(dir, 'config/rbac/kustomization.yaml')) as { resources: string[] }).resources, [
      'service_account.yaml', 'role.yaml', 'role_binding.yaml', 'leader_election_role.yaml', 'leader_election_role_binding.yaml',
      'clusters_role.yaml', 'clusters_role_binding.yaml', 'metrics_auth_role.yaml', 'metrics_auth_role_binding.yaml', 'metrics_reader_role.yaml',
    ]);
    const role = parse(read(dir, 'config/rbac/clusters_role.yaml')) as any;
    assert.deepEqual([role.kind, role.metadata.name, role.metadata.namespace], ['Role', 'clusters-role', 'system']);
    assert.deepEqual(role.rules[0], { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] });
    const binding = parse(read(dir, 'config/rbac/clusters_role_binding.yaml')) as any;
    assert.deepEqual([binding.kind, binding.roleRef.name, binding.subjects], ['RoleBinding', 'clusters-role', [{ kind: 'ServiceAccount', name: 'controller-manager', namespace: 'system' }]]);
    assert.match(read(dir, 'README.md'), /## Many clusters\n\nThis project was made with `kubegen init --multicluster`/);
    assert.deepEqual(Object.keys((parse(read(dir, '.github/workflows/test.yml')) as { jobs: object }).jobs), ['test'], 'no explore job: a multi-cluster project has no explore setup');
    assert.ok(!fs.existsSync(path.join(dir, 'src/explore-setup.ts')));
    const setup = read(dir, 'test/envtest/setup.ts');
    assert.match(setup, /Envtest\.start\(\{ crdPaths \}\), Envtest\.start\(\{ crdPaths \}\)/, 'a hub and a member');
    assert.match(setup, /labels: \{ \[KUBECONFIG_SECRET_LABEL\]: 'true' \}/);

    const frigate = await runCli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
    assert.equal(frigate.code, 0, frigate.err);
    const controller = read(dir, 'src/controllers/frigate-controller.ts');
    assert.match(controller, /multiClusterControllerFor\(mgr, frigateResource, \{ clusters: 'members' \}\)/);
    assert.match(controller, /new FrigateReconciler\(\(cluster\) => mgr\.getCluster\(cluster\)\.getClient\(\)\)/);
    assert.match(read(dir, 'test/envtest/frigate-controller.test.ts'), /new KubeconfigSecretProvider\(\{ transport: asManager, namespace: envtestClustersNamespace\(\)/);
    assert.match(read(dir, 'src/main.ts'), /\n {2}setupFrigateController\(mgr\);\n {2}\/\/ \+kubegen:scaffold:controllers\n/);
    // A single-cluster project's create api is unchanged by this (its controller is checked in scaffold-project.test.ts).
    const gen = await runCli(dir, 'generate', '-q');
    assert.equal(gen.code, 0, gen.err);
    assert.ok(read(dir, 'config/rbac/role.yaml').includes('- frigates/status\n'));

    fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
    linkRuntimePackage(dir);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
    const pkg = JSON.parse(read(dir, 'package.json')) as { scripts: Record<string, string> };
    const tsc = spawnSync(TSC, pkg.scripts['lint']!.split(' ').slice(1), { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(tsc.status, 0, `npm run lint fails on the multi-cluster scaffold:\n${(tsc.stdout + tsc.stderr).slice(0, 4000)}`);
    const build = spawnSync(TSC, ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(build.status, 0, `tsc failed:\n${(build.stdout + build.stderr).slice(0, 4000)}`);
    // Flags are checked before anything connects: an unknown one is one log line and exit 1.
    const start = spawnSync(process.execPath, ['dist/src/main.js', '--no-such-flag'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.equal(start.status, 1, start.stderr);
    assert.match(start.stderr, /no-such-flag/);

    const env = { ...process.env };
    delete env['NODE_TEST_CONTEXT'];
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', 'dist/src/controllers/frigate-controller.test.js'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(run.status, 0, `scaffolded test failed:\n${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /✔ reconcile marks a Frigate of a member cluster Ready/);
    assert.match(run.stdout, /ℹ pass 2\b/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
