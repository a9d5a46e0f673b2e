/**
 * `npm run bench:multicluster` (issue 30): what each engaged member cluster costs one multi-cluster controller
 * process — memory (RSS, and V8 heap after GC) and CPU — idle and with 1,000 objects in each member, 1 to 10
 * members, in one run.
 *
 * The process measured is the fleet-config example's controller (bench/support/fleet-config-bench-process.ts:
 * `addFleetConfigController` on a `MultiClusterManager` with the `KubeconfigSecretProvider`, as its main.ts wires
 * it). The hub is one `full` control plane (kube-apiserver 1.20: Secrets, the FleetConfig CRD); the members are
 * `crd-only` control planes (CRD apiserver 1.36), the cheapest that serves what a member lane watches — so the member
 * kind is `MemberConfigMap`, a custom kind of ConfigMap's shape (the CRD-only apiserver serves no ConfigMaps; ten
 * kube-apiservers would not fit on two cores beside the others' work).
 *
 * 1. Idle: the process starts with no member (the reference, k = 0), then a kubeconfig Secret per member is added, one
 *    at a time; after each, once the new member's lane has synced and 2 s have passed, it is measured: RSS and heap
 *    after two full GCs, CPU (user + system) over a `MC_BENCH_WINDOW_MS` window (default 5 s) as % of one core.
 * 2. With objects: `MC_BENCH_OBJECTS` (default 1,000) FleetConfigs in the hub; a fresh process, then the members
 *    engaged one at a time again — each engagement has the controller create 1,000 MemberConfigMaps in that member
 *    and write 1,000 status entries in the hub (the CPU seconds that takes, Secret to last status entry, are shown
 *    as `engage`) — and, once converged, measured as above: every engaged member now holds 1,000 cached objects.
 *
 * The reference (k = 0) is taken 10 s after the process started. Per engaged cluster: the least-squares slope over k = 0..N of each figure, and its ratio to the k = 0 process
 * (the reference measured in the same run). `MC_BENCH_MEMBERS` (default 10) sets N. Figures on a shared 2-core
 * machine are noisy, CPU most of all: the control planes share the cores with the process.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { KUBECONFIG_SECRET_LABEL } from '@kubegen/runtime/internal/multicluster/providers/kubeconfig-secrets.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { fleetConfigResource } from '../examples/fleet-config/src/generated/fleet.kubegen.io/v1alpha1/register.js';
import type { FleetConfig } from '../examples/fleet-config/src/generated/fleet.kubegen.io/v1alpha1/types.js';
import { forEachConcurrently } from './support/concurrently.js';
import { MEMBER_CONFIG_MAP, MEMBER_CONFIG_MAP_CRD } from './support/fleet-config-bench-kinds.js';
import { sleep } from '../test/support/wait.js';

const MEMBERS = Number(process.env['MC_BENCH_MEMBERS'] ?? 10);
const OBJECTS = Number(process.env['MC_BENCH_OBJECTS'] ?? 1_000);
const WINDOW_MS = Number(process.env['MC_BENCH_WINDOW_MS'] ?? 5_000);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'support', 'fleet-config-bench-process.js');
const FLEET_CRD = path.join(HERE, '..', '..', 'examples/fleet-config/config/crd/fleet.kubegen.io_fleetconfigs.yaml');
const MB = 2 ** 20;
/** How long the fresh process runs before its reference (k = 0) sample: start-up work (JIT, the hub's lists) done. */
const SETTLE_MS = 10_000;

interface Sample {
  rss: number;
  heapUsed: number;
  cpuMicros: number;
  /** CPU after the sample's own GCs: a window starts here, so the benchmark's GCs are not counted. */
  cpuAfterGcMicros: number;
  at: number;
  clusters: string[];
  synced: string[];
}

interface Row {
  k: number;
  rssMB: number;
  heapMB: number;
  cpuPct: number;
  /** Phase 2: CPU seconds from the Secret to the last status entry, and the wall seconds. */
  engageCpuS?: number;
  engageS?: number;
}

/** The measured process, answering `measure` on stdin with a JSON line. */
class Controller {
  private readonly child: ChildProcess;
  private readonly pending: ((s: Sample) => void)[] = [];
  private stderr = '';

