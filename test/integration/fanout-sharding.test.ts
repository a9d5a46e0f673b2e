/**
 * The fanout example (a Batch owns `spec.tasks` Tasks) run as three sharded replicas (`--sharding`, 6 s shard
 * Leases), in each mode a server leads it to:
 * - **server** (CRD apiserver 1.36, `ShardedListAndWatch` on): every Batch reconciled; each replica's cache holds
 *   exactly the Batches whose UID the ring gives it, and their Tasks (`kubegen_shard_cached_objects`); no Batch
 *   carries an assignment label (no assignment writes); `kill -9` of a replica: its Batches are reconciled by the
 *   others within lease duration + 10 s; restarted, it gets them back (its cache refills to its share, and a spec
 *   change of its Batches is carried out); over the run no Batch is reconciled by two processes at once (from the
 *   debug `sync started` / `sync finished` lines);
 * - **client** (1.36 with the gate off): every replica caches every Batch, each reconciles its ranges, Tasks are
 *   cached where their owner is;
 * - **labels** (kube-apiserver 1.20): the sharder labels Batches, as before.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, Transport } from '@kubegen/runtime/internal/client/types.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { batchResource, taskResource } from '../../examples/fanout/src/generated/fanout.kubegen.io/v1alpha1/register.js';
import { syncIntervals, syncOverlaps, type SyncLog } from '../support/sync-overlaps.js';
import { REPO_ROOT } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureExampleBuilt, freePort, SampleControllerProcess } from './support/sample-controller-process.js';

const CRDS = ['batches', 'tasks'].map((p) => path.join(REPO_ROOT, `examples/fanout/config/crd/fanout.kubegen.io_${p}.yaml`));
const LEASE_DURATION_MS = 6_000;
const SHARD_LABEL = 'shard.kubegen.io/fanout';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until true; an error (a replica's port not open yet, a 429 from a CRD's storage starting) counts as false. */
async function eventually(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(200);
  }
}

/** Replicas of the fanout example against one namespace of one control plane. */
class Fleet {
  readonly procs = new Map<string, SampleControllerProcess>();
  readonly killedAt = new Map<SampleControllerProcess, number>();
  private readonly ports = new Map<string, number>();
  readonly batches: ResourceClient<KubeObject>;
  readonly tasks: ResourceClient<KubeObject>;

  constructor(
    private readonly kubeconfigPath: string,
    transport: Transport,
    readonly ns: string,
  ) {
    this.batches = new ResourceClient<KubeObject>(transport, batchResource, ns);
    this.tasks = new ResourceClient<KubeObject>(transport, taskResource, ns);
  }

  async start(id: string): Promise<SampleControllerProcess> {
    const port = this.ports.get(id) ?? (await freePort());
    this.ports.set(id, port);
    const p = new SampleControllerProcess(id, [
      `--kubeconfig=${this.kubeconfigPath}`, `--namespace=${this.ns}`, '--workers=2', '--sharding', `--identity=${id}`,
      `--shard-lease-duration=${LEASE_DURATION_MS / 1000}s`, '--shard-renew-deadline=4s', '--shard-retry-period=1s',
      `--metrics-bind-address=127.0.0.1:${port}`, '--health-probe-bind-address=0', '--log-level=debug',
    ], {}, ensureExampleBuilt('fanout'));
    this.procs.set(id, p);
    return p;
  }

  async kill(id: string): Promise<void> {
    const p = this.procs.get(id)!;
    p.child.kill('SIGKILL');
    await p.exited;
    this.killedAt.set(p, Date.now());
    this.procs.delete(id);
  }

  /** The mode each replica logged at start. */
  async modes(): Promise<string[]> {
    return Promise.all([...this.procs.values()].map(async (p) => (await p.waitForLog((l) => l.msg === 'running as a shard', 'the sharding mode')).mode as string));
  }

