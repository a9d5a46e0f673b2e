/**
 * `npm run bench:janitor [-- --scenarios=0x0,10x1000,50x200 --samples=3 --node-flags=';--max-semi-space-size=1']`:
 * the memory of the TTL janitor (examples/ttl-janitor, built) watching N custom kinds × M objects each, next to every
 * built-in kind of the cluster. Each scenario gets a fresh envtest (kube-apiserver 1.20) with N CRDs
 * (`bench.janitor.kubegen.dev`, Widget0…) and M objects of each, made like real ones: three labels, a 1 KB
 * `last-applied-configuration` annotation, a spec, and on every tenth object a TTL far off (`1000h`, so nothing is
 * deleted while measuring). Then the built janitor runs as a process, once per `--node-flags` variant (`;`-separated;
 * by default as shipped, and with V8's young generation capped), with `--expose-gc` (SIGUSR2 collects garbage:
 * bench/support/gc-on-signal.ts), until `/readyz` says every controller has synced; after 5 s idle, `samples`
 * readings 3 s apart of its RSS (`/proc`: VmRSS, and RssAnon without the node binary's pages) and live heap
 * (`nodejs_heap_size_used_bytes` right after a full GC), and its peak RSS (VmHWM). Medians are printed as a Markdown
 * table (the README's).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { freePort } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { installCrds, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { sleep } from '../test/support/wait.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const JANITOR = path.join(REPO, 'examples/ttl-janitor/dist/main.js');
const GC_ON_SIGNAL = path.join(REPO, 'dist/bench/support/gc-on-signal.js');
const GROUP = 'bench.janitor.kubegen.dev';
const LAST_APPLIED = JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', spec: { size: 'large', replicas: 3, owner: 'team-a', notes: 'x'.repeat(800) } });

const kindInfo = (i: number): ResourceInfo => ({ group: GROUP, version: 'v1', resource: `widget${i}s`, kind: `Widget${i}`, listKind: `Widget${i}List`, namespaced: true });

function crd(info: ResourceInfo): CrdObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${info.resource}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: info.resource, singular: info.kind.toLowerCase(), kind: info.kind, listKind: info.listKind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  } as CrdObject;
}

function widget(info: ResourceInfo, j: number): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: info.kind,
    metadata: {
      name: `w-${j}`,
      labels: { app: `app-${j % 50}`, tier: 'backend', 'app.kubernetes.io/managed-by': 'bench' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': LAST_APPLIED, ...(j % 10 === 0 ? { 'janitor.kubegen.io/ttl': '1000h' } : {}) },
    },
    spec: { size: 'large', replicas: 3, owner: 'team-a', index: j },
  } as KubeObject;
}

interface Row {
  kinds: number;
  objects: number;
  /** Node flags the janitor ran with (`''`: none). */
  flags: string;
  watched: number;
  readySeconds: number;
  rssMB: number;
  /** RssAnon: the process's own memory, without the pages of the node binary and libraries (RssFile). */
  anonMB: number;
  heapMB: number;
  /** Peak RSS while it listed and synced (VmHWM). */
  peakMB: number;
}

/** `VmRSS`, `RssAnon` and `VmHWM` of `pid` in MB. */
function rss(pid: number): { rssMB: number; anonMB: number; peakMB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rssMB: mb('VmRSS'), anonMB: mb('RssAnon'), peakMB: mb('VmHWM') };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function metric(address: string, name: string): Promise<number> {
  const body = await (await fetch(`http://${address}/metrics`)).text();
  const line = body.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in /metrics`);
  return Number(line.slice(name.length + 1));
}

/** A fresh cluster with `kinds` CRDs of `perKind` objects each; the janitor measured once per entry of `variants`. */
async function scenario(kinds: number, perKind: number, samples: number, variants: readonly string[]): Promise<Row[]> {
  // A loaded machine can take a while to bring kube-apiserver up: wait longer than envtest's default.
  const env = await Envtest.start({ attachOutput: false, startTimeoutMs: 120_000 });
  try {
    const admin = env.transport({ timeoutMs: 60_000 });
    const infos = Array.from({ length: kinds }, (_, i) => kindInfo(i));
    if (kinds > 0) await installCrds(admin, infos.map(crd), 120_000);
    const ns = await createTestNamespace(admin, 'bench-janitor');
    const t0 = performance.now();
    const work = infos.flatMap((info) => Array.from({ length: perKind }, (_, j) => () => new ResourceClient<KubeObject>(admin, info, ns).create(widget(info, j))));
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < work.length) await work[next++]!();
    }));
    if (work.length > 0) process.stderr.write(`${kinds} kinds × ${perKind}: created ${work.length} objects in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    admin.close();
    const rows: Row[] = [];
    for (const flags of variants) rows.push(await measure(env.kubeconfigPath, kinds, perKind, samples, flags));
    return rows;
  } finally {
    await env.stop();
  }
}

