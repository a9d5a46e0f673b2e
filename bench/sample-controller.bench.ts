/**
 * `npm run bench:sample-controller [-- --foos=N --workers=W]`: a fresh envtest; for each controller — ours
 * (`examples/sample-controller/dist/main.js`) and the Go original unthrottled (`sample-controller-fast`, `SC_WORKERS`
 * workers) — N Foos (default 1,000) are created in a fresh namespace before the controller starts, then the bench
 * measures seconds from spawning the controller until every Foo has its Deployment (seen by a watch), the
 * controller's CPU seconds (`/proc/<pid>/stat` utime + stime) and peak RSS (`/proc/<pid>/status` VmHWM) at that
 * moment. Between the two runs the first namespace's Foos and Deployments are deleted, so the Go controller (which
 * watches every namespace) only sees its own. Prints both and the ratios. Goal (issue 4): time ratio ≤ 1.0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { KubeInformers } from '@kubegen/runtime/internal/builtin/informers.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import type { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { Clientset } from '../examples/sample-controller/src/generated/clientset.js';
import { procCpuSeconds, procPeakRssMB } from '../test/support/proc.js';
import { createFoos } from './support/foos.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'examples/sample-controller/dist/main.js');
const CRD = path.join(ROOT, 'examples/sample-controller/artifacts/crd.yaml');
const TIMEOUT_MS = 300_000;

interface Result {
  name: string;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
}


/** Resolves when `n` distinct Deployments have been added in `ns` (watched from before the controller starts). */
async function deploymentsWatcher(transport: HttpTransport, ns: string, n: number): Promise<{ done: Promise<void>; stop: () => Promise<void> }> {
  const factory = new SharedInformerFactory(transport, { namespace: ns, logger: nullLogger });
  const { informer } = new KubeInformers(factory).appsV1.deployments();
  const seen = new Set<string>();
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  informer.addEventHandler({
    onAdd: (d) => {
      seen.add(d.metadata!.name!);
      if (seen.size >= n) resolve();
    },
  });
  factory.start();
  await factory.waitForCacheSync({ timeoutMs: 30_000 });
  return { done, stop: () => factory.shutdown() };
}

async function measure(name: string, env: Envtest, n: number, start: (ns: string) => ChildProcess): Promise<Result> {
  const admin = env.transport();
  const ns = await createTestNamespace(admin, `bench-${name}`);
  try {
    process.stderr.write(`${name}: creating ${n} Foos in ${ns}...\n`);
    await createFoos(admin, ns, n);
    const watcher = await deploymentsWatcher(admin, ns, n);
    const t0 = performance.now();
    const child = start(ns);
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), TIMEOUT_MS).unref());
    const outcome = await Promise.race([watcher.done.then(() => 'done' as const), exited.then(() => 'exited' as const), timeout]);
    const seconds = (performance.now() - t0) / 1000;
    if (outcome !== 'done') {
      child.kill('SIGKILL');
      throw new Error(`${name}: ${outcome} before every Foo had its Deployment\n${log}`);
    }
    const cpuSeconds = procCpuSeconds(child.pid!);
    const peakRssMB = procPeakRssMB(child.pid!);
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'stuck'>((r) => setTimeout(() => r('stuck'), 20_000).unref())]);
    if (code === 'stuck') child.kill('SIGKILL');
    await watcher.stop();
    return { name, seconds, cpuSeconds, peakRssMB };
  } finally {
    // Leave nothing for the next controller to see (no controller-manager: the namespace itself never goes away).
    const kube = new KubeClientset(admin);
    await new Clientset(admin).samplecontrollerV1alpha1.foos(ns).deleteCollection();
    await kube.appsV1.deployments(ns).deleteCollection();
    admin.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { foos: { type: 'string', default: '1000' }, workers: { type: 'string', default: '2' } } });
  const n = Number(values.foos);
  const workers = Number(values.workers);
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build:examples`);
  const assets = process.env['KUBEBUILDER_ASSETS'] || path.join(os.homedir(), '.cache/envtest/k8s-1.20.2/bin');
  const goBinary = path.join(assets, 'sample-controller-fast');
  if (!fs.existsSync(goBinary)) throw new Error(`${goBinary} is missing: run hack/setup-envtest.sh (it builds sample-controller-fast too)`);

  const env = await Envtest.start({ assetsDir: assets, crdPaths: [CRD], attachOutput: false });
  try {
    const ours = await measure('kubegen', env, n, (ns) =>
      spawn(process.execPath, [MAIN, `--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, `--workers=${workers}`], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, KUBEGEN_LOG_LEVEL: 'info' }, // like the Go one, which logs every sync
      }),
    );
    const go = await measure('go', env, n, () =>
      spawn(goBinary, ['-kubeconfig', env.kubeconfigPath], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SC_WORKERS: String(workers) } }),
    );
    const row = (r: Result): string =>
      `${r.name.padEnd(28)} ${r.seconds.toFixed(2).padStart(8)} s ${r.cpuSeconds.toFixed(2).padStart(8)} CPU-s ${r.peakRssMB.toFixed(1).padStart(8)} MB`;
    console.log(`sample-controller bench: ${n} Foos, ${workers} workers`);
    console.log(row({ ...ours, name: 'kubegen (TypeScript)' }));
    console.log(row({ ...go, name: 'sample-controller-fast (Go)' }));
    const ratio = ours.seconds / go.seconds;
    console.log(
      `ratio kubegen/go: time ${ratio.toFixed(2)} (goal <= 1.0: ${ratio <= 1 ? 'met' : 'NOT met'}), ` +
        `CPU ${(ours.cpuSeconds / go.cpuSeconds).toFixed(2)}, RSS ${(ours.peakRssMB / go.peakRssMB).toFixed(2)}`,
    );
  } finally {
    await env.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
