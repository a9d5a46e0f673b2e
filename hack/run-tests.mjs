#!/usr/bin/env node
// What `npm test` runs (after `npm run build`):
//   0. build:            packages/runtime → packages/kubegen → test and bench (root dist/), by `npm run build`
//   1. unit tests:        node --test --test-concurrency=2 dist/test/unit/**/*.test.js dist/examples/*/src/**/*.test.js
//   2. envtest binaries:  hack/setup-envtest.sh when KUBEBUILDER_ASSETS is unset or empty (kube-apiserver 1.20), and
//                         hack/setup-envtest-1.36.sh when KUBEGEN_ENVTEST_1_36_ASSETS is (the CRD apiserver 1.36), and
//                         hack/setup-prometheus.sh when KUBEGEN_PROMETHEUS_BIN is (Prometheus and promtool, Debian's)
//   3. ONE control plane per profile, started together: `full` (1.20) with every CRD in SHARED_CRD_PATHS
//                         (dist/test/integration/support/crds.js), its kubeconfig path in KUBEGEN_TEST_KUBECONFIG;
//                         `crd-only` (1.36, no CRDs), its kubeconfig path in KUBEGEN_TEST_KUBECONFIG_CRD_ONLY;
//                         `cluster` (1.20 + controller-manager + scheduler + 3 hollow nodes) with CLUSTER_CRD_PATHS, its
//                         kubeconfig path in KUBEGEN_TEST_KUBECONFIG_CLUSTER (about 10 s more than `full` to start,
//                         about 450 MB; the test files that need it share it, as the others do)
//   4. integration tests: node --test --test-concurrency=1 dist/test/integration/**/*.test.js
//   5. stops the control planes; exits non-zero if any run failed.
// Flags: --unit-only, --integration-only; any other arguments are passed to both `node --test` runs
// (e.g. --test-name-pattern=watch).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit-only');
const integrationOnly = args.includes('--integration-only');
const passThrough = args.filter((a) => a !== '--unit-only' && a !== '--integration-only');

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .globSync('**/*.test.js', { cwd: dir })
    .map((f) => path.join(dir, f))
    .sort();
}

/** Counts across both runs, read from a TAP copy of each run's report, for one closing summary line. */
const totals = { passed: 0, failed: 0, skipped: 0 };

function addTotals(tapFile) {
  if (!fs.existsSync(tapFile)) return;
  const tap = fs.readFileSync(tapFile, 'utf8');
  const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  totals.passed += count('pass');
  totals.failed += count('fail') + count('cancelled');
  totals.skipped += count('skipped');
  fs.rmSync(tapFile, { force: true });
}

/**
 * `--test-timeout` bounds any single test; a watchdog bounds a whole run (a test file whose process a stray handle
 * keeps alive after its tests finished would otherwise stall CI). `--test-force-exit` is not used: it can end a
 * file's process before all of its results reach the runner, so tests silently go missing from the report.
 */
const GUARDS = ['--test-timeout=600000'];
/**
 * Tests reach package internals as `@kubegen/runtime/internal/…` and `kubegen/internal/…`: subpaths the packages
 * export only under this condition, so users' code cannot import them by accident.
 */
const INTERNAL_CONDITION = '--conditions=kubegen-internal';
const RUN_LIMIT_MS = 40 * 60_000;

function runNodeTest(files, concurrency, env) {
  const tapFile = path.join(dist, `.test-report-${process.pid}-${Date.now()}.tap`);
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tapFile}`];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...GUARDS, ...reporters, ...passThrough, ...files], {
      cwd: root,
      env: { ...env, NODE_OPTIONS: [env.NODE_OPTIONS, INTERNAL_CONDITION].filter(Boolean).join(' ') },
      stdio: 'inherit',
    });
    const watchdog = setTimeout(() => {
      console.error(`run-tests: run still going after ${RUN_LIMIT_MS / 60_000} min; stopping it (a hung test file?)`);
      child.kill('SIGTERM');
    }, RUN_LIMIT_MS);
    const forward = (sig) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      clearTimeout(watchdog);
      addTotals(tapFile);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Runs a setup script (unless `envVar` is set) and puts the folder it prints last into `envVar`. */
function ensureAssets(envVar, script) {
  if (process.env[envVar]) return process.env[envVar];
  console.error(`run-tests: ${envVar} is not set; running ${script}`);
  const res = spawnSync('bash', [path.join(root, script)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${script} failed (exit ${res.status})`);
  const dir = res.stdout.trim().split('\n').pop();
  if (!dir) throw new Error(`${script} printed no directory`);
  process.env[envVar] = dir;
  return dir;
}

let failed = false;

if (!integrationOnly) {
  // The examples' own unit tests live next to their code, as a user's project keeps them, and run here too.
  const unit = [...findTests(path.join(dist, 'test/unit')), ...findTests(path.join(dist, 'examples')).filter((f) => f.includes(`${path.sep}src${path.sep}`))];
  if (unit.length === 0) console.error('run-tests: no unit tests found in dist/test/unit (did `npm run build` run?)');
  else if ((await runNodeTest(unit, 2, process.env)) !== 0) failed = true;
}

if (!unitOnly) {
  const integration = findTests(path.join(dist, 'test/integration'));
  if (integration.length > 0) {
    const envs = [];
    try {
      ensureAssets('KUBEBUILDER_ASSETS', 'hack/setup-envtest.sh');
      ensureAssets('KUBEGEN_ENVTEST_1_36_ASSETS', 'hack/setup-envtest-1.36.sh');
      ensureAssets('KUBEGEN_PROMETHEUS_BIN', 'hack/setup-prometheus.sh');
      const { Envtest } = await import(pathToFileURL(path.join(root, 'packages/runtime/dist/testing/envtest/envtest.js')).href);
      const { CLUSTER_CRD_PATHS, SHARED_CRD_PATHS } = await import(pathToFileURL(path.join(dist, 'test/integration/support/crds.js')).href);
      const start = async (opts) => {
        const started = Date.now();
        // Three control planes start at once on a small machine: more time than envtest's default 20 s.
        const env = await Envtest.start({ startTimeoutMs: 90_000, ...opts });
        envs.push(env);
        console.error(`run-tests: ${env.profile} control plane up at ${env.apiserverUrl} in ${Date.now() - started} ms`);
        return env;
      };
      const started = await Promise.allSettled([
        start({ crdPaths: [...SHARED_CRD_PATHS] }),
        start({ profile: 'crd-only' }),
        start({ profile: 'cluster', crdPaths: [...CLUSTER_CRD_PATHS] }),
      ]);
      const failure = started.find((r) => r.status === 'rejected');
      if (failure) throw failure.reason;
      const [full, crdOnly, cluster] = started.map((r) => r.value);
      const code = await runNodeTest(integration, 1, {
        ...process.env,
        KUBEGEN_TEST_KUBECONFIG: full.kubeconfigPath,
        KUBEGEN_TEST_KUBECONFIG_CRD_ONLY: crdOnly.kubeconfigPath,
        KUBEGEN_TEST_KUBECONFIG_CLUSTER: cluster.kubeconfigPath,
      });
      if (code !== 0) failed = true;
    } catch (err) {
      console.error(`run-tests: integration run failed: ${err instanceof Error ? err.stack : err}`);
      failed = true;
    } finally {
      for (const env of envs) await env.stop();
    }
  }
}

console.log(`total: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);