/** Runs the built janitor with `flags` until ready, then reads its memory `samples` times (see the module comment). */
async function measure(kubeconfig: string, kinds: number, perKind: number, samples: number, flags: string): Promise<Row> {
  const metrics = `127.0.0.1:${await freePort()}`;
  const probes = `127.0.0.1:${await freePort()}`;
  const args = [...flags.split(' ').filter(Boolean), '--expose-gc', `--import=${GC_ON_SIGNAL}`, JANITOR, `--kubeconfig=${kubeconfig}`, `--metrics-bind-address=${metrics}`, `--health-probe-bind-address=${probes}`, '--log-level=warn'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const started = performance.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the janitor exited with ${child.exitCode}`);
      if ((await fetch(`http://${probes}/readyz`).then((r) => r.status, () => 0)) === 200) break;
      if (performance.now() - started > 300_000) throw new Error('the janitor was not ready after 5 min');
      await sleep(100);
    }
    const readySeconds = (performance.now() - started) / 1000;
    await sleep(5_000);
    const rssMB: number[] = [];
    const anonMB: number[] = [];
    const heap: number[] = [];
    for (let i = 0; i < samples; i++) {
      child.kill('SIGUSR2');
      await sleep(1_000);
      heap.push((await metric(metrics, 'nodejs_heap_size_used_bytes')) / 1024 / 1024);
      const m = rss(child.pid!);
      rssMB.push(m.rssMB);
      anonMB.push(m.anonMB);
      if (i < samples - 1) await sleep(2_000);
    }
    const watched = await metric(metrics, 'ttl_janitor_kinds_watched');
    // Where the RSS beyond the live heap is: V8's committed heap (the young generation keeps the semi-spaces it grew
    // to while the lists came in) and memory outside the heap.
    const mb = async (series: string): Promise<string> => ((await metric(metrics, series)) / 1024 / 1024).toFixed(1);
    process.stderr.write(`${kinds} kinds × ${perKind}${flags ? ` (${flags})` : ''}: heap committed ${await mb('nodejs_heap_size_total_bytes')} MB (new space ${await mb('nodejs_heap_space_size_total_bytes{space="new"}')} MB), external ${await mb('nodejs_external_memory_bytes')} MB\n`);
    const row = { kinds, objects: kinds * perKind, flags, watched, readySeconds, rssMB: median(rssMB), anonMB: median(anonMB), heapMB: median(heap), peakMB: rss(child.pid!).peakMB };
    process.stderr.write(`${JSON.stringify(row)}\n`);
    return row;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scenarios: { type: 'string', default: '0x0,10x1000,50x200' },
      samples: { type: 'string', default: '3' },
      // The janitor as shipped, and with V8's young generation capped (`;`-separated variants; '' is no flag).
      'node-flags': { type: 'string', default: ';--max-semi-space-size=1' },
    },
  });
  const variants = values['node-flags'].split(';').map((f) => f.trim());
  const scenarios = values.scenarios.split(',').map((s) => {
    const m = /^(\d+)x(\d+)$/.exec(s.trim());
    if (!m) throw new Error(`--scenarios: ${JSON.stringify(s)} is not <kinds>x<objects per kind>`);
    return [Number(m[1]), Number(m[2])] as const;
  });
  const rows: Row[] = [];
  for (const [kinds, perKind] of scenarios) rows.push(...(await scenario(kinds, perKind, Number(values.samples), variants)));
  console.log(`ttl-janitor (metadata-only informers, slimmed cache), kube-apiserver 1.20, Node ${process.version}; medians of ${values.samples} readings after a full GC`);
  console.log('| custom kinds × objects | node flags | kinds watched | ready (s) | peak RSS (MB) | RSS (MB) | RssAnon (MB) | heap (MB) | heap per object over 0 × 0 |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const base = rows.find((b) => b.objects === 0 && b.flags === r.flags);
    const perObject = base && r.objects > 0 ? `${Math.round(((r.heapMB - base.heapMB) * 1024 * 1024) / r.objects)} B` : '';
    console.log(`| ${r.kinds} × ${r.objects / Math.max(1, r.kinds)} | ${r.flags || '—'} | ${r.watched} | ${r.readySeconds.toFixed(1)} | ${r.peakMB.toFixed(1)} | ${r.rssMB.toFixed(1)} | ${r.anonMB.toFixed(1)} | ${r.heapMB.toFixed(1)} | ${perObject} |`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
