/**
 * `bench:scale`, part "fanout" (issue 27): the fanout example (examples/fanout: a Batch owns `spec.tasks` Tasks) at
 * N Batches with 1, 2 and 3 replicas, in each sharding mode on the server that leads to it:
 *   server  CRD apiserver 1.36, `ShardedListAndWatch` on (the apiserver filters by shard selector)
 *   client  CRD apiserver 1.36, the gate off (every replica lists everything, keeps its ranges)
 *   labels  kube-apiserver 1.20 (the sharder labels every Batch)
 * and, as the reference of each server, one unsharded replica. Every run has a fresh control plane of its own (1.5 s
 * to start on the 1.36 profile), so that no run inherits an earlier run's objects, their history in etcd, or a
 * deletion still in progress. Convergence times still vary by about ±10 % between runs of the same configuration on
 * a shared 2-core machine: compare configurations by alternating them (`BENCH_FANOUT_REPLICAS=3,1,3,1`, judged by
 * medians). For each run: the
 * Batches (one Task each) are created in a namespace of their own before the replicas start; convergence is the
 * time from spawning them until every Batch's status says `readyTasks: 1` (seen by a watch); then, for each replica,
 * its peak RSS (VmHWM) and CPU seconds (`/proc`), and from its `/metrics` its live heap and API writes
 * (`rest_client_requests_total` POST, PUT, PATCH, DELETE: the Tasks, the statuses, the Leases, and on the label path
 * the sharder's PATCHes of Batches and Tasks); the Batches left carrying a shard label (assignment writes); the
 * apiserver's CPU seconds over the run.
 *
 * Environment: `BENCH_FANOUT_SIZES` (default `10000,30000`), `BENCH_FANOUT_MODES` (default `server,client,labels`),
 * `BENCH_FANOUT_REPLICAS` (default `1,2,3`, run in that order: `3,1` alternates with the default), `BENCH_FANOUT_WORKERS`
 * (per replica, default 4), `BENCH_FANOUT_REFERENCE=0` (no unsharded reference run), `BENCH_FANOUT_NODE_FLAGS` (Node flags of every replica, e.g. `--optimize-for-size`), or
 * `BENCH_FANOUT_SCAFFOLD=1`: every replica runs as a scaffolded project deploys its manager (the Dockerfile's
 * `ENTRYPOINT` flags, `NODE_OPTIONS` and `MALLOC_ARENA_MAX` of `config/manager/manager.yaml`) without its
 * `--max-old-space-size`, which the manifest sizes to a deployment's memory limit (docs/loadtest.md) and which one
 * replica caching 30,000 Batches and their Tasks would need raised. By default the replicas run with Node's defaults,
 * as the example's `npm start` does. Every replica also gets `--expose-gc` and bench/support/gc-on-signal.ts, so that
 * its live heap (V8 `heapUsed` after a full collection, on SIGUSR2) can be read once every Batch is ready.
 * Done when (issue 27): server mode, 3 replicas converge 10k no slower than 1 (time ratio ≤ 1.0), with zero
 * assignment writes, and each replica's peak RSS at 30k is at most 0.5× the single replica's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { freePorts } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { procCpuSeconds, procMemoryMB } from '@kubegen/runtime/internal/testing/loadtest/process-stats.js';
import { batchResource } from '../../examples/fanout/src/generated/fanout.kubegen.io/v1alpha1/register.js';
import { forEachConcurrently } from './concurrently.js';
import { nodeFlagSettings, scaffoldNodeSettings, type NodeSettings } from './sample-controller-run.js';
import { median } from './stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MAIN = path.join(ROOT, 'examples/fanout/dist/main.js');
const CRDS = ['batches', 'tasks'].map((p) => path.join(ROOT, `examples/fanout/config/crd/fanout.kubegen.io_${p}.yaml`));
/** How long a run may take to converge: 10 minutes, or 20 ms per Batch beyond 30,000. */
const timeoutMs = (n: number): number => Math.max(600_000, n * 20);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const GC_ON_SIGNAL = path.join(ROOT, 'dist/bench/support/gc-on-signal.js');

/** How every replica's `node` runs, the same for each run (see the module comment). */
function replicaNodeSettings(): NodeSettings {
  if (!process.env['BENCH_FANOUT_SCAFFOLD']) return nodeFlagSettings((process.env['BENCH_FANOUT_NODE_FLAGS'] ?? '').split(' ').filter(Boolean));
  const scaffold = scaffoldNodeSettings();
  const heapCap = scaffold.flags.filter((f) => f.startsWith('--max-old-space-size'));
  return { ...scaffold, flags: scaffold.flags.filter((f) => !heapCap.includes(f)), label: `${scaffold.label}, without ${heapCap.join(' ')}` };
}
const NODE = replicaNodeSettings();

type Mode = 'server' | 'client' | 'labels';

interface Replica {
  peakRssMB: number;
  /** CPU seconds (user + system) from spawn to convergence. */
  cpuSeconds: number;
  /** V8 `heapUsed` right after a full collection: the live objects. */
  liveHeapMB: number;
  writes: number;
  patches: number;
}