  async createBatches(count: number, tasks: number): Promise<void> {
    for (let i = 0; i < count; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, j) =>
        this.batches.create({ apiVersion: 'fanout.kubegen.io/v1alpha1', kind: 'Batch', metadata: { name: `b-${i + j}` }, spec: { tasks } } as KubeObject)));
    }
  }

  async list(): Promise<KubeObject[]> {
    return (await this.batches.list()).items ?? [];
  }

  /** Every Batch's status says it has `want(batch)` Tasks for its current generation, and exactly those Tasks exist. */
  async converged(want: (b: KubeObject) => number = (b) => (b as { spec?: { tasks?: number } }).spec?.tasks ?? 0): Promise<boolean> {
    const [bs, ts] = [await this.list(), (await this.tasks.list()).items ?? []];
    const live = ts.filter((t) => !t.metadata?.deletionTimestamp);
    const byOwner = new Map<string, number>();
    for (const t of live) for (const r of t.metadata?.ownerReferences ?? []) byOwner.set(r.uid, (byOwner.get(r.uid) ?? 0) + 1);
    return bs.every((b) => {
      const s = (b as { status?: { readyTasks?: number; observedGeneration?: number } }).status;
      return s?.readyTasks === want(b) && s.observedGeneration === b.metadata?.generation && byOwner.get(b.metadata!.uid!) === want(b);
    });
  }

  /** `kubegen_shard_cached_objects` of replica `id` for `resource`. */
  async cached(id: string, resource: string): Promise<number | undefined> {
    const res = await fetch(`http://127.0.0.1:${this.ports.get(id)}/metrics`);
    return parsePrometheusText(await res.text()).find((m) => m.name === 'kubegen_shard_cached_objects' && m.labels['resource'] === resource)?.value;
  }

  /** The Batches the ring over `live` gives each replica, by UID. */
  async shares(live: readonly string[]): Promise<Map<string, KubeObject[]>> {
    const ring = new HashRing(live);
    const out = new Map(live.map((id) => [id, [] as KubeObject[]]));
    for (const b of await this.list()) out.get(ring.get(b.metadata!.uid!)!)!.push(b);
    return out;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs.values()].map((p) => p.kill()));
  }

  /** Pairs of syncs of one Batch by two processes that overlapped in time, and how many syncs there were. */
  overlaps(): { finished: number; overlaps: ReturnType<typeof syncOverlaps> } {
    const logs: SyncLog[] = [...this.procs.values(), ...this.killedAt.keys()].map((p) => ({
      proc: `${p.name}#${p.child.pid}`, lines: p.lines, openEnd: this.killedAt.get(p) ?? Date.now(),
    }));
    const { byKey, finished } = syncIntervals(logs);
    return { finished, overlaps: syncOverlaps(byKey) };
  }
}

describe('fanout sharded by the server (CRD apiserver 1.36, ShardedListAndWatch on)', () => {
  const IDS = ['r0', 'r1', 'r2'];
  const COUNT = 150;
  let env: TestEnv;
  let fleet: Fleet;

  before(async () => {
    env = await sharedEnv({ profile: 'crd-only', crdPaths: CRDS });
    fleet = new Fleet(env.kubeconfigPath, env.transport, await env.newNamespace('fanout-server'));
  });
  after(async () => {
    await fleet?.stop();
    await env?.release();
  });

  it('reconciles every Batch; each replica caches exactly the Batches its ranges hold, and their Tasks; no assignment writes', async () => {
    await Promise.all(IDS.map((id) => fleet.start(id)));
    assert.deepEqual(await fleet.modes(), ['server', 'server', 'server']);
    const t0 = performance.now();
    await fleet.createBatches(COUNT, 2);
    await eventually('every Batch with its 2 Tasks', 60_000, () => fleet.converged());
    process.stdout.write(`# ${COUNT} Batches, ${COUNT * 2} Tasks reconciled by 3 replicas in ${Math.round(performance.now() - t0)} ms\n`);
    const shares = await fleet.shares(IDS);
    await eventually('each replica\'s cache to hold its share', 15_000, async () => {
      for (const id of IDS) {
        if ((await fleet.cached(id, 'batches')) !== shares.get(id)!.length) return false;
        if ((await fleet.cached(id, 'tasks')) !== shares.get(id)!.length * 2) return false;
      }
      return true;
    });
    const counts = Object.fromEntries(IDS.map((id) => [id, shares.get(id)!.length]));
    process.stdout.write(`# Batches per replica (ring = caches): ${JSON.stringify(counts)}\n`);
    for (const id of IDS) assert.ok(Math.abs(shares.get(id)!.length / COUNT - 1 / 3) <= 0.15, `${id} holds ${shares.get(id)!.length} of ${COUNT}`);
    for (const b of await fleet.list()) assert.equal(b.metadata?.labels?.[SHARD_LABEL], undefined, `${b.metadata?.name} was labelled`);
  });

  it('kill -9 of a replica: its Batches are reconciled by the others within lease duration + 10 s; restarted, it takes them back', async () => {
    const victim = 'r1';
    const theirs = (await fleet.shares(IDS)).get(victim)!.map((b) => b.metadata!.name!);
    assert.ok(theirs.length > 0);
    await fleet.kill(victim);
    const t0 = performance.now();
    await Promise.all(theirs.map((name) => fleet.batches.patch(name, { type: 'merge', patch: { spec: { tasks: 3 } } })));
    await eventually('the killed replica\'s Batches grown to 3 Tasks by the others', LEASE_DURATION_MS + 10_000, () => fleet.converged());
    const took = Math.round(performance.now() - t0);
    process.stdout.write(`# kill -9 of ${victim} (${theirs.length} Batches): reconciled by the others after ${took} ms\n`);
    const survivors = IDS.filter((id) => id !== victim);
    const shares = await fleet.shares(survivors);
    await eventually('the survivors\' caches to hold the new shares', 15_000, async () => {
      for (const id of survivors) if ((await fleet.cached(id, 'batches')) !== shares.get(id)!.length) return false;
      return true;
    });

    await fleet.start(victim);
    const back = (await fleet.shares(IDS)).get(victim)!;
    await eventually('the returned replica\'s cache to hold its share again', LEASE_DURATION_MS * 2 + 15_000, async () => (await fleet.cached(victim, 'batches')) === back.length);
    await Promise.all(back.map((b) => fleet.batches.patch(b.metadata!.name!, { type: 'merge', patch: { spec: { tasks: 1 } } })));
    await eventually('its Batches shrunk to 1 Task', 30_000, () => fleet.converged());
    const byVictim = new Set(fleet.procs.get(victim)!.logged('sync finished').map((l) => l['resourceName']));
    const handled = back.filter((b) => byVictim.has(`${fleet.ns}/${b.metadata!.name}`)).length;
    assert.equal(handled, back.length, `the returned replica reconciled ${handled} of its ${back.length} Batches`);
  });

  it('no Batch was ever reconciled by two replicas at once', () => {
    const { finished, overlaps } = fleet.overlaps();
    assert.ok(finished > COUNT, `only ${finished} syncs logged`);
    assert.deepEqual(overlaps, [], `Batches reconciled concurrently: ${JSON.stringify(overlaps.slice(0, 5))}`);
    process.stdout.write(`# ${finished} syncs checked: no overlap\n`);
  });
});

