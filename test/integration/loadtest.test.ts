/**
 * `kubegen loadtest` as a user runs it, on both sample controllers (issue 13's harness, CI size): 100 Foos, churn,
 * two apiserver SIGKILL + restarts with etcd compacted while down, silent watches, dropped connections and added
 * latency, through the CLI binary. The harness starts its own envtest (it must restart the apiserver, which the shared
 * control plane of the other tests cannot allow). Every Foo must have converged at the end (exit 0), and the report,
 * plot and log must say what happened. The 1,000-Foo run of the issue is the same command with --count 1000.
 * With `--envtest cluster`, the Foos' Deployments run for real on hollow nodes and a Foo converges when its status
 * reports all its replicas available.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LoadTestReport } from '@kubegen/runtime/internal/testing/loadtest/report.js';
import { CODEGEN_BIN } from '../support/paths.js';
import { REPO_ROOT } from './support/crds.js';
import { ensureSampleControllerBuilt } from './support/sample-controller-process.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples/sample-controller');

function runLoadtest(out: string, controller: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCodegenLoadtest([
    '--crd', 'artifacts/crd.yaml', '--template', 'loadtest/foo.yaml', '--check', 'loadtest/converged.mjs',
    '--count', '100', '--churn', '10', '--churn-patch', '{"spec":{"replicas":{{random 1 5}}}}', '--duration', '24',
    '--restart-apiserver-every', '10', '--freeze-watches-every', '13', '--freeze-for', '3', '--drop-connections-every', '7', '--latency', '2',
    '--timeout', '120', '--out', out, '--', ...controller,
  ], env);
}

/** `kubegen loadtest ARGS` in the example's folder, killed after 4 minutes. */
function runCodegenLoadtest(loadtestArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [CODEGEN_BIN, 'loadtest', ...loadtestArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: EXAMPLE, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('kubegen loadtest on the sample controllers (envtest, 100 Foos, faults)', () => {
  let tmp: string;
  before(() => {
    ensureSampleControllerBuilt();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-loadtest-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const checkCommonReport = (out: string, run: { code: number | null; stdout: string; stderr: string }): LoadTestReport => {
    assert.equal(run.code, 0, `loadtest failed:\n${run.stdout}\n${run.stderr.slice(-3000)}`);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')) as LoadTestReport;
    assert.equal(report.objects, 100);
    assert.equal(report.unreconciled, 0);
    assert.equal(report.phases.converge.left, 0);
    assert.equal(report.phases.delete.left, 0);
    assert.equal(report.controller.exitedEarly, false);
    assert.ok(report.phases.churn.patches > 50, `patches sent: ${report.phases.churn.patches}`);
    const events = report.faults.events.map((e) => e.event);
    assert.equal(events.filter((e) => /^apiserver killed and restarted .* etcd compacted at revision \d+$/.test(e)).length, 2, events.join('\n'));
    assert.ok(events.some((e) => /watch streams silent for 3 s/.test(e)), events.join('\n'));
    assert.ok(events.some((e) => /^dropped \d+ connections?$/.test(e)), events.join('\n'));
    // The controller watched again after the faults: more watches than its two informers opened at start.
    assert.ok((report.apiRequests.byVerb['watch'] ?? 0) > 2, JSON.stringify(report.apiRequests.byVerb));
    assert.ok((report.apiRequests.byVerb['create'] ?? 0) >= 100, 'one Deployment per Foo (and events)');
    assert.ok(report.controller.cpuSeconds > 0);
    assert.ok(report.controller.peakRssMB > 5);
    assert.ok(report.samples.length >= 20);
    assert.ok(report.samples.some((s) => s.unconverged !== null && s.unconverged > 0), 'the plot shows churn left some Foos behind for a moment');
    assert.match(fs.readFileSync(path.join(out, 'plot.svg'), 'utf8'), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
    assert.ok(fs.statSync(path.join(out, 'controller.log')).size > 0);
    assert.match(run.stdout, /unreconciled at the end: 0\n/);
    return report;
  };

  it('the TypeScript sample controller converges through every fault; latency and queue depth come from its /metrics', async () => {
    const out = path.join(tmp, 'ts');
    const run = await runLoadtest(out, [process.execPath, 'dist/main.js', '--kubeconfig={kubeconfig}', '--metrics-bind-address=127.0.0.1:{metricsPort}']);
    const report = checkCommonReport(out, run);
    assert.ok(report.reconcile !== null && report.reconcile.total >= 100, JSON.stringify(report.reconcile));
    assert.ok(report.reconcile.p50 !== null && report.reconcile.p50 > 0 && report.reconcile.p99! >= report.reconcile.p50);
    assert.ok(report.maxQueueDepth !== null && report.maxQueueDepth > 0, 'the queue filled while the Foos were created');
    assert.match(run.stdout, /reconcile: \d+ \(\d+ errors, [\d.]+ %\), latency p50 [\d.]+ ms/);
  });

  it('the Go original runs under the same flags (no /metrics: convergence, CPU, RSS and requests only)', async () => {
    const goController = path.join(process.env['KUBEBUILDER_ASSETS'] ?? '', 'sample-controller-fast');
    assert.ok(fs.existsSync(goController), `${goController} is missing: hack/setup-envtest.sh builds it`);
    const out = path.join(tmp, 'go');
    const run = await runLoadtest(out, [goController, '-kubeconfig', '{kubeconfig}'], { SC_WORKERS: '2' });
    const report = checkCommonReport(out, run);
    assert.equal(report.reconcile, null);
    assert.match(run.stdout, /reconcile: no metrics/);
  });
});

describe('kubegen loadtest --envtest cluster: the sample controller with its Deployments run on hollow nodes', () => {
  let tmp: string;
  before(() => {
    ensureSampleControllerBuilt();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-loadtest-cluster-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('converges when every Foo reports its replicas available: real Pods, counted in the report and the plot', async () => {
    const out = path.join(tmp, 'cluster');
    const run = await runCodegenLoadtest([
      '--envtest', 'cluster', '--nodes', '2',
      '--crd', 'artifacts/crd.yaml', '--template', 'loadtest/foo.yaml', '--check', 'loadtest/available.mjs',
      '--count', '12', '--churn', '2', '--churn-patch', '{"spec":{"replicas":{{random 1 3}}}}', '--duration', '8',
      '--timeout', '150', '--out', out, '--', process.execPath, 'dist/main.js', '--kubeconfig={kubeconfig}', '--metrics-bind-address=127.0.0.1:{metricsPort}',
    ]);
    assert.equal(run.code, 0, `loadtest failed:\n${run.stdout}\n${run.stderr.slice(-3000)}`);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')) as LoadTestReport;
    assert.equal(report.controlPlane, 'envtest cluster, 2 hollow nodes');
    assert.equal(report.unreconciled, 0);
    assert.equal(report.phases.delete.left, 0);
    // Every Foo has at least one replica, each a Pod Running on a hollow node at convergence.
    assert.ok(report.maxPodsRunning !== null && report.maxPodsRunning >= 12, `most Pods Running at once: ${report.maxPodsRunning}`);
    assert.ok(report.samples.every((s) => s.podsRunning === null || typeof s.podsRunning === 'number'));
    assert.match(run.stdout, /on envtest cluster, 2 hollow nodes/);
    assert.match(run.stdout, /\npods running: max \d+, \d+ at the end\n/);
    assert.match(fs.readFileSync(path.join(out, 'plot.svg'), 'utf8'), /Pods Running in the namespace/);
  });
});