  constructor(hubKubeconfig: string, namespace: string) {
    this.child = spawn(process.execPath, ['--conditions=kubegen-internal', CHILD], {
      env: { ...process.env, MC_BENCH_HUB_KUBECONFIG: hubKubeconfig, MC_BENCH_NAMESPACE: namespace },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    readline.createInterface({ input: this.child.stdout! }).on('line', (l) => this.pending.shift()?.(JSON.parse(l) as Sample));
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  measure(): Promise<Sample> {
    if (this.child.exitCode !== null) throw new Error(`the controller exited (${this.child.exitCode}): ${this.stderr}`);
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.child.stdin!.write('measure\n');
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}


async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs = 300_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(500);
  }
}

/** RSS and heap after GC, CPU over the window (as % of one core). */
async function steady(c: Controller, k: number): Promise<Row> {
  await sleep(2_000);
  const a = await c.measure();
  await sleep(WINDOW_MS);
  const b = await c.measure();
  return { k, rssMB: b.rss / MB, heapMB: b.heapUsed / MB, cpuPct: ((b.cpuMicros - a.cpuAfterGcMicros) / 1_000 / (b.at - a.at)) * 100 };
}

/** Least-squares slope of `y` over `x`. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  const num = xs.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0);
  const den = xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

function printTable(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  console.log('members   RSS MB   heap MB   CPU %' + (rows.some((r) => r.engageCpuS !== undefined) ? '   engage: CPU s / wall s' : ''));
  for (const r of rows) {
    const engage = r.engageCpuS !== undefined ? `   ${r.engageCpuS.toFixed(2)} / ${r.engageS!.toFixed(1)}` : '';
    console.log(`${String(r.k).padStart(7)} ${r.rssMB.toFixed(1).padStart(8)} ${r.heapMB.toFixed(1).padStart(9)} ${r.cpuPct.toFixed(2).padStart(7)}${engage}`);
  }
  const ks = rows.map((r) => r.k);
  const base = rows[0]!;
  const per = (f: (r: Row) => number): number => slope(ks, rows.map(f));
  const rss = per((r) => r.rssMB);
  const heap = per((r) => r.heapMB);
  const cpu = per((r) => r.cpuPct);
  console.log(
    `per engaged cluster: RSS +${rss.toFixed(2)} MB (${((rss / base.rssMB) * 100).toFixed(1)}% of the ${base.rssMB.toFixed(1)} MB process without members), ` +
      `heap +${heap.toFixed(2)} MB (${((heap / base.heapMB) * 100).toFixed(1)}% of ${base.heapMB.toFixed(1)} MB), CPU +${cpu.toFixed(3)}% of a core (${base.cpuPct.toFixed(3)}% without members)`,
  );
  const engaged = rows.filter((r) => r.engageCpuS !== undefined);
  if (engaged.length > 0) {
    const cpuS = engaged.reduce((s, r) => s + r.engageCpuS!, 0) / engaged.length;
    const wallS = engaged.reduce((s, r) => s + r.engageS!, 0) / engaged.length;
    console.log(`engaging a member with ${OBJECTS} objects to roll out: ${cpuS.toFixed(2)} CPU s, ${wallS.toFixed(1)} s wall on average`);
  }
}

async function main(): Promise<void> {
  assert.ok(fs.existsSync(CHILD), `${CHILD} is missing: npm run build`);
  const started = performance.now();
  const hub = await Envtest.start({ profile: 'full', crdPaths: [FLEET_CRD] });
  const members: Envtest[] = [];
  try {
    // Members in batches of three: ten at once would starve the two cores while they start.
    for (let i = 0; i < MEMBERS; i += 3) {
      const batch = await Promise.all(Array.from({ length: Math.min(3, MEMBERS - i) }, () =>
        Envtest.start({ profile: 'crd-only', crds: [MEMBER_CONFIG_MAP_CRD], garbageCollector: false, startTimeoutMs: 120_000 })));
      members.push(...batch);
    }
    console.log(`bench:multicluster: a hub (full) and ${MEMBERS} members (crd-only) started in ${((performance.now() - started) / 1000).toFixed(0)} s; ${OBJECTS} objects per member in phase 2`);
    const hubTransport = hub.transport();
    const secrets = (ns: string) => new KubeClientset(hubTransport).coreV1.secrets(ns);
    const engage = (ns: string, i: number) => secrets(ns).create({
      apiVersion: 'v1', kind: 'Secret',
      metadata: { name: `m${i + 1}`, namespace: ns, labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
      data: { kubeconfig: fs.readFileSync(members[i]!.kubeconfigPath).toString('base64') },
    });

    // 1. Idle members.
    const idleNs = await createTestNamespace(hubTransport, 'mc-bench-idle');
    const idle: Row[] = [];
    let c = new Controller(hub.kubeconfigPath, idleNs);
    try {
      await sleep(SETTLE_MS);
      idle.push(await steady(c, 0));
      for (let i = 0; i < MEMBERS; i++) {
        await engage(idleNs, i);
        await waitFor(`m${i + 1} synced`, async () => (await c.measure()).synced.includes(`m${i + 1}`));
        idle.push(await steady(c, i + 1));
      }
    } finally {
      await c.stop();
    }
    printTable('1. idle members (no objects)', idle);

    // 2. OBJECTS FleetConfigs, rolled out to each member as it is engaged.
    const ns = await createTestNamespace(hubTransport, 'mc-bench');
    const configs = new ResourceClient<FleetConfig>(hubTransport, fleetConfigResource, ns);
    const payload = 'x'.repeat(256);
    await forEachConcurrently(OBJECTS, 32, async (i) => {
      await configs.create({ apiVersion: 'fleet.kubegen.io/v1alpha1', kind: 'FleetConfig', metadata: { name: `cfg-${i}`, namespace: ns }, spec: { data: { index: String(i), payload } } });
    });
    const loaded: Row[] = [];
    c = new Controller(hub.kubeconfigPath, ns);
    try {
      await sleep(SETTLE_MS);
      loaded.push(await steady(c, 0));
      for (let i = 0; i < MEMBERS; i++) {
        const name = `m${i + 1}`;
        const member = new ResourceClient<KubeObject>(members[i]!.transport(), MEMBER_CONFIG_MAP, ns);
        const before = await c.measure();
        await engage(ns, i);
        await waitFor(`${OBJECTS} objects in ${name} and their status entries in the hub`, async () => {
          if (((await member.list()).items ?? []).length < OBJECTS) return false;
          const items = (await configs.list()).items ?? [];
          return items.every((f) => f.status?.clusters?.some((e) => e.name === name && e.synced));
        });
        const after = await c.measure();
        const row = await steady(c, i + 1);
        loaded.push({ ...row, engageCpuS: (after.cpuMicros - before.cpuAfterGcMicros) / 1e6, engageS: (after.at - before.at) / 1_000 });
      }
    } finally {
      await c.stop();
    }
    printTable(`2. members with ${OBJECTS} objects each (a MemberConfigMap per FleetConfig, cached in the member lane)`, loaded);
    console.log(`\nbench:multicluster done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all(members.map((m) => m.stop()));
    await hub.stop();
  }
}

await main();