describe('fanout sharded by the replicas (CRD apiserver 1.36, ShardedListAndWatch off)', () => {
  let envtest: Envtest;
  let fleet: Fleet;
  let transport: ReturnType<Envtest['transport']>;
  before(async () => {
    envtest = await Envtest.start({ profile: 'crd-only', crdPaths: CRDS, apiserverArgs: ['--feature-gates=ShardedListAndWatch=false'] });
    transport = envtest.transport();
    fleet = new Fleet(envtest.kubeconfigPath, transport, 'fanout-client');
  });
  after(async () => {
    await fleet?.stop();
    transport?.close();
    await envtest?.stop();
  });

  it('picks client mode: every replica caches every Batch, reconciles its ranges, and caches the Tasks of its Batches', async () => {
    const ids = ['c0', 'c1'];
    await Promise.all(ids.map((id) => fleet.start(id)));
    assert.deepEqual(await fleet.modes(), ['client', 'client']);
    await fleet.createBatches(20, 2);
    await eventually('every Batch with its 2 Tasks', 60_000, () => fleet.converged());
    const shares = await fleet.shares(ids);
    await eventually('caches: all Batches, the Tasks of its share', 15_000, async () => {
      for (const id of ids) {
        if ((await fleet.cached(id, 'batches')) !== 20 || (await fleet.cached(id, 'tasks')) !== shares.get(id)!.length * 2) return false;
      }
      return true;
    });
    for (const id of ids) {
      const mine = new Set(shares.get(id)!.map((b) => `${fleet.ns}/${b.metadata!.name}`));
      const synced = fleet.procs.get(id)!.logged('sync started').map((l) => l['resourceName'] as string);
      assert.ok(synced.length > 0 && synced.every((k) => mine.has(k)), `${id} reconciled a Batch outside its ranges`);
    }
  });
});

describe('fanout sharded by labels (kube-apiserver 1.20)', () => {
  let env: TestEnv;
  let fleet: Fleet;
  before(async () => {
    env = await sharedEnv({ crdPaths: CRDS });
    fleet = new Fleet(env.kubeconfigPath, env.transport, await env.newNamespace('fanout-labels'));
  });
  after(async () => {
    await fleet?.stop();
    await env?.release();
  });

  it('picks labels mode: the sharder labels each Batch with its replica, which reconciles it', async () => {
    const ids = ['l0', 'l1'];
    await Promise.all(ids.map((id) => fleet.start(id)));
    assert.deepEqual(await fleet.modes(), ['labels', 'labels']);
    await fleet.createBatches(20, 2);
    await eventually('every Batch labelled and with its 2 Tasks', 60_000, async () =>
      (await fleet.converged()) && (await fleet.list()).every((b) => ids.includes(b.metadata?.labels?.[SHARD_LABEL] ?? '')));
  });
});
