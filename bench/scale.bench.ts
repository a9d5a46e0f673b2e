/**
 * `npm run bench:scale` (issue 14): kubegen against client-go at 10,000, 50,000 and 100,000 objects, in one fresh
 * envtest (kube-apiserver 1.20, `full` profile), every figure measured in the same run:
 *
 * 1. sample-controller, 1,000 Foos: the TypeScript one (default HTTP engine) vs the Go one unthrottled
 *    (`sample-controller-fast`): convergence seconds, CPU seconds, peak RSS, medians of `BENCH_SCALE_RUNS` alternating
 *    rounds (bench/support/sample-controller-compare.ts, as `bench:sample-controller`, which also compares engines).
 *    Runs first, on an empty cluster: the Go controller watches every namespace.
 * 2. Sharded vs unsharded convergence and per-replica RSS with 1, 2 and 3 replicas (`--sharding`, see
 *    `shardingPart`).
 * 3. Shared informer sync, for each size N: N Foos created in a namespace of their own (parallel requests), then,
 *    alternating which goes first, a fresh process syncing one informer on that namespace:
 *      kubegen    bench/support/informer-sync.js (SharedIndexInformer, list + watch: 1.20 has no WatchList), Node with
 *                 its default flags plus --expose-gc;
 *      client-go  `informerbench` (packages/runtime/hack/informerbench/main.go, built by hack/setup-envtest.sh): the
 *                 sample-controller's generated Foo informer factory, resync 0.
 *    Each reports sync seconds (start to synced), heap after a full GC (V8 `heapUsed`; Go `HeapAlloc`), RSS after
 *    sync and peak RSS (VmHWM). Medians of `BENCH_SCALE_RUNS` runs (default 3 at every size) are printed with the
 *    spread, then the ratios kubegen/client-go and the goals at 100,000: sync time ≤ 1.0x, RSS ≤ 1.5x.
 *    For information, kubegen also runs with `BENCH_SCALE_VARIANT_FLAGS` (default `--max-semi-space-size=16`; empty
 *    to skip): right after a big sync V8's young generation is grown to its maximum (128 MB committed, empty),
 *    which a capped semi-space avoids; the goals are judged on the default flags.
 *
 * 4. Sharding modes with the fanout example (issue 27): server-side shard selectors, client-side ranges and labels,
 *    1-3 replicas at 10k and 30k Batches, against one unsharded replica (bench/support/fanout-run.ts).
 *
 * Environment: `BENCH_SCALE_SIZES` (default `10000,50000,100000`), `BENCH_SCALE_RUNS`, `BENCH_SCALE_CONCURRENCY`
 * (parallel creates, default 64), `BENCH_SCALE_PARTS` (default `sample-controller,sharding,informer,fanout`),
 * `BENCH_SCALE_WORKERS` (sample-controller workers, default 2), `BENCH_SCALE_VARIANT_FLAGS`, `KUBEBUILDER_ASSETS`.
 * Timings on a shared machine are noisy: the apiserver, etcd and the measured process share its cores.
 */
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { fanoutPart } from './support/fanout-run.js';
import { createFoos } from './support/foos.js';
import { clientGoImpl, compareInformerSync, kubegenImpl, SYNC_HEADER, type SyncFigures } from './support/informer-compare.js';
import { compareSampleControllers } from './support/sample-controller-compare.js';
import {
  controllerRow,
  envtestAssets,
  envtestBinary,
  measureController,
  requireSampleControllerBuilt,
  SAMPLE_CONTROLLER_CRD,
  spawnKubegenController,
  type ControllerResult,
} from './support/sample-controller-run.js';

const SIZES = (process.env['BENCH_SCALE_SIZES'] ?? '10000,50000,100000').split(',').map(Number);
const RUNS = Number(process.env['BENCH_SCALE_RUNS'] ?? 3);
const CONCURRENCY = Number(process.env['BENCH_SCALE_CONCURRENCY'] ?? 64);
const PARTS = (process.env['BENCH_SCALE_PARTS'] ?? 'sample-controller,sharding,informer,fanout').split(',');
const WORKERS = Number(process.env['BENCH_SCALE_WORKERS'] ?? 2);
/** Node flags of the informational kubegen variant (none: no variant). */
const VARIANT_FLAGS = (process.env['BENCH_SCALE_VARIANT_FLAGS'] ?? '--max-semi-space-size=16').split(' ').filter(Boolean);
/** The size the goals apply to (issue 14). */
const GOAL_SIZE = 100_000;
const GOAL = { timeRatio: 1.0, rssRatio: 1.5 };

// ---------------------------------------------------------------------------------------------------------------
// Part 1: sample-controller per 1,000 Foos

async function sampleControllerPart(env: Envtest): Promise<void> {
  console.log('== sample-controller, 1,000 Foos: TypeScript vs Go (sample-controller-fast, unthrottled)');
  await compareSampleControllers(env, 1000, WORKERS, envtestBinary('sample-controller-fast'), { runs: RUNS });
}

// ---------------------------------------------------------------------------------------------------------------
// Part 2: sharded vs unsharded
//
// The same Foos converged by one unsharded sample-controller, then by 1, 2 and 3 replicas with `--sharding` (distinct
// `--identity`, shard Leases in the run's namespace, so runs do not see each other's shards). Convergence includes
// the shard Leases being taken and the sharder labelling every Foo. `BENCH_SCALE_SHARDING_FOOS` (default 10,000).

