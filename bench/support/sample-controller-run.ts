/**
 * One sample-controller measurement, shared by `bench:sample-controller` and `bench:scale`: N Foos are created in a
 * fresh namespace before the controller (one process, or several replicas) starts; then the seconds from spawning
 * until every Foo has its Deployment (seen by a watch), each process's CPU seconds (`/proc/<pid>/stat` utime +
 * stime) and peak RSS (`/proc/<pid>/status` VmHWM) at that moment. Afterwards the namespace's Foos and Deployments
 * are deleted, so a controller that watches every namespace (the Go one) only sees its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { KubeInformers } from '@kubegen/runtime/internal/builtin/informers.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import type { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import type { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import { procCpuSeconds } from '../../test/support/proc.js';
import { procMemoryMB } from '@kubegen/runtime/internal/testing/loadtest/process-stats.js';
import { createFoos } from './foos.js';
import { bundleForImage } from 'kubegen/internal/bundle/bundle.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The TypeScript sample-controller (`npm run build:examples`). */
export const SAMPLE_CONTROLLER_MAIN = path.join(ROOT, 'examples/sample-controller/dist/main.js');
/** The Foo CRD as the sample-controller ships it. */
export const SAMPLE_CONTROLLER_CRD = path.join(ROOT, 'examples/sample-controller/artifacts/crd.yaml');
const TIMEOUT_MS = 300_000;

/** `$KUBEBUILDER_ASSETS`, else where `hack/setup-envtest.sh` puts the 1.20 binaries. */
export function envtestAssets(): string {
  return process.env['KUBEBUILDER_ASSETS'] || path.join(os.homedir(), '.cache/envtest/k8s-1.20.2/bin');
}

/** Path of a binary `hack/setup-envtest.sh` builds into the assets folder; throws with the fix when it is missing. */
export function envtestBinary(name: string, assets = envtestAssets()): string {
  const p = path.join(assets, name);
  if (!fs.existsSync(p)) throw new Error(`${p} is missing: run hack/setup-envtest.sh (it builds ${name} too)`);
  return p;
}

/**
 * Bundles the built sample-controller as a scaffolded project's `npm run build` does for its image (`kubegen bundle`:
 * examples/sample-controller/dist/main.js into dist/image/main.js); resolves with the bundle's main file.
 */
export async function bundleSampleController(): Promise<string> {
  requireSampleControllerBuilt();
  const cwd = path.dirname(path.dirname(SAMPLE_CONTROLLER_MAIN));
  const res = await bundleForImage({ cwd, entry: 'dist/main.js', out: 'dist/image' });
  return path.join(cwd, res.main);
}

/** Throws when the TypeScript sample-controller has not been built. */
export function requireSampleControllerBuilt(): void {
  if (!fs.existsSync(SAMPLE_CONTROLLER_MAIN)) throw new Error(`${SAMPLE_CONTROLLER_MAIN} is missing: run npm run build:examples`);
}

/** How the TypeScript controller's `node` runs: command-line flags and extra environment variables. */
export interface NodeSettings {
  flags: string[];
  env: Record<string, string>;
  /** Says where the settings come from, for the printed figures. */
  label: string;
  /** The sample controller's file to run: default {@link SAMPLE_CONTROLLER_MAIN} (tsc's modules). */
  main?: string;
}

const SCAFFOLD_TEMPLATES = path.join(ROOT, 'packages/kubegen/templates/init');

/**
 * The settings a scaffolded project deploys with, read from the scaffold's templates so that the bench measures what
 * users run: the `node` flags of the Dockerfile's `ENTRYPOINT` (V8 flags that `NODE_OPTIONS` refuses), and
 * `NODE_OPTIONS` and `MALLOC_ARENA_MAX` from `config/manager/manager.yaml`. Throws when a template no longer has them.
 */
export function scaffoldNodeSettings(): NodeSettings {
  const dockerfile = path.join(SCAFFOLD_TEMPLATES, 'Dockerfile.tmpl');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(fs.readFileSync(dockerfile, 'utf8'));
  const argv = entrypoint ? (JSON.parse(entrypoint[1]!) as string[]) : [];
  if (argv[0] !== 'node' || argv.at(-1) !== 'dist/image/main.js') throw new Error(`${dockerfile}: no ENTRYPOINT ["node", ..., "dist/image/main.js"]`);
  const manager = path.join(SCAFFOLD_TEMPLATES, 'manager.yaml.tmpl');
  const text = fs.readFileSync(manager, 'utf8');
  const value = (name: string): string => {
    const m = new RegExp(`- name: ${name}\\n\\s+value: "?([^"\\n]*)"?`).exec(text);
    if (!m) throw new Error(`${manager}: no ${name} in the manager's env`);
    return m[1]!.trim();
  };
  const entryFlags = argv.slice(1, -1);
  const nodeOptions = value('NODE_OPTIONS');
  const arenas = value('MALLOC_ARENA_MAX');
  return {
    flags: [...entryFlags, ...nodeOptions.split(/\s+/).filter(Boolean)],
    env: { MALLOC_ARENA_MAX: arenas },
    label: `the scaffold's settings: node ${entryFlags.join(' ')}, NODE_OPTIONS=${nodeOptions}, MALLOC_ARENA_MAX=${arenas}`,
  };
}

