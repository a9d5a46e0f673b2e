/**
 * `npm run bench:read-your-writes` (issue 28, item 3): a controller that rewrites a Foo's status and reads it back
 * through the manager's (cached) client, 1,000 times, against a real apiserver — envtest, kube-apiserver 1.20 `full`
 * profile with the sample-controller Foo CRD, as bench/scale.bench.ts starts it — once with read-your-writes (the
 * default) and once without (`readYourWrites: { enabled: false }`, controller-runtime 0.19's behaviour), each in a
 * namespace and a manager of its own.
 *
 * Each reconcile of the Foo: reads it from the cache (a *stale start* when its `status.count` is below the last count
 * written), writes `status.count + 1` with the resourceVersion it read (a *conflict* when the apiserver answers 409:
 * the reconcile fails and is retried with backoff), reads it back from the cache (a *stale read* when the count is not
 * the one just written), and asks to be reconciled again at once (`requeueAfterMs: 1`) until 1,000 writes succeeded.
 *
 * Meanwhile `BENCH_RYW_CHURN` other writers (default 4) keep rewriting the spec of 20 other Foos in the same namespace,
 * as a busy cluster does: their watch events share the informer's stream with the controller's own, so the cache
 * lags behind the writes a little, as it does in production (on an idle local apiserver the watch event of a write
 * often arrives before its response). The controller ignores those Foos.
 *
 * Reported per mode: stale reads (of 1,000 read-backs), stale starts, conflicts, wall time, and the read-your-writes
 * waits and fallbacks (`kubegen_read_your_writes_*`). Goal: 0 stale reads and 0 conflicts with read-your-writes.
 * Ends with `read-your-writes: stale reads X/1000 with, Y/1000 without`.
 *
 * Environment: `BENCH_RYW_WRITES` (default 1000), `BENCH_RYW_CHURN` (default 4; 0: none), `KUBEBUILDER_ASSETS`.
 */
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { isConflict } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { FOO } from '../test/integration/support/crds.js';
import { envtestAssets, SAMPLE_CONTROLLER_CRD } from './support/sample-controller-run.js';

const WRITES = Number(process.env['BENCH_RYW_WRITES'] ?? 1000);
const CHURN = Number(process.env['BENCH_RYW_CHURN'] ?? 4);
const CHURN_FOOS = 20;
const DEADLINE_MS = 600_000;

interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
  status?: { availableReplicas?: number };
}

interface Figures {
  mode: 'with' | 'without';
  staleReads: number;
  staleStarts: number;
  conflicts: number;
  writes: number;
  seconds: number;
  waits: number;
  fallbacks: number;
}

/** The count this bench keeps in the Foo's status (the CRD's schema has `status.availableReplicas`). */
const countOf = (foo: Foo): number => foo.status?.availableReplicas ?? 0;

async function sum(registry: Registry, name: string): Promise<number> {
  const m = registry.getSingleMetric(name);
  return m ? (await m.get()).values.reduce((s, v) => s + v.value, 0) : 0;
}

async function runMode(env: Envtest, mode: 'with' | 'without'): Promise<Figures> {
  const admin = env.transport({ timeoutMs: 60_000 });
  const ns = await createTestNamespace(admin, `ryw-${mode}`);
  const foos = new ResourceClient<Foo>(admin, FOO, ns);
  await foos.create({ metadata: { name: 'foo' }, spec: { deploymentName: 'foo', replicas: 1 } });
  if (CHURN > 0) for (let i = 0; i < CHURN_FOOS; i++) await foos.create({ metadata: { name: `churn-${i}` }, spec: { deploymentName: `churn-${i}`, replicas: 1 } });
  const registry = new Registry();
  const mgr = new Manager({
    transport: env.transport({ timeoutMs: 60_000 }),
    namespace: ns,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: nullLogger,
    registry,
    readYourWrites: { enabled: mode === 'with' },
  });
  const f: Figures = { mode, staleReads: 0, staleStarts: 0, conflicts: 0, writes: 0, seconds: 0, waits: 0, fallbacks: 0 };
  let lastWritten = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  controllerFor(mgr, FOO).complete(async (req) => {
    if (f.writes >= WRITES || req.name !== 'foo') return;
    const client = mgr.getClient().resource<Foo>(FOO, req.namespace);
    const current = await client.get(req.name);
    if (countOf(current) < lastWritten) f.staleStarts++;
    let written: Foo;
    try {
      written = await client.updateStatus({ ...current, status: { ...current.status, availableReplicas: countOf(current) + 1 } });
    } catch (err) {
      if (isConflict(err)) f.conflicts++;
      throw err;
    }
    lastWritten = countOf(written);
    f.writes++;
    const back = await client.get(req.name);
    if (countOf(back) !== lastWritten) f.staleReads++;
    if (f.writes >= WRITES) {
      finished();
      return;
    }
    return { requeueAfterMs: 1 };
  });
  const stop = new AbortController();
  const t0 = performance.now();
  const run = mgr.start(stop.signal);
  // Other writers in the namespace: merge patches of other Foos' spec, one at a time per writer, until the end.
  const churn = Array.from({ length: CHURN }, async (_, w) => {
    for (let n = 0; !stop.signal.aborted; n++) {
      const name = `churn-${(w + n * CHURN) % CHURN_FOOS}`;
      await foos.patch(name, { type: 'merge', patch: { spec: { replicas: 1 + (n % 10) } } }).catch(() => undefined);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      done,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${mode}: ${f.writes}/${WRITES} writes after ${DEADLINE_MS / 1000} s`)), DEADLINE_MS))),
      run.then(() => Promise.reject(new Error(`${mode}: the manager stopped`))),
    ]);
  } finally {
    clearTimeout(timer);
    f.seconds = (performance.now() - t0) / 1000;
    stop.abort();
    await Promise.all([run.catch(() => undefined), ...churn]);
  }
  f.waits = await sum(registry, 'kubegen_read_your_writes_waits_total');
  f.fallbacks = await sum(registry, 'kubegen_read_your_writes_fallbacks_total');
  return f;
}

async function main(): Promise<void> {
  const t = performance.now();
  const env = await Envtest.start({ assetsDir: envtestAssets(), crdPaths: [SAMPLE_CONTROLLER_CRD], attachOutput: false });
  console.log(`envtest (kube-apiserver 1.20, full profile) up in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const results: Figures[] = [];
  try {
    // Without first, then with: neither gets a warmer apiserver than the other in a way that favours read-your-writes.
    for (const mode of ['without', 'with'] as const) {
      const f = await runMode(env, mode);
      results.push(f);
      console.log(
        `${mode.padEnd(7)} read-your-writes: ${f.writes} status writes in ${f.seconds.toFixed(1)} s; stale reads ${f.staleReads}/${f.writes}, ` +
          `stale starts ${f.staleStarts}, conflicts ${f.conflicts}; waits ${f.waits}, fallbacks to the API ${f.fallbacks}`,
      );
    }
  } finally {
    await env.stop();
  }
  const withRyw = results.find((r) => r.mode === 'with')!;
  const without = results.find((r) => r.mode === 'without')!;
  const met = withRyw.staleReads === 0 && withRyw.conflicts === 0;
  console.log(`goal (0 stale reads and 0 conflicts with read-your-writes): ${met ? 'MET' : 'MISSED'}`);
  console.log(`read-your-writes: stale reads ${withRyw.staleReads}/${WRITES} with, ${without.staleReads}/${WRITES} without`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
