/**
 * `npm run bench:soak [-- --seconds=300 --foos=500 --patches=20 --restart-every=30 --impl=both|kubegen|go]`:
 * issue 15's soak, the TypeScript sample controller and the Go original side by side, each on a fresh control plane:
 * N Foos converge; then for S seconds a churner merge-patches random Foos' `spec.replicas` (P per second) while
 * kube-apiserver is killed (SIGKILL) and restarted every R seconds; then churn stops and the bench waits up to 60 s
 * for every Deployment to match its Foo. Printed per controller: mismatches at the end (goal 0), time to converge,
 * conflicts (from the controller's log: lines about "the object has been modified", plus the repeats our aggregated
 * lines count), error-level log lines, all log lines, CPU seconds and peak RSS; then the ratios (goal: conflicts ≤
 * 10× Go's). Never asserted anywhere: figures for the closing note.
 *
 * Memory over time (issue 14): each controller's RSS is sampled every 5 s; printed are RSS at minute 2 and at the
 * end of the soak and the growth between them (goal ≤ 10 %), and per minute the RSS range. The TypeScript one also
 * serves `/metrics`, so its V8 heap (used / total) is sampled alongside: a flat used heap under a growing RSS is heap
 * sizing, a used heap that keeps growing is a leak. The TypeScript controller runs with the scaffold's `node` settings
 * (Dockerfile `ENTRYPOINT` flags, `NODE_OPTIONS`, `MALLOC_ARENA_MAX`); `--node-flags="..."` runs it with Node's
 * defaults plus those flags instead (`--node-flags=` for Node's defaults alone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { Clientset } from '../examples/sample-controller/src/generated/clientset.js';
import { procCpuSeconds, procPeakRssMB, procRssMB } from '../test/support/proc.js';
import { freePort } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { parsePrometheusText, sumOf } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { createFoos } from './support/foos.js';
import {
  envtestAssets,
  envtestBinary,
  nodeFlagSettings,
  requireSampleControllerBuilt,
  SAMPLE_CONTROLLER_CRD,
  SAMPLE_CONTROLLER_MAIN,
  scaffoldNodeSettings,
  type NodeSettings,
} from './support/sample-controller-run.js';
import { sleep } from '../test/support/wait.js';


interface Options {
  seconds: number;
  foos: number;
  patches: number;
  restartEvery: number;
  node: NodeSettings;
}

/** One memory sample: seconds since the soak started, RSS, and (TypeScript) V8 heap used/total from `/metrics`. */
interface MemorySample {
  t: number;
  rssMB: number;
  heapUsedMB?: number;
  heapTotalMB?: number;
}

interface SoakResult {
  name: string;
  mismatches: number;
  convergeSeconds: number;
  conflicts: number;
  errorLines: number;
  logLines: number;
  restarts: number;
  patchesSent: number;
  cpuSeconds: number;
  peakRssMB: number;
  memory: MemorySample[];
}

/** Reads the controller's log: conflicts (with our `repeated` counts), error-level lines, all lines. */
function countLog(log: string): { conflicts: number; errorLines: number; logLines: number } {
  let conflicts = 0;
  let errorLines = 0;
  let logLines = 0;
  for (const line of log.split('\n')) {
    if (!line.trim()) continue;
    logLines++;
    const conflict = /the object has been modified/.test(line);
    if (line.startsWith('{')) {
      try {
        const rec = JSON.parse(line) as { level?: string; repeated?: number };
        if (rec.level === 'error') errorLines++;
        if (conflict) conflicts += 1 + (rec.repeated ?? 0);
        continue;
      } catch {
        // not JSON after all
      }
    }
    if (/^E\d{4} /.test(line)) errorLines++; // klog
    if (conflict) conflicts++;
  }
  return { conflicts, errorLines, logLines };
}

/** Transport that is replaced after a failure (the apiserver restarts under it). */
class AdminClient {
  transport: HttpTransport;
  constructor(private readonly env: Envtest) {
    this.transport = env.transport({ timeoutMs: 30_000 });
  }
  renew(): void {
    this.transport.close();
    this.transport = this.env.transport({ timeoutMs: 30_000 });
  }
}

async function mismatches(admin: AdminClient, ns: string): Promise<number> {
  const foos = (await new Clientset(admin.transport).samplecontrollerV1alpha1.foos(ns).list()).items;
  const deps = new Map((await new KubeClientset(admin.transport).appsV1.deployments(ns).list()).items.map((d) => [d.metadata!.name!, d]));
  return foos.filter((f) => deps.get(f.spec!.deploymentName!)?.spec?.replicas !== f.spec!.replicas).length;
}

