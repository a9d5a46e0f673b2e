import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';
import { runCli } from '../support/cli.js';

const cli = runCli;

const read = (dir: string, p: string): string => fs.readFileSync(path.join(dir, p), 'utf8');

/**
 * The whole scaffolding path a user takes: `init`, `create api` twice (a namespaced kind with a controller, a
 * cluster-scoped kind without), `generate` (the --apis front end, from codegen.config.yaml), `verify`, then the
 * project compiles under its own strict tsconfig next to node_modules/kubegen (this package) and the scaffolded
 * controller's unit test passes against the generated fake clientset.
 */
test('init + create api + generate: the scaffold compiles under --strict and its controller test passes', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
  const dir = path.join(tmp, 'fleet-operator');
  try {
    const init = await cli(tmp, 'init', '--domain', 'example.com', 'fleet-operator');
    assert.equal(init.code, 0, init.err);
    const pkg = JSON.parse(read(dir, 'package.json')) as Record<string, any>;
    assert.equal(pkg['name'], 'fleet-operator');
    assert.equal(pkg['type'], 'module');
    assert.equal(pkg['engines'].node, '>=22');
    assert.match(pkg['dependencies']['@kubegen/runtime'], /^\^\d+\.\d+\.\d+/);
    assert.deepEqual(Object.keys(pkg['dependencies']), ['@kubegen/runtime', '@peculiar/x509', 'reflect-metadata'],
      'the runtime, and what makes the self-signed metrics certificate in the image (the Dockerfile prunes dev dependencies); the OpenTelemetry SDK only with --tracing');
    // The README says what the scaffold's package.json has: every dependency named in its bullet, none called the only one.
    const bullet = /^- `package\.json`:[\s\S]*?(?=\n- )/m.exec(read(REPO_ROOT, 'README.md'))?.[0] ?? '';
    for (const dep of Object.keys(pkg['dependencies'])) assert.ok(bullet.includes(`\`${dep}\``), `README's package.json bullet names ${dep}:\n${bullet}`);
    assert.doesNotMatch(bullet, /the only dependency/);
    // What an install under Node 20 prints for these engines and for the node package's install script is said.
    assert.equal(pkg['engines'].node, '>=22');
    assert.match(read(REPO_ROOT, 'README.md'), /`EBADENGINE` warning per package[\s\S]*`allowScripts`[\s\S]*both are expected/);
    assert.doesNotMatch(read(REPO_ROOT, 'docs/webhooks.md'), /x509`; scaffolded projects have it as a dev dependency/);
    assert.equal(pkg['devDependencies'].kubegen, pkg['dependencies']['@kubegen/runtime']);
    assert.deepEqual(Object.keys(pkg['devDependencies']).sort(), ['@types/node', 'kubegen', 'node', 'typescript']);
    assert.deepEqual(
      Object.keys(pkg['scripts']).sort(),
      ['build', 'deploy', 'dev', 'explore', 'generate', 'install-crds', 'lint', 'preexplore', 'pretest', 'pretest:envtest', 'run', 'setup-envtest', 'start', 'test', 'test:envtest', 'undeploy', 'uninstall-crds', 'verify'],
    );
    assert.equal(pkg['scripts'].generate, 'kubegen');
    assert.equal(pkg['scripts'].verify, 'kubegen verify');
    assert.equal(JSON.parse(read(dir, 'tsconfig.json')).compilerOptions.strict, true);
    assert.deepEqual(parse(read(dir, 'codegen.config.yaml')), { apis: 'apis', out: 'src/generated', rbacSources: ['src/controllers'] });
    assert.equal(parse(read(dir, 'kubegen.project.yaml')).domain, 'example.com');
    for (const f of ['Dockerfile', '.gitignore', 'README.md', 'apis/README.md', 'config/rbac/leader_election_role.yaml', 'test/envtest/setup.ts', 'config/default/metrics_service.yaml']) {
      assert.ok(fs.existsSync(path.join(dir, f)), f);
    }
    // CI as kubebuilder scaffolds it (test/integration/newcomer.test.ts runs these steps in a fresh clone).
    const runs = (f: string): string[] => {
      const wf = parse(read(dir, `.github/workflows/${f}`)) as { on: Record<string, unknown>; jobs: Record<string, { steps: { run?: string }[] }> };
      assert.deepEqual(Object.keys(wf.on), ['push', 'pull_request'], f);
      return Object.values(wf.jobs).flatMap((j) => j.steps.flatMap((st) => (st.run ? [st.run.trim()] : [])));
    };
    assert.deepEqual(fs.readdirSync(path.join(dir, '.github/workflows')).sort(), ['image.yml', 'lint.yml', 'test-envtest.yml', 'test.yml']);
    assert.deepEqual(runs('lint.yml'), ['npm ci', 'npm run lint', 'npm run verify']);
    assert.deepEqual(runs('test.yml'), ['npm ci', 'npm test', 'npm ci', 'npm run explore']);
    assert.deepEqual(Object.keys((parse(read(dir, '.github/workflows/test.yml')) as { jobs: object }).jobs), ['test', 'explore'], 'an explore job next to the tests');
    assert.deepEqual(runs('test-envtest.yml').map((r) => r.split('\n').at(-1)), ['npm ci', 'npm run setup-envtest', 'npm run test:envtest']);
    assert.match(read(dir, '.github/workflows/test-envtest.yml'), /key: envtest-\$\{\{ runner\.os \}\}-\$\{\{ hashFiles\('node_modules\/@kubegen\/runtime\/hack\/setup-envtest\.sh'\) \}\}/);
    assert.deepEqual(runs('image.yml'), ['docker build -t fleet-operator:${GITHUB_SHA::12} .']);
    assert.match(pkg['scripts'].lint, /^tsc -p tsconfig\.json --noEmit --noUnusedLocals --noUnusedParameters/);
    const main = read(dir, 'src/main.ts');
    for (const flag of [
      'kubeconfig', 'leader-elect', "'metrics-bind-address': { type: 'string', default: ':8443' }", "'metrics-secure': { type: 'boolean', default: true }",
      "'metrics-cert-dir': { type: 'string' }", "'health-probe-bind-address': { type: 'string', default: ':8081' }", 'metricsSecureServing: flags[\'metrics-secure\']',
    ]) {
      assert.ok(main.includes(flag), flag);
    }
    assert.match(main, /startWithSignals\(\)/);
    assert.match(main, /^ {4}enableWarmup: true,$/m, 'warm standby: a replica waiting for the Lease syncs its caches');
    assert.match(main, /\.\.\.LOG_FLAGS,/, '--log-level and --log-format');
    assert.match(main, /log = setupLogging\(flags\)/);
    const manager = parse(read(dir, 'config/manager/manager.yaml').split('\n---\n')[1]!) as any;
    const container = manager.spec.template.spec.containers[0];
    assert.deepEqual(container.livenessProbe, { httpGet: { path: '/healthz', port: 8081 }, initialDelaySeconds: 15, periodSeconds: 20 });
    assert.deepEqual(container.readinessProbe, { httpGet: { path: '/readyz', port: 8081 }, initialDelaySeconds: 5, periodSeconds: 10 });
    assert.equal(manager.spec.template.spec.securityContext.runAsNonRoot, true);
    assert.deepEqual(container.ports[0], { name: 'https', containerPort: 8443, protocol: 'TCP' }, 'the metrics port');
    assert.ok(container.args.includes('--metrics-bind-address=:8443'));
    // --sharding instead of --leader-elect: the replica's identity comes from the pod name.
    assert.match(main, /sharding: \{ type: 'boolean', default: false \}/);
    assert.match(main, /\.\.\.\(flags\.sharding\s*\? \{ sharding: /);
    assert.deepEqual(container.env.find((e: { name: string }) => e.name === 'POD_NAME'), { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    assert.match(read(dir, 'Dockerfile'), /^FROM node:24-slim AS builder$[\s\S]*^USER 1000:1000$/m);
    assert.doesNotMatch(read(dir, 'Dockerfile'), /vendor/, 'a registry install copies no vendored tarballs');
    // The image runs node with V8 flags NODE_OPTIONS refuses; node must accept them together with the manager's env.
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(read(dir, 'Dockerfile'))![1]!) as string[];
    assert.deepEqual(entrypoint, ['node', '--no-concurrent-recompilation', 'dist/image/main.js']);
    assert.equal(pkg['scripts'].build, 'tsc -p tsconfig.json && kubegen bundle --quiet', 'npm run build writes the bundle the image runs');
    const envValue = (name: string): string => container.env.find((e: { name: string }) => e.name === name)?.value;
    assert.equal(envValue('MALLOC_ARENA_MAX'), '2');
    const heapLimit = spawnSync(process.execPath, [...entrypoint.slice(1, -1), '-p', "require('v8').getHeapStatistics().heap_size_limit"], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: envValue('NODE_OPTIONS') },
    });
    assert.equal(heapLimit.status, 0, heapLimit.stderr);
    assert.equal(Math.round(Number(heapLimit.stdout) / 2 ** 20), 195, 'a 192 MB old space and a 1 MB young generation');
    const kustomize = (p: string): any => parse(read(dir, `config/${p}/kustomization.yaml`));
    assert.deepEqual(kustomize('default').resources, ['../crd', '../rbac', '../manager', 'metrics_service.yaml']);
    assert.equal(kustomize('default').namespace, 'fleet-operator-system');
    assert.equal(kustomize('default').namePrefix, 'fleet-operator-');
    assert.deepEqual(kustomize('rbac').resources, [
      'service_account.yaml', 'role.yaml', 'role_binding.yaml', 'leader_election_role.yaml', 'leader_election_role_binding.yaml',
      'metrics_auth_role.yaml', 'metrics_auth_role_binding.yaml', 'metrics_reader_role.yaml',
    ]);
    // The contract config/prometheus relies on: Service controller-manager-metrics-service, port https 8443.
    const service = parse(read(dir, 'config/default/metrics_service.yaml')) as any;
    assert.deepEqual([service.kind, service.metadata.name, service.metadata.namespace], ['Service', 'controller-manager-metrics-service', 'system']);
    assert.deepEqual(service.spec.ports, [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: 8443 }]);
    assert.deepEqual(service.spec.selector, { 'control-plane': 'controller-manager', 'app.kubernetes.io/name': 'fleet-operator' });
    const authRole = parse(read(dir, 'config/rbac/metrics_auth_role.yaml')) as any;
    assert.deepEqual([authRole.kind, authRole.metadata.name], ['ClusterRole', 'metrics-auth-role']);
    assert.deepEqual(authRole.rules.map((r: any) => [r.apiGroups, r.resources, r.verbs]), [
      [['authentication.k8s.io'], ['tokenreviews'], ['create']],
      [['authorization.k8s.io'], ['subjectaccessreviews'], ['create']],
    ]);
    const authBinding = parse(read(dir, 'config/rbac/metrics_auth_role_binding.yaml')) as any;
    assert.deepEqual([authBinding.kind, authBinding.roleRef.name, authBinding.subjects], ['ClusterRoleBinding', 'metrics-auth-role', [{ kind: 'ServiceAccount', name: 'controller-manager', namespace: 'system' }]]);
    const reader = parse(read(dir, 'config/rbac/metrics_reader_role.yaml')) as any;
    assert.deepEqual([reader.kind, reader.metadata.name, reader.rules], ['ClusterRole', 'metrics-reader', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]]);
    assert.equal(kustomize('crd').resources, null, 'no CRD before create api');

    const frigate = await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
    assert.equal(frigate.code, 0, frigate.err);
    const fleet = await cli(path.join(dir, 'src'), 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Fleet', '--namespaced=false', '--controller=false');
    assert.equal(fleet.code, 0, fleet.err);

    assert.match(read(dir, 'apis/ships/v1/doc.ts'), /\+groupName=ships\.example\.com/);
    const types = read(dir, 'apis/ships/v1/frigate_types.ts');
    for (const m of ['+kubebuilder:object:root=true', '+kubebuilder:subresource:status', '+listType=map', '+listMapKey=type', 'export interface FrigateList']) {
      assert.ok(types.includes(m), m);
    }
    assert.match(read(dir, 'apis/ships/v1/fleet_types.ts'), /\+kubebuilder:resource:scope=Cluster/);
    assert.deepEqual(kustomize('crd').resources, ['bases/ships.example.com_frigates.yaml', 'bases/ships.example.com_fleets.yaml']);
    assert.deepEqual(kustomize('samples').resources, ['ships_v1_frigate.yaml', 'ships_v1_fleet.yaml']);
    const sample = parse(read(dir, 'config/samples/ships_v1_frigate.yaml')) as any;
    assert.deepEqual([sample.apiVersion, sample.kind, sample.metadata.name, sample.spec], ['ships.example.com/v1', 'Frigate', 'frigate-sample', {}]);
    assert.deepEqual(sample.metadata.labels, { 'app.kubernetes.io/name': 'fleet-operator', 'app.kubernetes.io/managed-by': 'kustomize' });
    assert.match(read(dir, 'config/samples/ships_v1_frigate.yaml'), /# The smallest valid Frigate, made by `npx kubegen sample --apis apis --kind Frigate`/, 'made by the sample generator');
    assert.ok(fs.existsSync(path.join(dir, 'test/envtest/frigate-controller.test.ts')), 'an envtest test for the controller');
    // RBAC as shipped: the suite binds config/rbac to the ServiceAccount, and the manager under test runs as it.
    assert.match(read(dir, 'test/envtest/setup.ts'), /await env\.installProjectRbac\(ROOT\)/);
    const envtestTest = read(dir, 'test/envtest/frigate-controller.test.ts');
    assert.match(envtestTest, /const asManager = recordForbidden\(createTransport\(\{ kubeconfig: envtestManagerKubeconfig\(\) \}\)\);\n  const mgr = new Manager\(\{ transport: asManager,/);
    assert.match(envtestTest, /failFast: \(\) => asManager\.assertNoneForbidden\(\)/);
    assert.match(envtestTest, /\n  asManager\.assertNoneForbidden\(\);\n\}\);\n$/);
    assert.ok(!fs.existsSync(path.join(dir, 'test/envtest/fleet-controller.test.ts')));
    assert.ok(!fs.existsSync(path.join(dir, 'src/controllers/fleet-controller.ts')));
    const controller = read(dir, 'src/controllers/frigate-controller.ts');
    assert.match(controller, /controllerFor<Frigate>\(mgr, frigateResource\)/);
    assert.match(controller, /\.completeObject\(\(obj, ctx\) => reconcileFrigate\(client, obj, ctx\)\)/, 'an object reconciler: the Frigate from the manager cache');
    assert.match(controller, /const spec: FrigateSpec = obj\.spec;/, 'the spec type from the generated index');
    assert.match(read(dir, 'src/main.ts'), /fieldOwner: 'fleet-operator',/, 'one field owner for every write');
    const wired = read(dir, 'src/main.ts');
    assert.equal(wired.match(/\n  setupFrigateController\(mgr\);\n  \/\/ \+kubegen:scaffold:controllers\n/g)?.length, 1);
    assert.match(wired, /import \{ setupFrigateController \} from '\.\/controllers\/frigate-controller\.js';\n\/\/ \+kubegen:scaffold:imports/);

    const gen = await cli(dir, 'generate', '-q');
    assert.equal(gen.code, 0, gen.err);
    const frigateCrd = parse(read(dir, 'config/crd/bases/ships.example.com_frigates.yaml')) as any;
    assert.equal(frigateCrd.spec.scope, 'Namespaced');
    assert.deepEqual(frigateCrd.spec.versions[0].subresources, { status: {} });
    assert.equal(frigateCrd.spec.versions[0].schema.openAPIV3Schema.properties.status.properties.conditions['x-kubernetes-list-type'], 'map');
    assert.equal((parse(read(dir, 'config/crd/bases/ships.example.com_fleets.yaml')) as any).spec.scope, 'Cluster');
    const role = read(dir, 'config/rbac/role.yaml');
    for (const r of ['- frigates\n', '- frigates/status\n', '- frigates/finalizers\n']) assert.ok(role.includes(r), r);
    const verify = await cli(dir, 'verify');
    assert.equal(verify.code, 0, verify.out + verify.err);

    // The user's view: `kubegen` and @types/node installed, `tsc -p tsconfig.json` with the project's strict config.
    fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
    linkRuntimePackage(dir);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
    const tsc = spawnSync(TSC, ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(tsc.status, 0, `tsc failed:\n${(tsc.stdout + tsc.stderr).slice(0, 4000)}`);
    assert.ok(fs.existsSync(path.join(dir, 'dist/src/main.js')), 'npm start runs dist/src/main.js');
    // `npm run lint` (what lint.yml runs): the scaffold passes; an unused local is reported with its file and line.
    const [lintCmd, ...lintArgs] = (pkg['scripts'].lint as string).split(' ');
    assert.equal(lintCmd, 'tsc');
    const lint = () => spawnSync(TSC, lintArgs, { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
    const clean = lint();
    assert.equal(clean.status, 0, `npm run lint fails on the scaffold:\n${(clean.stdout + clean.stderr).slice(0, 4000)}`);
    const mainTs = read(dir, 'src/main.ts');
    fs.writeFileSync(path.join(dir, 'src/main.ts'), `${mainTs}\nexport function lintProbe(): void {\n  const unused = 1;\n}\n`);
    const dirty = lint();
    fs.writeFileSync(path.join(dir, 'src/main.ts'), mainTs);
    assert.notEqual(dirty.status, 0, 'npm run lint passes with an unused local');
    assert.match(dirty.stdout + dirty.stderr, new RegExp(`src/main\\.ts\\(${mainTs.split('\n').length + 2},\\d+\\): error TS6133: 'unused' is declared but its value is never read`));
    // The manager starts, and a bad kubeconfig is one structured log line and exit 1, not a crash with a stack.
    const start = spawnSync(process.execPath, ['dist/src/main.js', '--kubeconfig', path.join(tmp, 'missing'), '--metrics-bind-address', '0'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(start.status, 1, start.stderr);
    const lines = start.stderr.trim().split('\n').map((l) => JSON.parse(l) as { level: string; msg: string });
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [['error', 'manager failed']]);
    // The second half of `npm run build`: the bundle the image runs starts the same manager, and fails the same way.
    const bundle = await cli(dir, 'bundle', '--quiet');
    assert.equal(bundle.code, 0, bundle.err);
    const image = spawnSync(process.execPath, ['dist/image/main.js', '--kubeconfig', path.join(tmp, 'missing'), '--metrics-bind-address', '0'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.equal(image.status, 1, image.stderr);
    assert.deepEqual(image.stderr.trim().split("\n").map((l) => (JSON.parse(l) as { msg: string }).msg), ["manager failed"], image.stderr);
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'dist/image/main.js'), 'utf8'), /from "@kubegen\/runtime/, 'the runtime is in the bundle');

    // Without NODE_TEST_CONTEXT the child reports to its own stdout instead of to this test runner.
    const env = { ...process.env };
    delete env['NODE_TEST_CONTEXT'];
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', 'dist/src/controllers/frigate-controller.test.js'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(run.status, 0, `scaffolded test failed:\n${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /ℹ pass 2\b/);
    assert.match(run.stdout, /ℹ fail 0\b/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("init --tracing installs the OpenTelemetry Node SDK's tracing packages as production dependencies; src/main.ts starts them from the runtime's tracing/sdk entry point", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-tracing-'));
  try {
    const init = await cli(tmp, 'init', '--domain', 'example.com', '--tracing', 'traced');
    assert.equal(init.code, 0, init.err);
    const pkg = JSON.parse(read(path.join(tmp, 'traced'), 'package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    assert.deepEqual(Object.keys(pkg.dependencies), [
      '@kubegen/runtime', '@opentelemetry/api', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/exporter-trace-otlp-proto',
      '@opentelemetry/resources', '@opentelemetry/sdk-trace-node', '@peculiar/x509', 'reflect-metadata',
    ]);
    assert.equal(pkg.devDependencies['@opentelemetry/sdk-trace-node'], undefined);
    const plain = await cli(tmp, 'init', '--domain', 'example.com', 'plain');
    assert.equal(plain.code, 0, plain.err);
    for (const dir of ['traced', 'plain']) {
      const main = read(path.join(tmp, dir), 'src/main.ts');
      assert.match(main, /^import \{ startTracing \} from '@kubegen\/runtime\/tracing\/sdk';$/m, `${dir}: the SDK start comes from the runtime`);
      assert.match(main, /const stopTracing = await startTracing\(\);/);
      assert.equal(fs.existsSync(path.join(tmp, dir, 'src/tracing.ts')), false, `${dir}: no copy of the SDK start-up`);
    }
    const plainPkg = JSON.parse(read(path.join(tmp, 'plain'), 'package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    assert.deepEqual(Object.keys({ ...plainPkg.dependencies, ...plainPkg.devDependencies }).filter((n) => n.startsWith('@opentelemetry/')), [], 'none of it without --tracing');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
