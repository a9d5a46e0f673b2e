/**
 * What the generated built-in API costs (issue 37, part 7), each measured against its reference in the same run,
 * alternating, medians of `BENCH_ROUNDS` (default 5) rounds:
 *   1. import: wall time, heap after a full GC, and RSS of a fresh `node` importing `@kubegen/runtime` and
 *      `@kubegen/runtime/api/core/v1`, against a bare `node` that loaded `node:http2` and `node:https` (the runtime's
 *      transports need them: what any controller pays);
 *   2. type-checking: `tsc --noEmit` of a scaffold-shaped project (the scaffold's tsconfig) whose controller uses ten
 *      built-in groups (types, clients, apply configurations, informers), against the same project using none.
 * With `BENCH_REFERENCE_RUNTIME=<checkout>` (another checkout's root, its runtime built: the pre-wave runtime that
 * borrowed client-node's types, e.g. a worktree at 2624611) that runtime's import is measured too, in the same
 * alternation, and the goal "no worse than today" is printed: import time and heap at most the reference's.
 * Goals printed: the tsc ratio ≤ 1.5; import no worse than the reference's (issue 43 sets the RSS goal).
 * Run: `npm run bench:builtin-api` on a quiet machine (`uptime` load under 1.5).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { alternate, median, spread } from './support/stats.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const NODE = process.execPath;
const TSC = path.join(repoRoot, 'node_modules', '.bin', 'tsc');

interface ImportFigures {
  ms: number;
  heapMB: number;
  rssMB: number;
}

/** A fresh node process importing `specs` (after `node:http2`/`node:https`, which the baseline imports alone). */
function measureImport(specs: readonly string[]): ImportFigures {
  const script = `
    await import('node:http2'); await import('node:https');
    globalThis.gc(); const before = performance.now();
    for (const s of ${JSON.stringify(specs)}) await import(s);
    const ms = performance.now() - before;
    globalThis.gc();
    const m = process.memoryUsage();
    console.log(JSON.stringify({ ms, heapMB: m.heapUsed / 1048576, rssMB: m.rss / 1048576 }));`;
  const r = spawnSync(NODE, ['--expose-gc', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`import of ${specs.join(', ') || '(nothing)'} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ImportFigures;
}

const TEN_GROUPS = `import type { ConfigMap, Service } from '@kubegen/runtime/api/core/v1';
import { deploymentApply, type Deployment } from '@kubegen/runtime/api/apps/v1';
import type { Job } from '@kubegen/runtime/api/batch/v1';
import { podDisruptionBudgetApply } from '@kubegen/runtime/api/policy/v1';
import type { Role, RoleBinding } from '@kubegen/runtime/api/rbac/v1';
import type { NetworkPolicy } from '@kubegen/runtime/api/networking/v1';
import type { HorizontalPodAutoscaler } from '@kubegen/runtime/api/autoscaling/v2';
import type { StorageClass } from '@kubegen/runtime/api/storage/v1';
import type { Lease } from '@kubegen/runtime/api/coordination/v1';
import type { EndpointSlice } from '@kubegen/runtime/api/discovery/v1';
import { KubeClientset, KubeInformers, type Transport } from '@kubegen/runtime';
import { SharedInformerFactory } from '@kubegen/runtime/cache';

export async function reconcile(transport: Transport, ns: string): Promise<number> {
  const cs = new KubeClientset(transport);
  const informers = new KubeInformers(new SharedInformerFactory(transport));
  const cm: ConfigMap = await cs.coreV1.configMaps(ns).get('a');
  const svc: Service = await cs.coreV1.services(ns).get('a');
  const d: Deployment = await cs.appsV1.deployments(ns).apply({ ...deploymentApply('a', ns), spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } });
  await cs.policyV1.podDisruptionBudgets(ns).apply({ ...podDisruptionBudgetApply('a', ns), spec: { minAvailable: 1 } });
  const jobs: Job[] = informers.batchV1.jobs().lister.list();
  const roles: Role[] = (await cs.rbacV1.roles(ns).list()).items;
  const bindings: RoleBinding[] = (await cs.rbacV1.roleBindings(ns).list()).items;
  const np: NetworkPolicy = { spec: { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] } };
  const hpa: HorizontalPodAutoscaler = await cs.autoscalingV2.horizontalPodAutoscalers(ns).get('a');
  const sc: StorageClass = await cs.storageV1.storageClasses().get('a');
  const lease: Lease = await cs.coordinationV1.leases(ns).get('a');
  const slices: EndpointSlice[] = informers.discoveryV1.endpointSlices().lister.list();
  return [cm, svc, d, np, hpa, sc, lease].length + jobs.length + roles.length + bindings.length + slices.length;
}
`;

const NO_GROUPS = `import { ResourceClient, type KubeObject, type ResourceDescriptor, type Transport } from '@kubegen/runtime';

const things: ResourceDescriptor = { group: 'x.io', version: 'v1', resource: 'things', kind: 'Thing', listKind: 'ThingList', namespaced: true };

export async function reconcile(transport: Transport, ns: string): Promise<number> {
  const client = new ResourceClient<KubeObject>(transport, things, ns);
  const list = await client.list();
  await client.apply({ apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 'a', namespace: ns } });
  return list.items.length;
}
`;

/** A scratch project with the scaffold's tsconfig and `source` as its only file, the runtime linked. */
function project(name: string, source: string): string {
  const dir = path.join(repoRoot, 'dist', 'bench-builtin-api', name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'node_modules', '@kubegen'), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, 'packages', 'runtime'), path.join(dir, 'node_modules', '@kubegen', 'runtime'), 'dir');
  const tsconfig = fs.readFileSync(path.join(repoRoot, 'packages', 'kubegen', 'templates', 'init', 'tsconfig.json.tmpl'), 'utf8');
  const parsed = JSON.parse(tsconfig) as { compilerOptions: Record<string, unknown>; include: string[] };
  parsed.compilerOptions['typeRoots'] = [path.join(repoRoot, 'node_modules', '@types')];
  parsed.include = ['src'];
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(parsed));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, type: 'module', private: true }));
  fs.writeFileSync(path.join(dir, 'src', 'controller.ts'), source);
  return dir;
}

function tscSeconds(dir: string): number {
  const start = performance.now();
  const r = spawnSync(TSC, ['--noEmit', '-p', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsc failed in ${dir}:\n${r.stdout}${r.stderr}`);
  return (performance.now() - start) / 1000;
}

