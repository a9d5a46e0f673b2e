/**
 * `npm run bench:envtest-profiles`: what each envtest profile costs to start and to keep running, for docs/testing.md.
 *
 * For each profile (`full`, `crd-only` when its binaries are installed, `cluster` with 1 and 3 hollow nodes, and with
 * 10 to see how nodes scale) it starts a fresh control plane `BENCH_ENVTEST_RUNS` times (default 3) and reports the
 * median time from `Envtest.start()` to its promise resolving (for `cluster`: every node Ready and untainted). After the
 * last start it lets the control plane idle `BENCH_ENVTEST_SETTLE` seconds (default 20), then reads each process's
 * resident memory (`/proc/<pid>/status` VmRSS) and its CPU over the next `BENCH_ENVTEST_IDLE` seconds (default 30),
 * as a share of one core. The machine's load average is printed beside them: starts slow down when it is busy.
 *
 * `BENCH_ENVTEST_PROFILES` narrows it, e.g. `cluster:3,full`.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Envtest, type EnvtestOptions } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { findAssets } from '@kubegen/runtime/internal/testing/envtest/envtest-assets.js';
import { procCpuSeconds, procMemoryMB } from '@kubegen/runtime/internal/testing/loadtest/process-stats.js';
import { sleep } from '../test/support/wait.js';

const RUNS = Number(process.env['BENCH_ENVTEST_RUNS'] ?? 3);
const SETTLE_S = Number(process.env['BENCH_ENVTEST_SETTLE'] ?? 20);
const IDLE_S = Number(process.env['BENCH_ENVTEST_IDLE'] ?? 30);
const CASES = (process.env['BENCH_ENVTEST_PROFILES'] ?? 'full,crd-only,cluster:1,cluster:3,cluster:10').split(',');

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function optionsOf(spec: string): EnvtestOptions {
  const [profile, nodes] = spec.split(':');
  if (profile === 'cluster') return { profile: 'cluster', cluster: { nodes: Number(nodes ?? 3) }, startTimeoutMs: 120_000 };
  if (profile === 'full' || profile === 'crd-only') return { profile, startTimeoutMs: 120_000 };
  throw new Error(`BENCH_ENVTEST_PROFILES: unknown case ${spec} (full, crd-only, cluster:N)`);
}

async function measure(spec: string): Promise<void> {
  const opts = optionsOf(spec);
  try {
    findAssets(undefined, opts.profile);
  } catch (err) {
    console.log(`== ${spec}: skipped (${(err as Error).message})`);
    return;
  }
  const starts: number[] = [];
  let env: Envtest | undefined;
  for (let i = 0; i < RUNS; i++) {
    const load = os.loadavg()[0]!.toFixed(1);
    const t0 = performance.now();
    env = await Envtest.start(opts);
    starts.push((performance.now() - t0) / 1000);
    console.log(`   ${spec} start ${i + 1}: ${starts.at(-1)!.toFixed(1)} s (load average ${load})`);
    if (i < RUNS - 1) await env.stop();
  }
  await sleep(SETTLE_S * 1000);
  const procs = env!.processes();
  const cpu0 = new Map(procs.map((p) => [p.pid, procCpuSeconds(p.pid)]));
  await sleep(IDLE_S * 1000);
  console.log(`== ${spec}: start median ${median(starts).toFixed(1)} s (${starts.map((s) => s.toFixed(1)).join(', ')}); idle after ${SETTLE_S} s:`);
  let rss = 0;
  let cpu = 0;
  const nodes = procs.filter((p) => p.name.startsWith('hollow-node-'));
  for (const p of procs) {
    const mb = procMemoryMB(p.pid).rssMB;
    const share = (procCpuSeconds(p.pid) - cpu0.get(p.pid)!) / IDLE_S;
    rss += mb;
    cpu += share;
    if (!p.name.startsWith('hollow-node-') || p === nodes[0]) console.log(`   ${p.name.padEnd(24)} RSS ${mb.toFixed(0).padStart(5)} MB   CPU ${(share * 100).toFixed(1).padStart(5)} %`);
  }
  if (nodes.length > 1) {
    const each = nodes.map((p) => procMemoryMB(p.pid).rssMB);
    console.log(`   (${nodes.length} hollow nodes: RSS ${Math.min(...each).toFixed(0)}-${Math.max(...each).toFixed(0)} MB each)`);
  }
  console.log(`   total                    RSS ${rss.toFixed(0).padStart(5)} MB   CPU ${(cpu * 100).toFixed(1).padStart(5)} %`);
  await env!.stop();
}

console.log(`envtest profiles: ${RUNS} starts each, then ${SETTLE_S} s settle and ${IDLE_S} s idle; ${os.cpus().length} cores`);
for (const spec of CASES) await measure(spec);