interface Run {
  label: string;
  n: number;
  seconds: number;
  /** Batches carrying a shard label at convergence: the label path's assignment writes (one per Batch at least). */
  labelled: number;
  apiserverCpuSeconds: number;
  replicas: Replica[];
}

async function startEnv(mode: Mode): Promise<Envtest> {
  if (mode === 'labels') return Envtest.start({ crdPaths: CRDS, attachOutput: false });
  // No garbage collector in this process: it would watch every Batch and Task beside the measured replicas.
  return Envtest.start({ profile: 'crd-only', crdPaths: CRDS, attachOutput: false, garbageCollector: false, ...(mode === 'client' ? { apiserverArgs: ['--feature-gates=ShardedListAndWatch=false'] } : {}) });
}

async function createBatches(client: ResourceClient<KubeObject>, n: number, concurrency = 64): Promise<void> {
  await forEachConcurrently(n, concurrency, async (i) => {
    await client.create({ apiVersion: 'fanout.kubegen.io/v1alpha1', kind: 'Batch', metadata: { name: `b-${i}` }, spec: { tasks: 1 } } as KubeObject);
  });
}

/** Resolves when all `n` Batches of `ns` report one ready Task. */
async function convergenceWatcher(env: Envtest, ns: string, n: number): Promise<{ done: Promise<void>; stop(): Promise<void> }> {
  const transport = env.transport();
  const factory = new SharedInformerFactory(transport, { namespace: ns, logger: nullLogger });
  const informer = factory.informerFor(batchResource);
  const ready = new Set<string>();
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const see = (b: KubeObject): void => {
    if ((b as { status?: { readyTasks?: number } }).status?.readyTasks === 1) ready.add(b.metadata!.name!);
    if (ready.size >= n) resolve();
  };
  informer.addEventHandler({ onAdd: see, onUpdate: (_o, b) => see(b) });
  factory.start();
  await factory.waitForCacheSync({ timeoutMs: 60_000 });
  return { done, stop: async () => { await factory.shutdown(); transport.close(); } };
}

async function scrape(port: number): Promise<{ liveHeapMB: number; writes: number; patches: number }> {
  const samples = parsePrometheusText(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  const heap = samples.find((s) => s.name === 'nodejs_heap_size_used_bytes')?.value ?? NaN;
  const requests = samples.filter((s) => s.name === 'rest_client_requests_total');
  const sum = (f: (m: string) => boolean): number => requests.filter((s) => f(s.labels['method'] ?? '')).reduce((a, s) => a + s.value, 0);
  return { liveHeapMB: heap / 1024 / 1024, writes: sum((m) => WRITES.has(m)), patches: sum((m) => m === 'PATCH') };
}

/** One run on a control plane of its own (see the module comment). */
async function measure(mode: Mode, replicas: number, sharded: boolean, n: number, workers: number): Promise<Run> {
  const env = await startEnv(mode);
  try {
    return await measureOn(env, mode, replicas, sharded, n, workers);
  } finally {
    await env.stop();
  }
}

async function measureOn(env: Envtest, mode: Mode, replicas: number, sharded: boolean, n: number, workers: number): Promise<Run> {
  const admin = env.transport();
  const label = sharded ? `${mode} x${replicas}` : `unsharded (${mode === 'labels' ? '1.20' : mode === 'server' ? '1.36 gate on' : '1.36 gate off'})`;
  const ns = mode === 'labels' ? await createTestNamespace(admin, 'bench-fanout') : `bench-fanout-${Math.random().toString(36).slice(2, 8)}`;
  const batches = new ResourceClient<KubeObject>(admin, batchResource, ns);
  const children: ChildProcess[] = [];
  try {
    process.stderr.write(`${label}: creating ${n} Batches in ${ns}...\n`);
    await createBatches(batches, n);
    const watcher = await convergenceWatcher(env, ns, n);
    const ports = await freePorts(replicas);
    const cpu0 = procCpuSeconds(env.apiserverPid!);
    const t0 = performance.now();
    let log = '';
    for (let i = 0; i < replicas; i++) {
      const args = [MAIN, `--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, `--workers=${workers}`, `--metrics-bind-address=127.0.0.1:${ports[i]}`, '--health-probe-bind-address=0', '--log-level=warn'];
      if (sharded) args.push('--sharding', `--identity=replica-${i}`, `--sharding-mode=${mode}`);
      const c = spawn(process.execPath, [...NODE.flags, '--expose-gc', `--import=${GC_ON_SIGNAL}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...NODE.env } });
      c.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
      children.push(c);
    }
    const exits = children.map((c) => new Promise<'exited'>((r) => c.on('exit', () => r('exited'))));
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs(n)).unref());
    const outcome = await Promise.race([watcher.done.then(() => 'done' as const), ...exits, timeout]);
    const seconds = (performance.now() - t0) / 1000;
    await watcher.stop();
    if (outcome !== 'done') throw new Error(`${label}: ${outcome} before every Batch was ready\n${log}`);
    const apiserverCpuSeconds = procCpuSeconds(env.apiserverPid!) - cpu0;
    const peaks = children.map((c) => procMemoryMB(c.pid!).hwmMB);
    const cpus = children.map((c) => procCpuSeconds(c.pid!));
    for (const c of children) c.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 1000));
    const stats = await Promise.all(children.map(async (_c, i) => ({ peakRssMB: peaks[i]!, cpuSeconds: cpus[i]!, ...(await scrape(ports[i]!)) })));
    const labelled = ((await batches.list({ labelSelector: 'shard.kubegen.io/fanout' })).items ?? []).length;
    return { label, n, seconds, labelled, apiserverCpuSeconds, replicas: stats };
  } finally {
    for (const c of children) c.kill('SIGKILL');
    admin.close();
  }
}