const imports: Record<string, string[]> = { bare: [], runtime: ['@kubegen/runtime'], 'api/core/v1': ['@kubegen/runtime/api/core/v1'] };
const reference = process.env['BENCH_REFERENCE_RUNTIME'];
if (reference) imports['reference'] = [pathToFileURL(path.resolve(reference, 'packages/runtime/dist/index.js')).href];
const importFigures: Record<string, ImportFigures[]> = Object.fromEntries(Object.keys(imports).map((k) => [k, []]));
for (let i = 0; i < ROUNDS; i++) for (const k of alternate(Object.keys(imports), i)) importFigures[k]!.push(measureImport(imports[k]!));

console.log(`import cost, median of ${ROUNDS} fresh processes each (after node:http2 + node:https):`);
const bareRss = median(importFigures['bare']!.map((f) => f.rssMB));
for (const [k, fs_] of Object.entries(importFigures)) {
  const ms = fs_.map((f) => f.ms);
  const heap = fs_.map((f) => f.heapMB);
  const rss = fs_.map((f) => f.rssMB);
  console.log(
    `  ${k.padEnd(12)} ${median(ms).toFixed(0).padStart(4)} ms ${spread(ms, 0).padEnd(12)} heap ${median(heap).toFixed(1)} MB ${spread(heap, 1).padEnd(12)} RSS ${median(rss).toFixed(1)} MB (+${(median(rss) - bareRss).toFixed(1)} over bare)`,
  );
}

if (reference) {
  const m = (k: string, f: (x: ImportFigures) => number): number => median(importFigures[k]!.map(f));
  const ok = m('runtime', (f) => f.ms) <= m('reference', (f) => f.ms) && m('runtime', (f) => f.heapMB) <= m('reference', (f) => f.heapMB);
  console.log(
    `goal @kubegen/runtime import no worse than the reference (${reference}): ${m('runtime', (f) => f.ms).toFixed(0)} ms / ${m('reference', (f) => f.ms).toFixed(0)} ms, ` +
      `heap ${m('runtime', (f) => f.heapMB).toFixed(2)} / ${m('reference', (f) => f.heapMB).toFixed(2)} MB: ${ok ? 'met' : 'NOT met'}`,
  );
}

const none = project('none', NO_GROUPS);
const ten = project('ten-groups', TEN_GROUPS);
const tsc: Record<string, number[]> = { none: [], ten: [] };
tscSeconds(none); // warm the file cache
for (let i = 0; i < ROUNDS; i++) for (const k of alternate(['none', 'ten'], i)) tsc[k]!.push(tscSeconds(k === 'none' ? none : ten));
const ratio = median(tsc['ten']!) / median(tsc['none']!);
console.log(`tsc --noEmit, scaffold tsconfig, median of ${ROUNDS}: no group ${median(tsc['none']!).toFixed(2)} s ${spread(tsc['none']!, 2)}, ten groups ${median(tsc['ten']!).toFixed(2)} s ${spread(tsc['ten']!, 2)}`);
console.log(`goal tsc ten groups / none ≤ 1.5: ${ratio.toFixed(2)} ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
