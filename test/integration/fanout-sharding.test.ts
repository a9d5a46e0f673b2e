/**
 * The fanout example (a Batch owns `spec.tasks` Tasks) run as three sharded replicas (`--sharding`, 6 s shard
 * Leases), 150 Batches, the same tests in each mode a server leads it to — **server** (CRD apiserver 1.36,
 * `ShardedListAndWatch` on), **client** (1.36 with the gate off), **labels** (kube-apiserver 1.20):
 * - every Batch reconciled, each replica handling the share the ring gives it by UID (a third ±15 % of its buckets)
 *   and nothing else; its cache (`kubegen_shard_cached_objects`) holds exactly those Batches (client mode: every Batch) and their Tasks;
 *   no Batch carries an assignment label except on the label path; started together, no replica of the range modes
 *   takes the whole ring for a moment (the join window);
 * - `kill -9` of a replica: its Batches are reconciled by the others within lease duration + 10 s; restarted, it
 *   takes them back (its cache refills to its share, and it carries out a spec change of each of them);
 * - over the run no Batch is reconciled by two processes at once (the debug `sync started` / `sync finished` lines).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, Transport } from '@kubegen/runtime/internal/client/types.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { batchResource, taskResource } from '../../examples/fanout/src/generated/fanout.kubegen.io/v1alpha1/register.js';
import { syncIntervals, syncOverlaps, type SyncLog } from '../support/sync-overlaps.js';
import { REPO_ROOT } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureExampleBuilt, freePort, SampleControllerProcess, type LogLine } from './support/sample-controller-process.js';

const CRDS = ['batches', 'tasks'].map((p) => path.join(REPO_ROOT, `examples/fanout/config/crd/fanout.kubegen.io_${p}.yaml`));
const LEASE_DURATION_MS = 6_000;
const SHARD_LABEL = 'shard.kubegen.io/fanout';

/** Polls `check` until true (the envtest `eventually`: an error — a replica's port not open yet, a 429 from a CRD's storage starting — is retried like a false). */
function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  return eventually(async () => assert.ok(await check(), `waiting for ${what}`), { timeoutMs, intervalMs: 200 });
}

/** Replicas of the fanout example against one namespace of one control plane. */
class Fleet {
  readonly procs = new Map<string, SampleControllerProcess>();
  readonly killedAt = new Map<SampleControllerProcess, number>();
  private readonly ports = new Map<string, number>();
  readonly batches: ResourceClient<KubeObject>;
  /** Tasks per Batch while every Batch asks for the same number (cache checks). */
  tasksPer = 2;
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

