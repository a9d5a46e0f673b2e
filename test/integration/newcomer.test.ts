/**
 * The newcomer's path, end to end, in a fresh temporary folder with no access to this repo's node_modules and, on
 * this machine, the system's Node 20 as the only `node` on PATH (support/newcomer.ts):
 *
 *   npm pack --workspaces → npm install the two tarballs (the CLI) → examples/ttl-janitor copied out and installed from
 *   them (verify, build, its unit tests; support/newcomer-janitor.ts) → npx kubegen init --kubegen-from → npm install
 *   → create api ×3 (one cluster-scoped, one a second version) → create webhook (defaulting, validation, conversion) → generate → two test
 *   files of the user's own about a PodDisruptionBudget (a built-in kind the runtime typed only once the whole API was generated:
 *   policy/v1 on the fake, policy/v1beta1 on envtest's 1.20; support/newcomer-budget.ts) → without the
 *   status RBAC marker, npm run test:envtest fails naming the forbidden request (the manager runs as its ServiceAccount) → restored → the scaffolded
 *   CI workflows, each job in a fresh clone (lint + verify, npm test (unit), setup-envtest + npm run test:envtest (its own control plane); the
 *   Dockerfile replayed for the image, its ENTRYPOINT loads) → kubegen loadtest of its manager (30 objects, churn, an apiserver restart) → install-crds + samples on the shared control plane → the built manager reconciles the sample
 *   to Ready → SIGTERM → exit 0 → npm run dev (local control plane: kubectl apply of the sample reaches Ready, an edit
 *   is picked up, Ctrl-C leaves no process) → npm prune --omit=dev leaves no generator in node_modules, no
 *   @kubernetes/client-node, no CEL or protobuf package (@bufbuild/*, re2js), and at most 25 MB → the pruned manager,
 *   as `npm run build` bundled it for the image (kubegen bundle), still runs, serving its metrics over HTTPS (a self-signed certificate) to the admin only. The node_modules size
 *   and the idle manager's RSS are printed as diagnostics (README quotes them).
 * Before the RBAC check, the project's envtest suite runs once on the whole-cluster profile a user asks for with
 * ENVTEST_PROFILE=cluster (controller-manager, scheduler, 3 hollow nodes: issue 26); every other run is on `full`.
 *
 * A second, cheaper test takes the multi-cluster path from the same tarballs: `kubegen init --multicluster` → npm
 * install → create api → generate → npm test → npm run test:envtest (a hub and a member control plane).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { freePort } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { defaultAssetDirs } from '@kubegen/runtime/internal/testing/envtest/envtest-assets.js';
import { REPO_ROOT } from '../support/paths.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { newcomerEnv, packageSizes, run, treeSize } from './support/newcomer.js';
import { replayDockerfile } from './support/dockerfile-replay.js';
import { runWorkflows } from './support/workflows.js';
import { checkDevLoop } from './support/newcomer-dev.js';
import { checkJanitorExample } from './support/newcomer-janitor.js';
import { exploreAsScaffoldedAndBroken } from './support/newcomer-explore.js';
import { addBudgetTests, BUDGET_ENVTEST_TEST, budgetUnitTest } from './support/newcomer-budget.js';
import { procRssMB } from '../support/proc.js';
import { scrape } from '../support/scrape.js';

const FRIGATES: ResourceInfo = { group: 'ships.newcomer.kubegen.dev', version: 'v1', resource: 'frigates', kind: 'Frigate', listKind: 'FrigateList', namespaced: true };
const GENERATOR_PACKAGES = ['kubegen', 'ts-morph', '@ts-morph/common', 'typescript', 'commander', 'diff', 'json-schema-to-typescript', 'esbuild', 'cjs-module-lexer'];
/**
 * What a running manager never loads: the built-in API is the runtime's own, CEL and protobuf only validation's
 * (`@bufbuild/` is a scope: any package of it; npm leaves the empty scope folder behind).
 */
const NOT_IN_PRODUCTION = ['@kubernetes/client-node', '@bufbuild/', 're2js'];
/** The packages of `NOT_IN_PRODUCTION` installed in `modules`. */
const notInProduction = (modules: string): string[] =>
  NOT_IN_PRODUCTION.flatMap((p) => {
    if (!p.endsWith('/')) return fs.existsSync(path.join(modules, p)) ? [p] : [];
    const scope = path.join(modules, p);
    return fs.existsSync(scope) ? fs.readdirSync(scope).map((n) => `${p}${n}`) : [];
  });