async function shardingPart(env: Envtest): Promise<void> {
  console.log('== sharded vs unsharded sample-controller: convergence and per-replica RSS, 1, 2 and 3 replicas');
  const n = Number(process.env['BENCH_SCALE_SHARDING_FOOS'] ?? 10_000);
  const results: ControllerResult[] = [await measureController('unsharded', env, n, (ns) => spawnKubegenController(env, ns, WORKERS))];
  for (const replicas of [1, 2, 3]) {
    results.push(
      await measureController(`sharded-${replicas}`, env, n, (ns) =>
        Array.from({ length: replicas }, (_, i) => spawnKubegenController(env, ns, WORKERS, ['--sharding', `--identity=replica-${i}`, `--sharding-namespace=${ns}`])),
      ),
    );
  }
  console.log(`${n} Foos, ${WORKERS} workers per replica`);
  for (const r of results) {
    console.log(`${controllerRow(r)}  per replica: ${r.replicas.map((x) => `${x.peakRssMB.toFixed(0)} MB / ${x.cpuSeconds.toFixed(1)} CPU-s`).join(', ')}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Part 3: shared informer sync at scale, kubegen vs client-go (bench/support/informer-compare.ts)

async function informerPart(env: Envtest): Promise<void> {
  const binary = envtestBinary('informerbench');
  console.log(
    `== shared informer sync: kubegen (SharedIndexInformer, list+watch, Node ${process.version}) vs client-go (informerbench, ` +
      `sample-controller's Foo informer); fresh process each, medians of ${RUNS} run(s), order alternating`,
  );
  const admin = env.transport();
  const summary: { n: number; kubegen: SyncFigures; variant: SyncFigures | undefined; clientGo: SyncFigures }[] = [];
  try {
    for (const n of SIZES) {
      const ns = await createTestNamespace(admin, `scale-${n}`);
      const t = performance.now();
      await createFoos(admin, ns, n, CONCURRENCY);
      const s = (performance.now() - t) / 1000;
      console.log(`created ${n} Foos in ${s.toFixed(1)} s (${CONCURRENCY} in parallel, ${(n / s).toFixed(0)}/s)`);
      const impls = [kubegenImpl('kubegen'), ...(VARIANT_FLAGS.length > 0 ? [kubegenImpl('kubegen*', { nodeFlags: VARIANT_FLAGS })] : []), clientGoImpl(binary)];
      console.log(SYNC_HEADER);
      const m = await compareInformerSync(env, ns, n, impls, RUNS);
      const variant = m.get('kubegen*');
      summary.push({ n, kubegen: m.get('kubegen')!, variant, clientGo: m.get('client-go')! });
      if (variant) console.log(`         (kubegen*: node ${VARIANT_FLAGS.join(' ')}, for information)`);
    }
  } finally {
    admin.close();
  }
  console.log('ratios kubegen/client-go (medians):');
  for (const { n, kubegen, variant, clientGo } of summary) {
    const time = kubegen.seconds / clientGo.seconds;
    const rss = kubegen.rssMB / clientGo.rssMB;
    const goal = n === GOAL_SIZE;
    console.log(
      `${String(n).padStart(7)}  sync time x${time.toFixed(2)}${goal ? ` (goal <= ${GOAL.timeRatio.toFixed(1)}: ${time <= GOAL.timeRatio ? 'met' : 'NOT met'})` : ''}, ` +
        `RSS x${rss.toFixed(2)}${goal ? ` (goal <= ${GOAL.rssRatio}: ${rss <= GOAL.rssRatio ? 'met' : 'NOT met'})` : ''}, ` +
        `peak RSS x${(kubegen.peakRssMB / clientGo.peakRssMB).toFixed(2)}, heap x${(kubegen.heapMB / clientGo.heapMB).toFixed(2)}`,
    );
    if (variant) {
      console.log(
        `         kubegen* (${VARIANT_FLAGS.join(' ')}): sync time x${(variant.seconds / clientGo.seconds).toFixed(2)}, ` +
          `RSS x${(variant.rssMB / clientGo.rssMB).toFixed(2)}, peak RSS x${(variant.peakRssMB / clientGo.peakRssMB).toFixed(2)}`,
      );
    }
  }
  if (!summary.some((s) => s.n === GOAL_SIZE)) console.log(`(the goals apply at ${GOAL_SIZE} Foos, not measured in this run)`);
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (PARTS.includes('sample-controller') || PARTS.includes('sharding')) requireSampleControllerBuilt();
  if (PARTS.some((p) => p !== 'fanout')) {
    const assets = envtestAssets();
    const t = performance.now();
    const env = await Envtest.start({ assetsDir: assets, crdPaths: [SAMPLE_CONTROLLER_CRD], attachOutput: false });
    console.log(`envtest (kube-apiserver 1.20) up in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    try {
      if (PARTS.includes('sample-controller')) await sampleControllerPart(env);
      if (PARTS.includes('sharding')) await shardingPart(env);
      if (PARTS.includes('informer')) await informerPart(env);
    } finally {
      await env.stop();
    }
  }
  // Control planes of its own (1.36 with the gate on and off, 1.20), one at a time.
  if (PARTS.includes('fanout')) await fanoutPart();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