  /**
   * Until the ring has every one of `ids`: each replica's last change of its buckets (`activated buckets` or
   * `releasing buckets`) has all of them as members and leaves it exactly its buckets of that ring (range modes), or
   * the sharder counts them all live (labels). Before that a Batch may go to the replicas already there.
   */
  async waitForRing(ids: readonly string[], mode: string): Promise<void> {
    const all = (l: LogLine, field: string): boolean => Array.isArray(l[field]) && ids.every((id) => (l[field] as string[]).includes(id));
    if (mode === 'labels') {
      await until('the sharder to count every replica live', 30_000, async () => [...this.procs.values()].some((p) => p.logged('shard states changed').some((l) => all(l, 'live'))));
      return;
    }
    const ring = new HashRing(ids);
    await until('every replica to hold exactly its buckets of the full ring', 30_000, async () =>
      [...this.procs.entries()].every(([id, p]) => {
        const last = p.lines.filter((l) => l.msg === 'activated buckets' || l.msg === 'releasing buckets').at(-1);
        return last !== undefined && all(last, 'members') && last['active'] === ring.bucketsOf(id).length;
      }));
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

  /** The identity holding the label path's sharder Lease. */
  async sharderHolder(): Promise<string | undefined> {
    const leases = new ResourceClient<KubeObject>(this.batches.transport, builtinResources.leases, this.ns);
    return ((await leases.get('fanout-sharder')) as { spec?: { holderIdentity?: string } }).spec?.holderIdentity;
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

interface ModeCase {
  title: string;
  mode: 'server' | 'client' | 'labels';
  /** The control plane and a namespace on it; `stop` gives them back. */
  setup(): Promise<{ kubeconfigPath: string; transport: Transport; ns: string; stop(): Promise<void> }>;
}

const CASES: ModeCase[] = [
  {
    title: 'CRD apiserver 1.36, ShardedListAndWatch on: the server filters by shard selector',
    mode: 'server',
    async setup() {
      const env = await sharedEnv({ profile: 'crd-only', crdPaths: CRDS });
      return { kubeconfigPath: env.kubeconfigPath, transport: env.transport, ns: await env.newNamespace('fanout-server'), stop: () => env.release() };
    },
  },
  {
    title: 'CRD apiserver 1.36, ShardedListAndWatch off: the replicas filter the same ranges',
    mode: 'client',
    async setup() {
      const envtest = await Envtest.start({ profile: 'crd-only', crdPaths: CRDS, apiserverArgs: ['--feature-gates=ShardedListAndWatch=false'] });
      const transport = envtest.transport();
      return { kubeconfigPath: envtest.kubeconfigPath, transport, ns: 'fanout-client', stop: async () => { transport.close(); await envtest.stop(); } };
    },
  },
  {
    title: 'kube-apiserver 1.20: the sharder labels objects',
    mode: 'labels',
    async setup() {
      const env = await sharedEnv({ crdPaths: CRDS });
      return { kubeconfigPath: env.kubeconfigPath, transport: env.transport, ns: await env.newNamespace('fanout-labels'), stop: () => env.release() };
    },
  },
];

for (const c of CASES) {
  describe(`fanout sharded in ${c.mode} mode (${c.title})`, () => {
    const IDS = ['r0', 'r1', 'r2'];
    const COUNT = 150;
    let fleet: Fleet;
    let stop: (() => Promise<void>) | undefined;

    before(async () => {
      const env = await c.setup();
      stop = env.stop;
      fleet = new Fleet(env.kubeconfigPath, env.transport, env.ns);
    });
    after(async () => {
      await fleet?.stop();
      await stop?.();
    });

    /** What each replica's cache should hold once the ring over `live` is in force. */
    async function cachesHoldShares(live: readonly string[]): Promise<boolean> {
      const shares = await fleet.shares(live);
      for (const id of live) {
        const mine = shares.get(id)!.length;
        // client mode lists every Batch; the Tasks follow their owner's bucket in every mode.
        if ((await fleet.cached(id, 'batches')) !== (c.mode === 'client' ? COUNT : mine)) return false;
        if ((await fleet.cached(id, 'tasks')) !== mine * fleet.tasksPer) return false;
      }
      return true;
    }

    it('reconciles every Batch; each replica holds a third of them by the ring, and caches what its mode says', async () => {
      await Promise.all(IDS.map((id) => fleet.start(id)));
      assert.deepEqual(await fleet.modes(), [c.mode, c.mode, c.mode]);
      await fleet.waitForRing(IDS, c.mode);
      if (c.mode !== 'labels') {
        // Started together, no replica takes the whole ring for a moment before the others' Leases appear (the join
        // window); one replica's late start may give the first two halves of it for a moment.
        for (const id of IDS) {
          const most = Math.max(0, ...fleet.procs.get(id)!.logged('activated buckets').map((l) => Number(l['active'])));
          assert.ok(most > 0 && most <= 192, `${id} had ${most} of 256 buckets active at once`);
        }
      }
      const t0 = performance.now();
      await fleet.createBatches(COUNT, 2);
      await until('every Batch with its 2 Tasks', 90_000, () => fleet.converged());
      process.stdout.write(`# ${c.mode}: ${COUNT} Batches, ${COUNT * 2} Tasks reconciled by 3 replicas in ${Math.round(performance.now() - t0)} ms\n`);
      await until('each replica\'s cache to hold its share', 20_000, () => cachesHoldShares(IDS));
      const shares = await fleet.shares(IDS);
      process.stdout.write(`# ${c.mode}: Batches per replica ${JSON.stringify(Object.fromEntries(IDS.map((id) => [id, shares.get(id)!.length])))}\n`);
      // A third (±15 %) is what the ring gives each replica: its share of the 256 buckets. How many of 150 random
      // UIDs fall into it is sampling (a replica can draw 73 of them about once in 2,000 runs); each must hold some.
      const ring = new HashRing(IDS);
      for (const id of IDS) {
        assert.ok(Math.abs(ring.bucketsOf(id).length / 256 - 1 / 3) <= 0.15, `${id} holds ${ring.bucketsOf(id).length} of 256 buckets`);
        assert.ok(shares.get(id)!.length > 0, `${id} holds no Batch`);
      }
      const labelled = (await fleet.list()).filter((b) => b.metadata?.labels?.[SHARD_LABEL] !== undefined).length;
      // Assignment writes: only the label path makes them.
      assert.equal(labelled, c.mode === 'labels' ? COUNT : 0);
      for (const id of IDS) {
        const mine = new Set(shares.get(id)!.map((b) => `${fleet.ns}/${b.metadata!.name}`));
        const synced = fleet.procs.get(id)!.logged('sync started').map((l) => l['resourceName'] as string);
        assert.ok(synced.length > 0 && synced.every((k) => mine.has(k)), `${id} reconciled a Batch outside its share`);
      }
    });

    it(`kill -9 of a replica: its Batches are reconciled by the others within lease duration + ${c.mode === 'labels' ? 20 : 10} s; restarted, it takes them back`, async () => {
      // The label path's sharder moves objects; killing it is the sharding test's case: kill another replica.
      const sharder = c.mode === 'labels' ? await fleet.sharderHolder() : undefined;
      const victim = IDS.find((id) => id !== sharder && id !== 'r0') ?? 'r1';
      const theirs = (await fleet.shares(IDS)).get(victim)!.map((b) => b.metadata!.name!);
      assert.ok(theirs.length > 0);
      await fleet.kill(victim);
      const t0 = performance.now();
      await Promise.all(theirs.map((name) => fleet.batches.patch(name, { type: 'merge', patch: { spec: { tasks: 3 } } })));
      fleet.tasksPer = 0; // mixed now: the cache check below is skipped until all Batches agree again
      // The range modes take the dead shard's buckets with no write; the label path's sharder first relabels each of
      // its Batches and their Tasks (paced label writes), so it gets 10 s more on a loaded machine.
      const bound = LEASE_DURATION_MS + (c.mode === 'labels' ? 20_000 : 10_000);
      await until('the killed replica\'s Batches grown to 3 Tasks by the others', bound, () => fleet.converged());
      process.stdout.write(`# ${c.mode}: kill -9 of ${victim} (${theirs.length} Batches): reconciled by the others after ${Math.round(performance.now() - t0)} ms\n`);
      const survivors = IDS.filter((id) => id !== victim);
      const shares = await fleet.shares(survivors);
      await until('the survivors\' caches to hold the new shares', 20_000, async () => {
        for (const id of survivors) if ((await fleet.cached(id, 'batches')) !== (c.mode === 'client' ? COUNT : shares.get(id)!.length)) return false;
        return true;
      });

      await fleet.start(victim);
      const back = (await fleet.shares(IDS)).get(victim)!;
      await until('the returned replica\'s cache to hold its share again', LEASE_DURATION_MS * 2 + 20_000, async () =>
        (await fleet.cached(victim, 'batches')) === (c.mode === 'client' ? COUNT : back.length));
      await Promise.all((await fleet.list()).map((b) => fleet.batches.patch(b.metadata!.name!, { type: 'merge', patch: { spec: { tasks: 1 } } })));
      fleet.tasksPer = 1;
      await until('every Batch shrunk to 1 Task', 45_000, () => fleet.converged());
      await until('each replica\'s cache to hold its share', 20_000, () => cachesHoldShares(IDS));
      const byVictim = new Set(fleet.procs.get(victim)!.logged('sync finished').map((l) => l['resourceName']));
      const handled = back.filter((b) => byVictim.has(`${fleet.ns}/${b.metadata!.name}`)).length;
      assert.equal(handled, back.length, `the returned replica reconciled ${handled} of its ${back.length} Batches`);
    });

    it('no Batch was ever reconciled by two replicas at once', () => {
      const { finished, overlaps } = fleet.overlaps();
      assert.ok(finished > COUNT, `only ${finished} syncs logged`);
      assert.deepEqual(overlaps, [], `Batches reconciled concurrently: ${JSON.stringify(overlaps.slice(0, 5))}`);
      process.stdout.write(`# ${c.mode}: ${finished} syncs checked: no overlap\n`);
    });
  });
}