/** The most a scaffolded project's production install (`npm prune --omit=dev`) may take. */
const PRODUCTION_INSTALL_MAX_MB = 25;
const MB = 1024 * 1024;

let env: TestEnv;
let work: string;
before(async () => {
  env = await sharedEnv();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-newcomer-'));
});
after(async () => {
  fs.rmSync(work, { recursive: true, force: true });
  await env.release();
});

const tarList = (file: string, cwd: string, e: NodeJS.ProcessEnv): string[] => run('tar', ['tzf', file], { cwd, env: e }).stdout.trim().split('\n');
const tarJson = (file: string, member: string, cwd: string, e: NodeJS.ProcessEnv): Record<string, any> =>
  JSON.parse(run('tar', ['xzfO', file, member], { cwd, env: e }).stdout) as Record<string, any>;

/**
 * Starts the project's manager (`main`: tsc's `dist/src/main.js`, or the bundle `dist/image/main.js` the image runs)
 * with `node`, waits for the sample to be Ready, checks its secured metrics (the
 * default: HTTPS with a self-signed certificate, 401 without a token, 200 for the admin), measures idle RSS,
 * SIGTERMs it.
 */
async function runManager(node: string, main: string, project: string, e: NodeJS.ProcessEnv, namespace: string, name: string): Promise<{ rss: number }> {
  const probePort = await freePort();
  const metricsPort = await freePort();
  const child = spawn(node, [main, '--kubeconfig', env.kubeconfigPath, '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--health-probe-bind-address', `127.0.0.1:${probePort}`], {
    cwd: project,
    // Run locally as the README says: without the webhooks (they need the certificate cert-manager gives in a cluster).
    env: { ...e, ENABLE_WEBHOOKS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const frigates = new ResourceClient<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(env.transport, FRIGATES, namespace);
    const deadline = performance.now() + 60_000;
    for (;;) {
      const obj = await frigates.get(name).catch(() => undefined);
      if (obj?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
      if (child.exitCode !== null) assert.fail(`the manager exited (${child.exitCode}) before ${name} was Ready:\n${output}`);
      if (performance.now() > deadline) assert.fail(`${namespace}/${name} not Ready after 60 s; manager output:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const ready = await fetch(`http://127.0.0.1:${probePort}/readyz`);
    assert.equal(ready.status, 200, 'the manager reports ready on its probe port');
    const metrics = `127.0.0.1:${metricsPort}`;
    assert.equal((await scrape(metrics)).status, 401, `anonymous scrapes are refused; output:\n${output}`);
    const admin = await scrape(metrics, { token: env.kubeConfig.getCurrentUser()?.token ?? '' });
    assert.equal(admin.status, 200, `the admin (system:masters) may scrape: ${admin.body}`);
    assert.equal(admin.certificateCN, 'localhost', 'the self-signed certificate');
    assert.match(admin.body, /^workqueue_adds_total\{/m);
    await new Promise((r) => setTimeout(r, 3_000)); // idle
    const rss = procRssMB(child.pid!) * MB;
    child.kill('SIGTERM');
    const code = await exited;
    assert.equal(code, 0, `SIGTERM should end the manager with exit 0; output:\n${output}`);
    return { rss };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** The user's environment: the system's node first on PATH, kubectl from the envtest folder, the default asset cache. */
function userEnvironment(): { userEnv: NodeJS.ProcessEnv; systemNode: string | undefined } {
  const kubectlDirs = [process.env['KUBEBUILDER_ASSETS'] ?? '', ...defaultAssetDirs()].filter(Boolean);
  const { env: userEnv, systemNode } = newcomerEnv();
  // kubectl for install-crds, if PATH lacks one: the envtest folder has it (and no node).
  userEnv['PATH'] = [userEnv['PATH'], ...kubectlDirs].join(path.delimiter);
  // The scaffold's envtest suite finds the binaries itself when they are in the default cache.
  if (userEnv['KUBEBUILDER_ASSETS'] && defaultAssetDirs().includes(userEnv['KUBEBUILDER_ASSETS'])) delete userEnv['KUBEBUILDER_ASSETS'];
  return { userEnv, systemNode };
}

interface Packed {
  packs: string;
  runtimeTgz: string;
  cliTgz: string;
  /** A folder with the CLI installed from the tarballs. */
  cli: string;
}
let packedOnce: Packed | undefined;

/**
 * Steps 1 and 2, once per run: `npm pack --workspaces` at the repo root, the tarballs checked, the CLI installed
 * from them in a folder of its own.
 */
function packAndInstallCli(userEnv: NodeJS.ProcessEnv): Packed {
  if (packedOnce) return packedOnce;
  // 1. Pack at the repo root, as the README says (the packages were built by `npm test`'s build).
  const packs = path.join(work, 'packs');
  fs.mkdirSync(packs);
  run('npm', ['pack', '--workspaces', '--ignore-scripts', '--pack-destination', packs], { cwd: REPO_ROOT, env: userEnv });
  const runtimeTgz = path.join(packs, 'kubegen-runtime-0.1.0.tgz');
  const cliTgz = path.join(packs, 'kubegen-0.1.0.tgz');
  const runtimeFiles = tarList(runtimeTgz, work, userEnv);
  for (const f of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/testing/index.js', 'package/hack/setup-envtest.sh']) assert.ok(runtimeFiles.includes(f), `runtime tarball has ${f}`);
  assert.ok(!runtimeFiles.some((f) => f.endsWith('.map') || f.includes('/test/')), 'no source maps or tests in the runtime tarball');
  const cliFiles = tarList(cliTgz, work, userEnv);
  for (const f of ['package/bin/codegen.js', 'package/dist/cli/main.js', 'package/templates/init/main.ts.tmpl']) assert.ok(cliFiles.includes(f), `CLI tarball has ${f}`);
  const runtimeDeps = Object.keys(tarJson(runtimeTgz, 'package/package.json', work, userEnv)['dependencies'] ?? {});
  assert.deepEqual(runtimeDeps.filter((d) => GENERATOR_PACKAGES.includes(d)), [], 'the runtime depends on no generator package');

  // 2. The CLI from the tarballs, in a folder of its own; started by the old node it re-runs itself on Node 24.
  const cli = path.join(work, 'cli');
  fs.mkdirSync(cli);
  run('npm', ['install', '--no-audit', '--no-fund', runtimeTgz, cliTgz], { cwd: cli, env: userEnv });
  assert.equal(run(path.join(cli, 'node_modules/.bin/kubegen'), ['--version'], { cwd: cli, env: userEnv }).stdout.trim(), '0.1.0');
  packedOnce = { packs, runtimeTgz, cliTgz, cli };
  return packedOnce;
}

test('a newcomer installs kubegen from tarballs, scaffolds, tests and runs a controller; production installs carry no generator', { timeout: 20 * 60_000 }, async (t) => {
  const { userEnv, systemNode } = userEnvironment();
  t.diagnostic(`node first on PATH: ${systemNode || '(none)'}`);
  const { packs, runtimeTgz, cliTgz, cli } = packAndInstallCli(userEnv);

  // 2b. examples/ttl-janitor copied out of the repo and installed from the same tarballs: verify, build, unit tests.
  const janitor = checkJanitorExample(work, { runtime: runtimeTgz, cli: cliTgz }, userEnv);
  t.diagnostic(`examples/ttl-janitor from a clean folder: npm install ${janitor.installSeconds.toFixed(1)} s, ${janitor.unitTests} unit tests passed`);

  // 3. A project that installs kubegen from the tarballs, with a plain npm install.
  const project = path.join(work, 'fleet-operator');
  run('npx', ['--no-install', 'kubegen', 'init', '--kubegen-from', packs, '--domain', 'newcomer.kubegen.dev', project], { cwd: cli, env: userEnv });
  const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')) as Record<string, any>;
  assert.equal(pkg['dependencies']['@kubegen/runtime'], 'file:vendor/kubegen/kubegen-runtime-0.1.0.tgz');
  run('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, env: userEnv });
  const npx = (...args: string[]) => run('npx', ['--no-install', 'kubegen', ...args], { cwd: project, env: userEnv });
  npx('create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
  npx('create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Fleet', '--namespaced=false', '--controller=false');
  npx('create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate', '--defaulting', '--programmatic-validation');
  npx('create', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--controller=false');
  npx('create', 'webhook', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--conversion');
  const npmRun = (script: string, timeoutMs?: number) => run('npm', ['run', script], { cwd: project, env: userEnv, ...(timeoutMs ? { timeoutMs } : {}) });
  npmRun('generate');
  // The user's own tests of a built-in kind the runtime had no type for before (support/newcomer-budget.ts).
  addBudgetTests(project, { group: 'ships.newcomer.kubegen.dev', version: 'v1', kind: 'Frigate' });

  // 3a. The envtest suite on the whole-cluster profile (ENVTEST_PROFILE=cluster: a controller-manager, a scheduler and
  // 3 hollow nodes beside the apiserver), as the project's README shows it; the runs below are on the default `full`.
  const clusterStarted = performance.now();
  const onCluster = run('npm', ['run', 'test:envtest'], { cwd: project, env: { ...userEnv, ENVTEST_PROFILE: 'cluster' }, timeoutMs: 240_000 }).stdout;
  assert.match(onCluster, /envtest: cluster profile, 3 hollow nodes, ready in [\d.]+ s/);
  assert.match(onCluster, /✔ the controller marks a new Frigate Ready/);
  assert.match(onCluster, /✔ the apiserver calls the Frigate webhooks/);
  assert.match(onCluster, /✔ the apiserver converts Frigate between v2 and v1 through the webhook/);
  assert.ok(onCluster.includes(`✔ ${BUDGET_ENVTEST_TEST}`), onCluster);
  assert.match(onCluster, /ℹ fail 0\b/);
  t.diagnostic(`npm run test:envtest on the cluster profile: ${((performance.now() - clusterStarted) / 1000).toFixed(1)} s`);

  // 3b. RBAC as shipped: the envtest suite runs the manager as its ServiceAccount, bound to config/rbac as deployed.
  // Without the marker that lets the controller write a Frigate's status, `generate` drops the rule and test:envtest
  // fails naming the refused request and the marker; restored, the suite passes (step 4).
  const rbacStarted = performance.now();
  const controllerFile = path.join(project, 'src/controllers/frigate-controller.ts');
  const controllerSource = fs.readFileSync(controllerFile, 'utf8');
  const statusMarker = '// +kubebuilder:rbac:groups=ships.newcomer.kubegen.dev,resources=frigates/status,verbs=get;update;patch\n';
  assert.ok(controllerSource.includes(statusMarker), 'the scaffolded controller carries the status marker');
  fs.writeFileSync(controllerFile, controllerSource.replace(statusMarker, ''));
  npmRun('generate');
  assert.doesNotMatch(fs.readFileSync(path.join(project, 'config/rbac/role.yaml'), 'utf8'), /frigates\/status/);
  const refused = run('npm', ['run', 'test:envtest'], { cwd: project, env: userEnv, timeoutMs: 180_000, allowFailure: true });
  assert.notEqual(refused.status, 0, `test:envtest passes without the status rule:\n${refused.stdout}`);
  assert.match(refused.stdout, /envtest: full profile, ready in [\d.]+ s/, 'the suite runs on `full` unless ENVTEST_PROFILE says otherwise');
  assert.match(refused.stdout, /✖ the controller marks a new Frigate Ready/);
  assert.match(
    refused.stdout,
    /- update frigates\/status \(group ships\.newcomer\.kubegen\.dev\) in namespace frigate-[a-z0-9]+, as system:serviceaccount:fleet-operator-system:fleet-operator-controller-manager; the marker \+kubebuilder:rbac:groups=ships\.newcomer\.kubegen\.dev,resources=frigates\/status,verbs=update grants it/,
    refused.stdout,
  );
  fs.writeFileSync(controllerFile, controllerSource);
  npmRun('generate');
  t.diagnostic(`RBAC as shipped (a marker removed, generate, test:envtest refused, restored, generate): ${((performance.now() - rbacStarted) / 1000).toFixed(1)} s`);

  // 4. CI as scaffolded (.github/workflows; support/workflows.ts): every job in a fresh clone of the project, its
  // run: steps in order. Lint (npm run lint, npm run verify), the unit tests (npm test: fake clientset), the envtest
  // suite (npm run setup-envtest finds the cached binaries, npm run test:envtest runs its own control plane); the
  // image build has no Docker daemon here: the Dockerfile is replayed instead and its ENTRYPOINT must load.
  const ciStarted = performance.now();
  const jobs = runWorkflows(project, { work: path.join(work, 'ci'), env: userEnv, cachedDirs: [defaultAssetDirs()[0]!] });
  const steps = jobs.flatMap((j) => j.steps);
  assert.deepEqual(steps.filter((st) => st.outcome === 'skipped').map((st) => st.where), ['image.yml/image: Build the manager image'], 'only docker is skipped');
  const ran = (command: RegExp): string => {
    const st = steps.find((x) => x.outcome === 'ran' && command.test(x.command));
    assert.ok(st, `a workflow step runs ${command}: ${steps.map((x) => x.command).join(' | ')}`);
    return st.output;
  };
  for (const c of [/^npm run lint$/, /^npm run verify$/, /npm run setup-envtest$/]) ran(c);
  const unit = ran(/^npm test$/);
  assert.match(unit, /ℹ pass 5\b/, 'the controller\'s, the webhooks\' and the PodDisruptionBudget\'s unit tests');
  assert.ok(unit.includes(`✔ ${budgetUnitTest('Frigate')}`), unit);
  assert.match(unit, /ℹ fail 0\b/);
  const envtest = ran(/^npm run test:envtest$/);
  assert.match(envtest, /✔ the controller marks a new Frigate Ready/);
  assert.match(envtest, /✔ the apiserver calls the Frigate webhooks/);
  assert.match(envtest, /✔ the apiserver converts Frigate between v2 and v1 through the webhook/);
  assert.ok(envtest.includes(`✔ ${BUDGET_ENVTEST_TEST}`), envtest);
  assert.match(envtest, /ℹ fail 0\b/);
  const image = replayDockerfile(jobs.find((j) => j.workflow === 'image.yml')!.clone, path.join(work, 'image'), userEnv);
  assert.deepEqual([image.user, image.entrypoint.slice(0, 2)], ['1000:1000', ['node', '--no-concurrent-recompilation']]);
  for (const p of GENERATOR_PACKAGES) assert.ok(!fs.existsSync(path.join(image.workdir, 'node_modules', p)), `${p} is not in the image`);
  assert.deepEqual(notInProduction(path.join(image.workdir, 'node_modules')), [], 'no client-node, CEL or protobuf package in the image');
  // Its modules resolve (ES imports load before main runs): a bad flag gets the manager's own error and exit 1.
  const entry = run(process.execPath, [...image.entrypoint.slice(1), '--no-such-flag'], { cwd: image.workdir, env: { ...userEnv, ...image.env }, allowFailure: true });
  assert.equal(entry.status, 1, `${entry.stdout}${entry.stderr}`);
  assert.match(`${entry.stdout}${entry.stderr}`, /no-such-flag/);
  t.diagnostic(`CI workflows in fresh clones: ${jobs.map((j) => `${j.workflow} ${j.steps.reduce((n, st) => n + st.seconds, 0).toFixed(0)} s`).join(', ')}, the image replayed; ${((performance.now() - ciStarted) / 1000).toFixed(0)} s in all`);
  // 4a. `npm run explore` (kubegen explore on the in-process control plane): the scaffolded controller passes; broken
  // on purpose (a child's generated name remembered only in a second write) it fails, naming the crash point.
  const exploreStarted = performance.now();
  exploreAsScaffoldedAndBroken({ dir: project, env: userEnv, kind: 'Frigate', childKind: 'Fleet', apiVersion: 'ships.newcomer.kubegen.dev/v1' });
  t.diagnostic(`npm run explore, as scaffolded (exit 0) and broken on purpose (exit 1): ${((performance.now() - exploreStarted) / 1000).toFixed(1)} s`);
  npmRun('build'); // the project itself (the controller as scaffolded again), for what follows

  // 4b. A load test of the project's own manager, as docs/loadtest.md shows it: 30 Frigates from the sample, spec
  // churn and an apiserver restart, on an envtest the harness starts; every Frigate Ready again at the end, and the
  // reconcile figures read from the manager's secured /metrics.
  const loadtest = run(
    'npx',
    ['--no-install', 'kubegen', 'loadtest', '--crd', 'config/crd/bases', '--template', 'config/samples/ships_v1_frigate.yaml', '--count', '30',
      '--churn', '5', '--churn-patch', '{"spec":{"foo":"{{seq}}"}}', '--duration', '12', '--restart-apiserver-every', '6', '--out', 'loadtest-report',
      // The scaffold's /metrics is HTTPS with TokenReview + SubjectAccessReview: scraped with the envtest admin's token.
      '--metrics-url', 'https://127.0.0.1:{metricsPort}/metrics',
      '--', 'node', 'dist/src/main.js', '--kubeconfig={kubeconfig}', '--metrics-bind-address=127.0.0.1:{metricsPort}', '--health-probe-bind-address=0'],
    { cwd: project, env: { ...userEnv, ENABLE_WEBHOOKS: 'false' }, timeoutMs: 240_000 },
  ).stdout;
  assert.match(loadtest, /kubegen loadtest: 30 Frigate \(ships\.newcomer\.kubegen\.dev\/v1\)/);
  // A reconcile that meets the apiserver while it is down fails and is retried with backoff: a few errors are the
  // harness working, not a fault. What must hold is that every Frigate converges again and errors stay rare.
  const [, reconciles, errors] = /reconcile: (\d+) \((\d+) errors/.exec(loadtest) ?? [];
  assert.ok(Number(reconciles) > 0 && Number(errors) <= Number(reconciles) / 10, `reconcile errors stay rare:\n${loadtest}`);
  assert.match(loadtest, /unreconciled at the end: 0\n/);
  const ltReport = JSON.parse(fs.readFileSync(path.join(project, 'loadtest-report/report.json'), 'utf8')) as { phases: { churn: { patches: number } }; faults: { events: unknown[] } };
  assert.ok(ltReport.phases.churn.patches > 20 && ltReport.faults.events.length === 1, JSON.stringify(ltReport.phases));
  t.diagnostic(loadtest.trim().split('\n').filter((l) => /^(converge|reconverge|controller|reconcile)/.test(l)).join(' | '));

  // 5. CRDs and samples into the shared control plane; the built manager reconciles the Frigate sample.
  const clusterEnv = { ...userEnv, KUBECONFIG: env.kubeconfigPath };
  run('npm', ['run', 'install-crds'], { cwd: project, env: clusterEnv });
  run('kubectl', ['wait', '--for=condition=established', '--timeout=60s', 'crd/frigates.ships.newcomer.kubegen.dev', 'crd/fleets.ships.newcomer.kubegen.dev'], { cwd: project, env: clusterEnv });
  const namespace = await env.newNamespace('newcomer');
  // The v1 samples: a v2 object would need the conversion webhook, which this local run (ENABLE_WEBHOOKS=false) and
  // the cluster (no webhook Service) do not have.
  run('kubectl', ['apply', '-n', namespace, '-f', 'config/samples/ships_v1_frigate.yaml', '-f', 'config/samples/ships_v1_fleet.yaml'], { cwd: project, env: clusterEnv });
  const rendered = run('kubectl', ['kustomize', 'config/default'], { cwd: project, env: userEnv }).stdout;
  assert.match(rendered, /name: fleet-operator-controller-manager\n  namespace: fleet-operator-system/);
  // The webhook wiring: cert-manager injects the CA, the certificate names the webhook Service.
  assert.equal(rendered.match(/cert-manager\.io\/inject-ca-from: fleet-operator-system\/fleet-operator-serving-cert/g)?.length, 3, 'two webhook configurations and the Frigate CRD');
  assert.match(rendered, /- fleet-operator-webhook-service\.fleet-operator-system\.svc\n/);
  assert.match(rendered, /name: fleet-operator-controller-manager-metrics-service\n  namespace: fleet-operator-system/);
  assert.match(rendered, /\n  name: fleet-operator-metrics-reader\n/, 'the ClusterRole scrapers are bound to');
  const devNode = path.join(project, 'node_modules/.bin/node'); // what `npm start` runs
  const dev = await runManager(devNode, 'dist/src/main.js', project, userEnv, namespace, 'frigate-sample');
  const devModules = treeSize(path.join(project, 'node_modules'));

  // 5b. npm run dev (support/newcomer-dev.ts): a local control plane, the manager as its ServiceAccount with the
  // webhooks wired to it; kubectl apply of the sample reaches Ready, an edit is picked up, Ctrl-C leaves nothing.
  const loop = await checkDevLoop(project, userEnv);
  t.diagnostic(`npm run dev: manager ready after ${loop.readySeconds.toFixed(1)} s, an edit live after ${loop.editSeconds.toFixed(1)} s, ${loop.totalSeconds.toFixed(1)} s in all`);

  // 6. A production install: no generator, still runs (on the repo's Node 24, as a node:24 image would).
  run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { cwd: project, env: userEnv });
  for (const p of GENERATOR_PACKAGES) assert.ok(!fs.existsSync(path.join(project, 'node_modules', p)), `${p} is not installed after npm prune --omit=dev`);
  assert.deepEqual(notInProduction(path.join(project, 'node_modules')), [], 'no client-node, CEL or protobuf package after npm prune --omit=dev');
  assert.ok(fs.existsSync(path.join(project, 'node_modules/@kubegen/runtime/dist/index.js')));
  const prodModules = treeSize(path.join(project, 'node_modules'));
  t.diagnostic(`production install (npm prune --omit=dev): ${(prodModules / MB).toFixed(1)} MB in node_modules: ${packageSizes(path.join(project, 'node_modules')).map(([p, n]) => `${p} ${(n / MB).toFixed(1)}`).join(', ')}`);
  assert.ok(prodModules <= PRODUCTION_INSTALL_MAX_MB * MB, `the production install is ${(prodModules / MB).toFixed(1)} MB, more than ${PRODUCTION_INSTALL_MAX_MB} MB`);
  await new ResourceClient<KubeObject>(env.transport, FRIGATES, namespace).create({ apiVersion: 'ships.newcomer.kubegen.dev/v1', kind: 'Frigate', metadata: { name: 'frigate-two' }, spec: {} } as KubeObject);
  // The bundle `npm run build` wrote (kubegen bundle), what the image's ENTRYPOINT runs.
  const prod = await runManager(process.execPath, 'dist/image/main.js', project, userEnv, namespace, 'frigate-two');

  const mb = (n: number): string => `${(n / MB).toFixed(1)} MB`;
  t.diagnostic(`node_modules: ${mb(devModules)} with dev dependencies, ${mb(prodModules)} after npm prune --omit=dev`);
  t.diagnostic(`idle manager RSS (one controller, 1 object): ${mb(dev.rss)} (dev install, tsc's modules), ${mb(prod.rss)} (production install, the bundle)`);
  assert.ok(prodModules < devModules, 'pruning removes the dev dependencies');
});

/**
 * The multi-cluster path, as cheap as it can be: the same tarballs and CLI, `kubegen init --multicluster`, npm
 * install, one `create api`, generate, the unit tests, and the envtest suite — which starts a hub and a member
 * control plane, runs the manager in the hub as its ServiceAccount (reading the member's kubeconfig Secret through
 * config/rbac/clusters_role.yaml) and checks that a Frigate created in the member is reconciled there.
 */
test('a newcomer scaffolds a multi-cluster project from a clean folder and its envtest suite (a hub and a member) passes', { timeout: 10 * 60_000 }, async (t) => {
  const { userEnv } = userEnvironment();
  const { packs, cli } = packAndInstallCli(userEnv);
  const started = performance.now();
  const project = path.join(work, 'fleet-hub');
  run('npx', ['--no-install', 'kubegen', 'init', '--multicluster', '--kubegen-from', packs, '--domain', 'newcomer.kubegen.dev', project], { cwd: cli, env: userEnv });
  run('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, env: userEnv });
  run('npx', ['--no-install', 'kubegen', 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate'], { cwd: project, env: userEnv });
  run('npm', ['run', 'generate'], { cwd: project, env: userEnv });
  const unit = run('npm', ['test'], { cwd: project, env: userEnv }).stdout;
  assert.match(unit, /ℹ pass 2\b/, unit);
  assert.match(unit, /ℹ fail 0\b/);
  const envtest = run('npm', ['run', 'test:envtest'], { cwd: project, env: userEnv, timeoutMs: 240_000, allowFailure: true });
  assert.equal(envtest.status, 0, `npm run test:envtest of the multi-cluster project failed:\n${envtest.stdout}\n${envtest.stderr}`);
  assert.match(envtest.stdout, /envtest: hub and member \(full profile\), ready in [\d.]+ s/);
  assert.match(envtest.stdout, /✔ the controller marks a new Frigate in the member cluster Ready/);
  assert.match(envtest.stdout, /ℹ fail 0\b/);
  t.diagnostic(`multi-cluster project: init, install, create api, generate, unit and envtest suites in ${((performance.now() - started) / 1000).toFixed(0)} s`);
});
