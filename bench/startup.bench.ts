/**
 * `npm run bench:startup` (issue 43, item 1): what loading the runtime costs before any work, and what a manager
 * costs once it is ready. Three kinds of fresh `node` process, alternating over `BENCH_ROUNDS` rounds (default 5):
 *   - `bare`: loads `node:http2` and `node:https` (the runtime's transports need them: what any controller pays);
 *   - `import`: the same, then `import('@kubegen/runtime')`;
 *   - `manager`: the same, then a Manager on an envtest apiserver (the `full` profile, started once) with one
 *     controller of ConfigMaps, measured once its `/readyz` answers 200;
 *   - `bundle` and `manager-bundle`: `import` and `manager` with the runtime as `kubegen bundle` bundles it for an image
 *     (one ES module, built by this bench first from `export * from '@kubegen/runtime'`: nothing tree-shaken away).
 * Each also runs as `<kind>+policy`: with the V8 flags and environment runMain's memory policy gives a controller.
 * Each prints, after a full GC, its RSS (and its parts: RssAnon, the process's own memory; RssFile, mapped file pages,
 * nearly all of them the node binary's code, shared by every node process on a host), V8 heap and the number of modules it loaded (ES modules and CommonJS files
 * resolved, `node:` built-ins not counted) and the CPU it took from its start. Medians and spreads, the machine's load
 * average, and the goal: the runtime's import costs at most 10 MB of RSS over bare Node.
 * Run it on a quiet machine (`uptime` load under 1.5).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleForImage } from 'kubegen/internal/bundle/bundle.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { MEMORY_POLICY_ENV, MEMORY_POLICY_FLAGS } from '@kubegen/runtime/internal/manager/memory-policy.js';
import { alternate, median, spread } from './support/stats.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const GOAL_MB = 10;

interface Figures {
  rssMB: number;
  /** RssAnon: the process's own memory (V8's heap, malloc). */
  anonMB: number;
  /** RssFile: pages of files mapped in, nearly all the node binary's code (shared with every node process on the host). */
  fileMB: number;
  heapMB: number;
  modules: number;
  /** CPU milliseconds (user + system) of the process from its start to the measurement. */
  cpuMs: number;
}

const CHILD = `
import { registerHooks } from 'node:module';
import { readFileSync } from 'node:fs';
const figures = () => {
  const cpu = process.cpuUsage();
  globalThis.gc(); globalThis.gc();
  const m = process.memoryUsage();
  const status = readFileSync('/proc/self/status', 'utf8');
  const kB = (k) => Number(new RegExp(k + ':[ \\t]+([0-9]+)').exec(status)?.[1] ?? NaN) / 1024;
  return JSON.stringify({ rssMB: m.rss / 1048576, anonMB: kB('RssAnon'), fileMB: kB('RssFile'), heapMB: m.heapUsed / 1048576, modules: seen.size, cpuMs: (cpu.user + cpu.system) / 1000 });
};
const seen = new Set();
registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); if (!r.url.startsWith('node:')) seen.add(r.url); return r; } });
await import('node:http2'); await import('node:https');
const mode = process.argv[1];
if (mode !== 'bare') {
  const rt = await import(mode === 'bundle' || mode === 'manager-bundle' ? process.argv[3] : '@kubegen/runtime');
  if (mode === 'manager' || mode === 'manager-bundle') {
    const mgr = new rt.Manager({ transport: rt.createTransport({ kubeconfig: process.argv[2] }), metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', logger: rt.nullLogger });
    rt.controllerFor(mgr, rt.builtinResources.configMaps).complete(async () => {});
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    for (;;) {
      const addr = mgr.healthProbeAddress;
      if (addr && (await fetch('http://' + addr + '/readyz').then((r) => r.status, () => 0)) === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(figures());
    stop.abort(); await run; process.exit(0);
  }
}
console.log(figures());
`;

