/**
 * Shared informer sync, kubegen against client-go, every figure measured in the same run (`bench:informer` part 1
 * and `bench:scale` part 3): on one namespace of N Foos, each implementation syncs one informer in a fresh process,
 * `runs` rounds with the order alternating, and the medians are printed with the spread of the sync time.
 *   kubegen    bench/support/informer-sync.js (SharedIndexInformer, list + watch: 1.20 has no WatchList), Node with
 *              its default flags plus --expose-gc (and the variant's flags or transform);
 *   client-go  `informerbench` (packages/runtime/hack/informerbench/main.go, built by hack/setup-envtest.sh): the
 *              sample-controller's generated Foo informer factory, resync 0.
 * Each reports sync seconds (start to synced), heap after a full GC (V8 `heapUsed`; Go `HeapAlloc`), RSS after sync
 * and peak RSS (VmHWM).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import type { SyncResult } from './informer-sync.js';
import { alternate, median, spread } from './stats.js';

const run = promisify(execFile);
const CHILD = path.join(import.meta.dirname, 'informer-sync.js');

/** One sync's figures, or the medians of several. */
export interface SyncFigures {
  seconds: number;
  /** Heap after a full GC: V8 heapUsed / Go HeapAlloc. */
  heapMB: number;
  rssMB: number;
  peakRssMB: number;
}

/** One implementation in the comparison: its label and how to run one sync in a fresh process. */
export interface SyncImpl {
  label: string;
  sync: (env: Envtest, ns: string, n: number) => Promise<SyncFigures>;
}

/** kubegen's informer in a fresh `node` (with `nodeFlags`; `strip`: the `stripManagedFields()` transform). */
export function kubegenImpl(label: string, opts: { nodeFlags?: string[]; strip?: boolean } = {}): SyncImpl {
  return {
    label,
    sync: async (env, ns, n) => {
      const args = [...(opts.nodeFlags ?? []), CHILD, env.kubeconfigPath, ns, String(n), 'list-watch', 'typed', ...(opts.strip ? ['strip'] : [])];
      const { stdout } = await run(process.execPath, ['--expose-gc', '--conditions=kubegen-internal', ...args], { maxBuffer: 1 << 20, timeout: 600_000 });
      const r = JSON.parse(stdout.trim().split('\n').pop()!) as SyncResult;
      if (r.errors.length > 0) console.log(`        (${label}: the informer recovered from ${r.errors.length} error(s): ${r.errors.join('; ')})`);
      return { seconds: r.seconds, heapMB: r.heapUsedMB, rssMB: r.rssMB, peakRssMB: r.peakRssMB };
    },
  };
}

interface InformerbenchResult {
  seconds: number;
  objects: number;
  heapAllocMB: number;
  rssMB: number;
  peakRssMB: number;
}

/** client-go's informer: the `informerbench` binary (see the module comment). */
export function clientGoImpl(binary: string): SyncImpl {
  return {
    label: 'client-go',
    sync: async (env, ns, n) => {
      const { stdout } = await run(binary, ['-kubeconfig', env.kubeconfigPath, '-namespace', ns], { maxBuffer: 1 << 20, timeout: 600_000 });
      const r = JSON.parse(stdout.trim().split('\n').pop()!) as InformerbenchResult;
      if (r.objects !== n) throw new Error(`informerbench synced ${r.objects} objects, expected ${n}`);
      return { seconds: r.seconds, heapMB: r.heapAllocMB, rssMB: r.rssMB, peakRssMB: r.peakRssMB };
    },
  };
}

/** The header of the rows `compareInformerSync` prints. */
export const SYNC_HEADER = '   Foos  impl                 sync s  [min–max]       heap MB  RSS MB  peak RSS MB';

/**
 * Syncs `n` Foos of `ns` with every implementation, `runs` rounds alternating, prints one row of medians each
 * (after {@link SYNC_HEADER}) and returns the medians by label.
 */
export async function compareInformerSync(env: Envtest, ns: string, n: number, impls: readonly SyncImpl[], runs: number): Promise<Map<string, SyncFigures>> {
  const results = new Map<string, SyncFigures[]>(impls.map((i) => [i.label, []]));
  for (let i = 0; i < runs; i++) {
    for (const impl of alternate(impls, i)) results.get(impl.label)!.push(await impl.sync(env, ns, n));
  }
  const out = new Map<string, SyncFigures>();
  for (const { label } of impls) {
    const xs = results.get(label)!;
    const m = (f: (x: SyncFigures) => number): number => median(xs.map(f));
    const med: SyncFigures = { seconds: m((x) => x.seconds), heapMB: m((x) => x.heapMB), rssMB: m((x) => x.rssMB), peakRssMB: m((x) => x.peakRssMB) };
    console.log(
      `${String(n).padStart(7)}  ${label.padEnd(17)}  ${med.seconds.toFixed(3).padStart(7)} ${spread(xs.map((x) => x.seconds), 2).padEnd(13)}  ` +
        `${med.heapMB.toFixed(1).padStart(7)}  ${med.rssMB.toFixed(0).padStart(7)}  ${med.peakRssMB.toFixed(0).padStart(8)}`,
    );
    out.set(label, med);
  }
  return out;
}