/** V8 heap used and total (MB) from prom-client's default metrics at `url`, or nothing. */
async function heapFromMetrics(url: string | undefined): Promise<{ heapUsedMB?: number; heapTotalMB?: number }> {
  if (!url) return {};
  try {
    const samples = parsePrometheusText(await (await fetch(url, { signal: AbortSignal.timeout(2000) })).text());
    const read = (name: string): number | undefined => {
      const bytes = sumOf(samples, name);
      return bytes === undefined ? undefined : bytes / 1e6;
    };
    const used = read('nodejs_heap_size_used_bytes');
    const total = read('nodejs_heap_size_total_bytes');
    return { ...(used !== undefined ? { heapUsedMB: used } : {}), ...(total !== undefined ? { heapTotalMB: total } : {}) };
  } catch {
    return {};
  }
}

async function soak(name: string, opts: Options, start: (env: Envtest, ns: string) => ChildProcess, metricsUrl?: string): Promise<SoakResult> {
  const env = await Envtest.start({ crdPaths: [SAMPLE_CONTROLLER_CRD], attachOutput: false });
  const admin = new AdminClient(env);
  let child: ChildProcess | undefined;
  try {
    const ns = await createTestNamespace(admin.transport, `soak-${name}`);
    await createFoos(admin.transport, ns, opts.foos);
    process.stderr.write(`${name}: ${opts.foos} Foos created; starting the controller\n`);
    child = start(env, ns);
    let log = '';
    const collect = (d: Buffer): void => void (log += d.toString());
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const pid = child.pid!;
    const untilConverged = async (limitMs: number): Promise<{ left: number; ms: number }> => {
      const t0 = Date.now();
      let left = Infinity;
      while (Date.now() - t0 < limitMs) {
        left = await mismatches(admin, ns).catch(() => (admin.renew(), Infinity));
        if (left === 0) break;
        await sleep(1000);
      }
      return { left, ms: Date.now() - t0 };
    };
    const initial = await untilConverged(120_000);
    process.stderr.write(`${name}: initial convergence in ${(initial.ms / 1000).toFixed(1)} s (${initial.left} left); soaking ${opts.seconds} s\n`);

    const soakStart = Date.now();
    const end = soakStart + opts.seconds * 1000;
    const memory: MemorySample[] = [];
    const sampler = (async () => {
      while (Date.now() < end) {
        memory.push({ t: (Date.now() - soakStart) / 1000, rssMB: procRssMB(pid), ...(await heapFromMetrics(metricsUrl)) });
        await sleep(5000);
      }
    })();
    let patchesSent = 0;
    let restarts = 0;
    const churn = (async () => {
      const interval = 1000 / opts.patches;
      while (Date.now() < end) {
        const i = Math.floor(Math.random() * opts.foos);
        const replicas = 1 + Math.floor(Math.random() * 5);
        try {
          await new Clientset(admin.transport).samplecontrollerV1alpha1.foos(ns).patch(`foo-${i}`, { type: 'merge', patch: { spec: { replicas } } });
          patchesSent++;
        } catch {
          admin.renew(); // the apiserver is away: try again on a new connection
        }
        await sleep(interval);
      }
    })();
    const restarter = (async () => {
      for (let at = Date.now() + opts.restartEvery * 1000; at < end; at += opts.restartEvery * 1000) {
        await sleep(at - Date.now());
        await env.stopApiServer({ kill: true });
        await env.startApiServer();
        restarts++;
      }
    })();
    await Promise.all([churn, restarter, sampler]);
    memory.push({ t: (Date.now() - soakStart) / 1000, rssMB: procRssMB(pid), ...(await heapFromMetrics(metricsUrl)) });
    const final = await untilConverged(60_000);
    const cpuSeconds = procCpuSeconds(pid);
    const peakRssMB = procPeakRssMB(pid);
    child.kill('SIGTERM');
    await sleep(500);
    return { name, mismatches: final.left, convergeSeconds: final.ms / 1000, ...countLog(log), restarts, patchesSent, cpuSeconds, peakRssMB, memory };
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    admin.transport.close();
    await env.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '300' },
      foos: { type: 'string', default: '500' },
      patches: { type: 'string', default: '20' },
      'restart-every': { type: 'string', default: '30' },
      impl: { type: 'string', default: 'both' },
      'node-flags': { type: 'string' },
    },
  });
  const opts: Options = { seconds: Number(values.seconds), foos: Number(values.foos), patches: Number(values.patches), restartEvery: Number(values['restart-every']), node: values['node-flags'] === undefined ? scaffoldNodeSettings() : nodeFlagSettings(values['node-flags'].split(' ').filter(Boolean)) };
  requireSampleControllerBuilt();
  const assets = envtestAssets();
  process.env['KUBEBUILDER_ASSETS'] = assets;
  const results: SoakResult[] = [];
  if (values.impl !== 'go') {
    const metricsPort = await freePort();
    results.push(
      await soak(
        'kubegen',
        opts,
        (env, ns) =>
          spawn(process.execPath, [...opts.node.flags, SAMPLE_CONTROLLER_MAIN, `--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, '--workers=2', `--metrics-bind-address=127.0.0.1:${metricsPort}`], {
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, ...opts.node.env, KUBEGEN_LOG_LEVEL: 'info' },
          }),
        `http://127.0.0.1:${metricsPort}/metrics`,
      ),
    );
  }
  if (values.impl !== 'kubegen') {
    results.push(
      await soak('go', opts, (env) =>
        spawn(envtestBinary('sample-controller-fast', assets), ['-kubeconfig', env.kubeconfigPath], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SC_WORKERS: '2' } }),
      ),
    );
  }
  console.log(`soak: ${opts.foos} Foos, ${opts.patches} patches/s, apiserver SIGKILL + restart every ${opts.restartEvery} s, ${opts.seconds} s`);
  console.log('controller   mismatches  converge  conflicts  error-lines  log-lines  restarts  patches   CPU-s   peak RSS');
  for (const r of results) {
    console.log(
      `${r.name.padEnd(12)} ${String(r.mismatches).padStart(10)} ${r.convergeSeconds.toFixed(1).padStart(8)}s ${String(r.conflicts).padStart(10)} ${String(r.errorLines).padStart(12)} ${String(r.logLines).padStart(10)} ${String(r.restarts).padStart(9)} ${String(r.patchesSent).padStart(8)} ${r.cpuSeconds.toFixed(1).padStart(7)} ${r.peakRssMB.toFixed(1).padStart(8)} MB`,
    );
  }
  if (values.impl !== 'go') console.log(`kubegen ran with ${opts.node.label}`);
  for (const r of results) printMemory(r, opts.seconds);
  const [ours, go] = [results.find((r) => r.name === 'kubegen'), results.find((r) => r.name === 'go')];
  if (ours && go) {
    const ratio = ours.conflicts / Math.max(1, go.conflicts);
    console.log(`ratio kubegen/go: conflicts ${ratio.toFixed(1)} (goal <= 10: ${ratio <= 10 ? 'met' : 'NOT met'}), error lines ${(ours.errorLines / Math.max(1, go.errorLines)).toFixed(1)}; mismatches ${ours.mismatches} / ${go.mismatches} (goal 0)`);
  }
}