/** Node's defaults plus `flags` (`bench:sample-controller --node-flags="..."`). */
export function nodeFlagSettings(flags: string[]): NodeSettings {
  return { flags, env: {}, label: flags.length > 0 ? `node ${flags.join(' ')}` : "Node's defaults" };
}

/** Spawns the TypeScript sample-controller on `ns` (logging at info, like the Go one, which logs every sync). */
export function spawnKubegenController(
  env: Envtest,
  ns: string,
  workers: number,
  extraArgs: string[] = [],
  node: NodeSettings = scaffoldNodeSettings(),
): ChildProcess {
  return spawn(process.execPath, [...node.flags, node.main ?? SAMPLE_CONTROLLER_MAIN, `--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, `--workers=${workers}`, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...node.env, KUBEGEN_LOG_LEVEL: 'info' },
  });
}

/** Spawns the Go sample-controller `binary` (every namespace; `SC_WORKERS` workers for sample-controller-fast). */
export function spawnGoController(binary: string, env: Envtest, workers: number): ChildProcess {
  return spawn(binary, ['-kubeconfig', env.kubeconfigPath], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SC_WORKERS: String(workers) } });
}

/** One process of a measured controller at the moment every Foo had its Deployment. */
export interface ReplicaStats {
  cpuSeconds: number;
  peakRssMB: number;
  /** RssAnon and RssFile at that moment (the process's own memory; mapped file pages, for node its binary's code). */
  anonMB: number;
  fileMB: number;
}

/**
 * A measured controller: convergence seconds, CPU seconds summed over its processes, the highest peak RSS, and the
 * machine's 1-minute load average when it converged (the benches share a machine: compare CPU seconds, not time).
 */
export interface ControllerResult extends ReplicaStats {
  name: string;
  seconds: number;
  replicas: ReplicaStats[];
  loadAvg: number;
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

/**
 * Creates `n` Foos in a fresh namespace, starts the controller with `start(ns)` (one process or several replicas)
 * and measures until every Foo has its Deployment; then stops the processes (SIGTERM, SIGKILL after 20 s) and empties
 * the namespace. Fails when a process exits early or nothing converges within 5 minutes.
 */
export async function measureController(
  name: string,
  env: Envtest,
  n: number,
  start: (ns: string) => ChildProcess | ChildProcess[],
): Promise<ControllerResult> {
  const admin = env.transport();
  const ns = await createTestNamespace(admin, `bench-${name}`);
  try {
    process.stderr.write(`${name}: creating ${n} Foos in ${ns}...\n`);
    await createFoos(admin, ns, n);
    const watcher = await deploymentsWatcher(admin, ns, n);
    const t0 = performance.now();
    const started = start(ns);
    const children = Array.isArray(started) ? started : [started];
    let log = '';
    for (const c of children) c.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
    const exits = children.map((c) => new Promise<number | null>((r) => c.on('exit', (code) => r(code))));
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), TIMEOUT_MS).unref());
    const outcome = await Promise.race([watcher.done.then(() => 'done' as const), ...exits.map((e) => e.then(() => 'exited' as const)), timeout]);
    const seconds = (performance.now() - t0) / 1000;
    if (outcome !== 'done') {
      for (const c of children) c.kill('SIGKILL');
      throw new Error(`${name}: ${outcome} before every Foo had its Deployment\n${log}`);
    }
    const replicas = children.map((c) => {
      const memory = procMemoryMB(c.pid!);
      return { cpuSeconds: procCpuSeconds(c.pid!), peakRssMB: memory.hwmMB, anonMB: memory.anonMB, fileMB: memory.fileMB };
    });
    const loadAvg = os.loadavg()[0]!;
    for (const c of children) c.kill('SIGTERM');
    const stuck = await Promise.race([Promise.all(exits).then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 20_000).unref())]);
    if (stuck) for (const c of children) c.kill('SIGKILL');
    await watcher.stop();
    return {
      name,
      seconds,
      cpuSeconds: replicas.reduce((s, r) => s + r.cpuSeconds, 0),
      peakRssMB: Math.max(...replicas.map((r) => r.peakRssMB)),
      anonMB: replicas.reduce((s, r) => s + r.anonMB, 0),
      fileMB: replicas.reduce((s, r) => s + r.fileMB, 0),
      replicas,
      loadAvg,
    };
  } finally {
    // Leave nothing for the next controller to see (no controller-manager: the namespace itself never goes away).
    const kube = new KubeClientset(admin);
    await new Clientset(admin).samplecontrollerV1alpha1.foos(ns).deleteCollection();
    await kube.appsV1.deployments(ns).deleteCollection();
    admin.close();
  }
}

/** One table row: seconds, CPU seconds, peak RSS. */
export function controllerRow(r: ControllerResult, label = r.name): string {
  return `${label.padEnd(28)} ${r.seconds.toFixed(2).padStart(8)} s ${r.cpuSeconds.toFixed(2).padStart(8)} CPU-s ${r.peakRssMB.toFixed(1).padStart(8)} MB`;
}