/** A mode with `+policy` runs with the flags and environment of runMain's memory policy (what a controller gets). */
function measure(mode: string, kubeconfig: string, bundle: string): Figures {
  const policy = mode.endsWith('+policy');
  const flags = policy ? [...MEMORY_POLICY_FLAGS] : [];
  const env = { ...process.env, ...(policy ? MEMORY_POLICY_ENV : {}), KUBEGEN_MEMORY_POLICY: 'off' };
  const r = spawnSync(process.execPath, [...flags, '--expose-gc', '--input-type=module', '-e', CHILD, mode.replace(/\+policy$/, ''), kubeconfig, bundle], { cwd: repoRoot, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`${mode} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Figures;
}

/** The runtime as `kubegen bundle` bundles it, every export kept; the bundle's main module (a URL, for import()). */
async function bundleRuntime(): Promise<string> {
  const dir = path.join(repoRoot, 'dist/bench/startup-bundle');
  await fs.mkdir(path.join(dir, 'src'), { recursive: true });
  await fs.writeFile(path.join(dir, 'src/runtime.js'), "export * from '@kubegen/runtime';\n");
  const res = await bundleForImage({ cwd: dir, entry: 'src/runtime.js', out: 'image' });
  return pathToFileURL(path.join(dir, res.main)).href;
}

const bundle = await bundleRuntime();
const env = await Envtest.start({ profile: 'full' });
try {
  const modes = ['bare', 'import', 'bundle', 'manager', 'manager-bundle', 'bare+policy', 'import+policy', 'bundle+policy', 'manager+policy', 'manager-bundle+policy'];
  const figures = new Map<string, Figures[]>(modes.map((m) => [m, []]));
  const loads: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    loads.push(os.loadavg()[0]!);
    for (const m of alternate(modes, i)) figures.get(m)!.push(measure(m, env.kubeconfigPath, bundle));
  }
  const med = (m: string, f: (x: Figures) => number): number => median(figures.get(m)!.map(f));
  console.log(`startup, median of ${ROUNDS} fresh processes each (node ${process.version}; load average ${loads.map((l) => l.toFixed(2)).join(', ')}):`);
  for (const m of modes) {
    const xs = figures.get(m)!;
    console.log(
      `  ${m.padEnd(21)} RSS ${med(m, (x) => x.rssMB).toFixed(1)} MB ${spread(xs.map((x) => x.rssMB), 1).padEnd(13)} ` +
        `(anon ${med(m, (x) => x.anonMB).toFixed(1)}, file ${med(m, (x) => x.fileMB).toFixed(1)}) ` +
        `heap ${med(m, (x) => x.heapMB).toFixed(2)} MB ${spread(xs.map((x) => x.heapMB), 2).padEnd(13)} modules ${String(med(m, (x) => x.modules)).padEnd(4)} CPU ${med(m, (x) => x.cpuMs).toFixed(0)} ms ${spread(xs.map((x) => x.cpuMs), 0)}` +
        (m.startsWith('bare') ? '' : `  (+${(med(m, (x) => x.rssMB) - med(m.endsWith('+policy') ? 'bare+policy' : 'bare', (x) => x.rssMB)).toFixed(1)} MB RSS over ${m.endsWith('+policy') ? 'bare+policy' : 'bare'})`),
    );
  }
  for (const kind of ['import', 'bundle']) {
    for (const suffix of ['', '+policy']) {
      const over = med(`${kind}${suffix}`, (x) => x.rssMB) - med(`bare${suffix}`, (x) => x.rssMB);
      const what = kind === 'import' ? "the runtime's import" : "the runtime's import, bundled (kubegen bundle)";
      console.log(`goal ${what} costs ≤ ${GOAL_MB} MB RSS over bare node + http2 + https${suffix ? ' (both with the memory policy)' : ''}: +${over.toFixed(1)} MB ${over <= GOAL_MB ? 'met' : 'NOT met'}`);
    }
  }
} finally {
  await env.stop();
}
