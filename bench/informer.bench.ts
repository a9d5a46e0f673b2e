/**
 * `npm run bench:informer`: time and memory for a shared informer to sync 10,000 and 50,000 Foos from a fresh
 * envtest control plane (Foos created beforehand with parallel requests, each size in its own namespace).
 *
 * Part 1, kube-apiserver 1.20 (`full` profile, list + watch), per size: kubegen's informer, the same with the
 * `stripManagedFields()` transform, and client-go's (`informerbench`, built by hack/setup-envtest.sh), each syncing
 * in a fresh process, `BENCH_INFORMER_RUNS` rounds with the order alternating, medians
 * (bench/support/informer-compare.ts, shared with `bench:scale` part 3, which goes on to 100,000):
 *   sync time   from start to synced (one list, decode, store + namespace index);
 *   heap        after a full GC with the informer alive (V8 `heapUsed`, Go `HeapAlloc`); RSS after sync; peak RSS.
 * Goal (issue 3), judged against client-go's medians of the same run: within 1.5x of its sync time and at most twice
 * its heap, and no worse than linear growth from 10,000 to 50,000. Then (10,000 only) the dynamic-informer row: the
 * typed and the dynamic informer each synced in fresh processes, alternating, medians, goal (issue 24): within 1.1x
 * of the typed informer's time and heap.
 *
 * Part 2, the CRD apiserver 1.36 (`crd-only` profile), both ways of getting the state (issue 12): WatchList and
 * list + watch, each sync in a fresh informer process against a freshly restarted apiserver (watch cache warmed by a
 * one-object list first): sync time, the informer process's heap growth, RSS after sync and peak RSS, and the
 * apiserver's RSS before, at its peak during the sync (`/proc/<pid>/status` sampled every 20 ms) and the growth.
 * Each is the median of `BENCH_INFORMER_RUNS` (default 3) runs per mode, the order of the modes alternating; the
 * apiserver's peak depends on when its garbage collector runs, hence the spread printed beside it.
 * Skipped with a note when the 1.36 binaries are not installed (`npx kubegen-setup-envtest-1.36`).
 *
 * `BENCH_INFORMER_SIZES` (default `10000,50000`) and `BENCH_INFORMER_PROFILES` (default `full,crd-only`) narrow it.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { isTooManyRequests } from '@kubegen/runtime/internal/client/errors.js';
import type { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, Transport } from '@kubegen/runtime/internal/client/types.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { findAssets } from '@kubegen/runtime/internal/testing/envtest/envtest-assets.js';
import { createTestNamespace, testNamespaceName } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import type { SyncResult } from './support/informer-sync.js';
import { FOO } from '../test/integration/support/crds.js';
import { procMemory, sampleRss } from './support/proc-memory.js';
import { forEachConcurrently } from './support/concurrently.js';
import { clientGoImpl, compareInformerSync, kubegenImpl, SYNC_HEADER, type SyncFigures } from './support/informer-compare.js';
import { envtestBinary } from './support/sample-controller-run.js';
import { alternate, median, spread } from './support/stats.js';

interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
}

const FOO_CRD = path.resolve(import.meta.dirname, '../../fixtures/crds/sample-controller/crd-status-subresource.yaml');
const SIZES = (process.env['BENCH_INFORMER_SIZES'] ?? '10000,50000').split(',').map(Number);
const PROFILES = (process.env['BENCH_INFORMER_PROFILES'] ?? 'full,crd-only').split(',');
/** Rounds per comparison (every implementation or mode once per round, the order alternating); medians reported. */
const RUNS = Number(process.env['BENCH_INFORMER_RUNS'] ?? 3);
const PARALLEL = 64;