/** RSS at minute 2 and at the end, the growth between (goal ≤ 10 %), and per minute the RSS (and heap) range. */
function printMemory(r: SoakResult, seconds: number): void {
  const at = (t: number): MemorySample | undefined => r.memory.find((m) => m.t >= t);
  const from = at(Math.min(120, seconds / 2));
  const last = r.memory[r.memory.length - 1];
  if (!from || !last) return;
  const growth = (last.rssMB / from.rssMB - 1) * 100;
  console.log(
    `${r.name}: RSS ${from.rssMB.toFixed(1)} MB at ${from.t.toFixed(0)} s, ${last.rssMB.toFixed(1)} MB at ${last.t.toFixed(0)} s: ` +
      `${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % (goal <= 10 %: ${growth <= 10 ? 'met' : 'NOT met'})`,
  );
  const range = (xs: number[]): string => (xs.length ? `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}` : '-');
  for (let minute = 0; minute * 60 < seconds; minute++) {
    const in_ = r.memory.filter((m) => m.t >= minute * 60 && m.t < (minute + 1) * 60);
    const heap = in_.filter((m) => m.heapUsedMB !== undefined);
    console.log(
      `  minute ${String(minute + 1).padStart(2)}: RSS ${range(in_.map((m) => m.rssMB))} MB` +
        (heap.length ? `, heap used ${range(heap.map((m) => m.heapUsedMB!))} MB, heap total ${range(heap.map((m) => m.heapTotalMB ?? 0))} MB` : ''),
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