/** The highest peak RSS of a run's replicas (MB). */
const peakRss = (r: Run): number => Math.max(...r.replicas.map((x) => x.peakRssMB));
/** The largest live heap of a run's replicas (MB). */
const liveHeap = (r: Run): number => Math.max(...r.replicas.map((x) => x.liveHeapMB));

function row(r: Run, ref: Run | undefined): string {
  const writes = r.replicas.reduce((a, x) => a + x.writes, 0);
  const patches = r.replicas.reduce((a, x) => a + x.patches, 0);
  const rss = peakRss(r);
  const vs = ref ? `  time x${(r.seconds / ref.seconds).toFixed(2)}, peak RSS x${(rss / peakRss(ref)).toFixed(2)}, live heap x${(liveHeap(r) / liveHeap(ref)).toFixed(2)}` : '';
  const cpu = r.replicas.reduce((a, x) => a + x.cpuSeconds, 0);
  return `${r.label.padEnd(26)} ${String(r.n).padStart(6)} ${r.seconds.toFixed(1).padStart(7)} s  apiserver ${r.apiserverCpuSeconds.toFixed(1).padStart(6)} CPU-s  replicas ${cpu.toFixed(1).padStart(6)} CPU-s  writes ${String(writes).padStart(6)} (PATCH ${patches}, Batches labelled ${r.labelled})  per replica peak RSS ${r.replicas.map((x) => x.peakRssMB.toFixed(0)).join('/')} MB (max ${rss.toFixed(0)}), live heap ${r.replicas.map((x) => x.liveHeapMB.toFixed(0)).join('/')} MB${vs}`;
}

/** Runs the part (see the module comment) and prints a row per run and the goals. */
export async function fanoutPart(): Promise<void> {
  const sizes = (process.env['BENCH_FANOUT_SIZES'] ?? '10000,30000').split(',').map(Number);
  const modes = (process.env['BENCH_FANOUT_MODES'] ?? 'server,client,labels').split(',') as Mode[];
  const counts = (process.env['BENCH_FANOUT_REPLICAS'] ?? '1,2,3').split(',').map(Number);
  const workers = Number(process.env['BENCH_FANOUT_WORKERS'] ?? 4);
  console.log(`== fanout: sharded replicas by mode, ${workers} workers per replica (examples/fanout, one Task per Batch); replicas run with ${NODE.label}`);
  const all: Run[] = [];
  for (const mode of modes) {
    for (const n of sizes) {
      let ref: Run | undefined;
      if (process.env['BENCH_FANOUT_REFERENCE'] !== '0') {
        ref = await measure(mode, 1, false, n, workers);
        console.log(row(ref, undefined));
        all.push(ref);
      }
      for (const r of counts) {
        const run = await measure(mode, r, true, n, workers);
        console.log(row(run, ref));
        all.push(run);
      }
    }
  }
  // A count given twice (`BENCH_FANOUT_REPLICAS=3,1,3,1`) is judged by the median of its runs.
  const medianOf = (label: string, n: number, f: (r: Run) => number): number | undefined => {
    const runs = all.filter((r) => r.label.startsWith(label) && r.n === n);
    return runs.length > 0 ? median(runs.map(f)) : undefined;
  };
  /** x3's median over x1's at `n` (two decimals), when both ran. */
  const x3OverX1 = (n: number, f: (r: Run) => number): string | undefined => {
    const x1 = medianOf('server x1', n, f);
    const x3 = medianOf('server x3', n, f);
    return x1 !== undefined && x3 !== undefined ? (x3 / x1).toFixed(2) : undefined;
  };
  const time = x3OverX1(10_000, (r) => r.seconds);
  if (time !== undefined) {
    console.log(`goal: server x3 vs x1 at 10000: time x${time} (≤ 1.00), Batches labelled for assignment ${medianOf('server x3', 10_000, (r) => r.labelled)} (0)`);
  }
  for (const n of sizes) {
    const rss = x3OverX1(n, peakRss);
    if (rss === undefined) continue;
    const goal = n === 30_000;
    console.log(`${goal ? 'goal: ' : ''}server x3 per-replica peak RSS vs x1 at ${n}: x${rss}${goal ? ' (goal at 30000: ≤ 0.50)' : ''}; live heap x${x3OverX1(n, liveHeap)}`);
  }
}