async function createFoos(transport: Transport, ns: string, n: number): Promise<void> {
  const client = new ResourceClient<Foo>(transport, FOO, ns);
  await forEachConcurrently(n, PARALLEL, async (i) => {
    await client.create({
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: { name: `foo-${i}`, namespace: ns, labels: { app: 'bench', shard: String(i % 16) } },
      spec: { deploymentName: `foo-${i}-deployment`, replicas: 1 + (i % 3) },
    });
  });
}

/** Issue 3's goal: kubegen's informer within these factors of client-go's sync time and heap, measured in this run. */
const GOAL = { timeFactor: 1.5, heapFactor: 2 };

/**
 * Part 1: for each size, kubegen's informer (without and with `stripManagedFields()`) and client-go's (`informerbench`)
 * each sync the Foos in fresh processes, `RUNS` rounds alternating (bench/support/informer-compare.ts, as
 * `bench:scale` part 3); the goals are judged against client-go's medians of this run.
 */
async function fullProfile(): Promise<void> {
  console.log(
    `== kube-apiserver 1.20 (envtest full): kubegen vs client-go (informerbench), each sync in a fresh process, ` +
      `medians of ${RUNS} rounds, order alternating`,
  );
  const binary = envtestBinary('informerbench');
  const t = performance.now();
  const env = await Envtest.start({ crdPaths: [FOO_CRD] });
  console.log(`envtest up in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const transport = env.transport();
  const kubegen: { n: number; figures: SyncFigures }[] = [];
  try {
    for (const n of SIZES) {
      const ns = await createTestNamespace(transport, `bench-${n}`);
      const tc = performance.now();
      await createFoos(transport, ns, n);
      console.log(`created ${n} Foos in ${((performance.now() - tc) / 1000).toFixed(1)} s (${PARALLEL} in parallel)`);
      console.log(SYNC_HEADER);
      const m = await compareInformerSync(env, ns, n, [kubegenImpl('kubegen'), kubegenImpl('kubegen strip', { strip: true }), clientGoImpl(binary)], RUNS);
      const clientGo = m.get('client-go')!;
      for (const label of ['kubegen', 'kubegen strip']) {
        const k = m.get(label)!;
        const time = k.seconds / clientGo.seconds;
        const heap = k.heapMB / clientGo.heapMB;
        console.log(
          `        ${label} vs client-go: time x${time.toFixed(2)} (goal <= x${GOAL.timeFactor}), heap x${heap.toFixed(2)} (goal <= x${GOAL.heapFactor}), ` +
            `RSS x${(k.rssMB / clientGo.rssMB).toFixed(2)} → ${time <= GOAL.timeFactor ? 'time OK' : 'time MISSED'}, ${heap <= GOAL.heapFactor ? 'heap OK' : 'heap MISSED'}`,
        );
      }
      kubegen.push({ n, figures: m.get('kubegen')! });
      if (n === 10_000) await dynamicVsTyped(env, ns, n);
    }
    const [small, big] = kubegen;
    if (small && big && big.n > small.n) {
      const k = big.n / small.n;
      const time = big.figures.seconds / small.figures.seconds;
      const heap = big.figures.heapMB / small.figures.heapMB;
      console.log(
        `growth ${small.n} → ${big.n} (x${k}): time x${time.toFixed(2)}, heap x${heap.toFixed(2)} ` +
          `(linear = x${k}; ${time <= k * 1.2 && heap <= k * 1.2 ? 'OK' : 'worse than linear'})`,
      );
    }
  } finally {
    transport.close();
    await env.stop();
  }
}

const run = promisify(execFile);
const CHILD = path.join(import.meta.dirname, 'support', 'informer-sync.js');

/** Issue 24's goal for the dynamic informer: within this factor of the typed informer's sync time and heap. */
const DYNAMIC_GOAL = 1.1;

/**
 * The dynamic-informer row: the same Foos synced by a typed informer (`ResourceClient`) and a dynamic one (the
 * dynamic client, `Unstructured`), each in a fresh process, list + watch (1.20), alternating, `RUNS` times each;
 * medians and their ratio against the goal.
 */
async function dynamicVsTyped(env: Envtest, ns: string, n: number): Promise<void> {
  const runs: Record<'typed' | 'dynamic', SyncResult[]> = { typed: [], dynamic: [] };
  for (let i = 0; i < Math.max(RUNS, 3); i++) {
    for (const kind of alternate(['typed', 'dynamic'] as const, i)) {
      const { stdout } = await run(process.execPath, ['--expose-gc', '--conditions=kubegen-internal', CHILD, env.kubeconfigPath, ns, String(n), 'list-watch', kind], { maxBuffer: 1 << 20 });
      runs[kind].push(JSON.parse(stdout.trim().split('\n').pop()!) as SyncResult);
    }
  }
  const m = (kind: 'typed' | 'dynamic', f: (r: SyncResult) => number): number => median(runs[kind].map(f));
  for (const kind of ['typed', 'dynamic'] as const) {
    console.log(`${String(n).padStart(6)} Foos ${kind.padEnd(8)} informer (own process, median of ${runs[kind].length}): sync ${m(kind, (r) => r.seconds).toFixed(3)} s  heap +${m(kind, (r) => r.heapMB).toFixed(1)} MB  RSS ${m(kind, (r) => r.rssMB).toFixed(0)} MB`);
  }
  const time = m('dynamic', (r) => r.seconds) / m('typed', (r) => r.seconds);
  const heap = m('dynamic', (r) => r.heapMB) / m('typed', (r) => r.heapMB);
  const ok = time <= DYNAMIC_GOAL && heap <= DYNAMIC_GOAL;
  console.log(`        dynamic vs typed: time x${time.toFixed(2)}, heap x${heap.toFixed(2)} (goal <= x${DYNAMIC_GOAL}, measured in this run) → ${ok ? 'OK' : 'MISSED'}`);
}

/**
 * Kills and restarts the apiserver and waits until its Foo watch cache is ready: until then it answers watches with
 * 429 "storage is (re)initializing" (and serves lists from etcd). The probe is a WatchList that selects nothing.
 * Returns a new admin transport.
 */
async function freshApiserver(env: Envtest, ns: string): Promise<HttpTransport> {
  await env.stopApiServer({ kill: true });
  await env.startApiServer();
  const transport = env.transport();
  const client = new ResourceClient<Foo>(transport, FOO, ns);
  for (;;) {
    try {
      const w = await client.watch({ labelSelector: 'bench-probe=none', sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
      for await (const e of w) if (e.type === 'BOOKMARK') break;
      w.stop();
      break;
    } catch (err) {
      if (!isTooManyRequests(err)) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  await new Promise((r) => setTimeout(r, 3000)); // let the start-up garbage be collected
  return transport;
}

interface ModeResult extends SyncResult {
  mode: 'watch-list' | 'list-watch';
  n: number;
  apiBeforeMB: number;
  apiPeakMB: number;
}

async function measureMode(env: Envtest, ns: string, n: number, mode: ModeResult['mode']): Promise<ModeResult> {
  const admin = await freshApiserver(env, ns);
  const pid = env.apiserverPid!;
  const apiBeforeMB = procMemory(pid)?.rssMB ?? NaN;
  const sampler = sampleRss(pid);
  let apiPeakMB = NaN;
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, ['--expose-gc', '--conditions=kubegen-internal', CHILD, env.kubeconfigPath, ns, String(n), mode], { maxBuffer: 1 << 20 }));
  } finally {
    apiPeakMB = sampler.stop();
    admin.close();
  }
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as SyncResult;
  if (r.errors.length > 0) console.log(`        (${mode}: the informer recovered from ${r.errors.length} error(s): ${r.errors.join('; ')})`);
  if (mode === 'watch-list' && (r.lists !== 0 || r.watchLists !== 1)) throw new Error(`WatchList sync made ${r.lists} lists, ${r.watchLists} WatchList requests`);
  if (mode === 'list-watch' && (r.lists !== 1 || r.watchLists !== 0)) throw new Error(`list+watch sync made ${r.lists} lists, ${r.watchLists} WatchList requests`);
  return { ...r, mode, n, apiBeforeMB, apiPeakMB };
}


/** The medians of a mode's runs (each metric on its own), with the spread of sync time and apiserver growth. */
function reportMode(runs: ModeResult[]): { seconds: number; peakRssMB: number; apiGrowthMB: number } {
  const r = runs[0]!;
  const m = (f: (x: ModeResult) => number): number => median(runs.map(f));
  const range = (f: (x: ModeResult) => number, digits: number): string => (runs.length > 1 ? ` ${spread(runs.map(f), digits)}` : '');
  const growth = (x: ModeResult): number => x.apiPeakMB - x.apiBeforeMB;
  const label = r.mode === 'watch-list' ? 'WatchList  ' : 'list+watch ';
  console.log(
    `${String(r.n).padStart(6)} Foos ${label} sync ${m((x) => x.seconds).toFixed(3)} s${range((x) => x.seconds, 2)}  informer: heap ` +
      `+${m((x) => x.heapMB).toFixed(1)} MB, RSS ${m((x) => x.rssMB).toFixed(0)} MB (peak ${m((x) => x.peakRssMB).toFixed(0)} MB)  ` +
      `apiserver RSS: ${m((x) => x.apiBeforeMB).toFixed(0)} → peak ${m((x) => x.apiPeakMB).toFixed(0)} MB ` +
      `(+${m(growth).toFixed(0)} MB${range(growth, 0)})`,
  );
  return { seconds: m((x) => x.seconds), peakRssMB: m((x) => x.peakRssMB), apiGrowthMB: m(growth) };
}

async function crdOnlyProfile(): Promise<void> {
  console.log(
    `== CRD apiserver 1.36 (envtest crd-only): WatchList vs list+watch, each sync in its own informer process against a ` +
      `restarted apiserver; medians of ${RUNS} runs [min–max]`,
  );
  try {
    findAssets(undefined, 'crd-only');
  } catch (err) {
    console.log(`skipped: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const t = performance.now();
  // No garbage collector: it would cache every Foo's metadata in this process, whose heap and RSS are measured.
  const env = await Envtest.start({ profile: 'crd-only', crdPaths: [FOO_CRD], garbageCollector: false });
  console.log(`envtest up in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  try {
    for (const n of SIZES) {
      const ns = testNamespaceName(`bench-${n}`);
      const transport = env.transport();
      const tc = performance.now();
      await createFoos(transport, ns, n);
      transport.close();
      console.log(`created ${n} Foos in ${((performance.now() - tc) / 1000).toFixed(1)} s (${PARALLEL} in parallel)`);
      const runs: Record<ModeResult['mode'], ModeResult[]> = { 'watch-list': [], 'list-watch': [] };
      for (let i = 0; i < RUNS; i++) {
        for (const mode of alternate(['watch-list', 'list-watch'] as const, i)) runs[mode].push(await measureMode(env, ns, n, mode));
      }
      const wl = reportMode(runs['watch-list']);
      const lw = reportMode(runs['list-watch']);
      console.log(
        `        WatchList vs list+watch: time x${(wl.seconds / lw.seconds).toFixed(2)}, informer peak RSS x${(wl.peakRssMB / lw.peakRssMB).toFixed(2)}, ` +
          `apiserver growth ${wl.apiGrowthMB.toFixed(0)} MB vs ${lw.apiGrowthMB.toFixed(0)} MB`,
      );
    }
  } finally {
    await env.stop();
  }
}

async function main(): Promise<void> {
  if (PROFILES.includes('full')) await fullProfile();
  if (PROFILES.includes('crd-only')) await crdOnlyProfile();
}

await main();
