/**
 * Sharding across three sample-controller processes (`--sharding`, distinct `--identity`, 6 s shard Leases) on a
 * real apiserver, 150 Foos:
 * 1. every Foo is assigned (the label is the ring's choice), reconciled (Deployment in the same shard, status
 *    written), and each replica holds its share — counted from the labels and from each replica's cache
 *    (`kubegen_shard_cached_objects` on its /metrics);
 * 2. `kill -9` of a replica that is not the sharder: its Foos move to the others and are reconciled (a spec change
 *    made right after the kill reaches their Deployments) within lease duration + 10 s;
 * 3. restarted, it gets its Foos back through the drain handshake: each Foo that moves back is seen (by a watch)
 *    with the drain label on its old shard, then unassigned, then on the returned shard, and is reconciled there;
 * 4. `kill -9` of the replica running the sharder, replaced by one with a new identity (a Deployment's new pod): a
 *    survivor takes the sharder Lease, every Foo ends up on the survivors and the replacement and is reconciled, and
 *    the dead shard's fenced Lease is deleted once its Foos have left;
 * 5. over the whole run, no Foo is reconciled by two processes at once (from every replica's debug `sync started` /
 *    `sync finished` lines; a killed replica's open sync ends at the kill).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { parsePrometheusText } from '@kubegen/runtime/internal/testing/loadtest/prometheus-text.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import { fooResource } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/register.js';
import { syncIntervals, syncOverlaps, type SyncLog } from '../support/sync-overlaps.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureSampleControllerBuilt, freePort, SampleControllerProcess } from './support/sample-controller-process.js';
import { sleep } from '../support/wait.js';

const COUNT = 150;
const IDS = ['shard-0', 'shard-1', 'shard-2'];
const SHARD = 'shard.kubegen.io/sample-controller';
const DRAIN = 'drain.shard.kubegen.io/sample-controller';
const LEASE_DURATION_MS = 6_000;
/** Allowed deviation of a shard's count from a third, as a fraction of all Foos (150 keys are a small sample). */
const BALANCE_TOLERANCE = 0.15;


async function eventually(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (performance.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

describe('sharding across sample-controller processes (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let kube: KubeClientset;
  let sample: Clientset;
  const procs = new Map<string, SampleControllerProcess>();
  const ports = new Map<string, number>();
  const killedAt = new Map<SampleControllerProcess, number>();
  /** Every version of every Foo the test's own informer saw: [shard label, drain label] in order. */
  const history = new Map<string, { shard: string | undefined; drain: boolean }[]>();
  let watcher: SharedInformerFactory;
  let victim: string;

  before(async () => {
    ensureSampleControllerBuilt();
    env = await sharedEnv();
    ns = await env.newNamespace('sharding');
    kube = new KubeClientset(env.transport);
    sample = new Clientset(env.transport);
    watcher = new SharedInformerFactory(env.transport, { namespace: ns, logger: nullLogger });
    const record = (f: KubeObject): void => {
      const key = `${ns}/${f.metadata?.name}`;
      const h = history.get(key) ?? [];
      const v = { shard: f.metadata?.labels?.[SHARD], drain: f.metadata?.labels?.[DRAIN] !== undefined };
      const last = h[h.length - 1];
      if (!last || last.shard !== v.shard || last.drain !== v.drain) h.push(v);
      history.set(key, h);
    };
    watcher.informerFor(fooResource).addEventHandler({ onAdd: record, onUpdate: (_o, f) => record(f) });
    watcher.start();
  });

  after(async () => {
    await Promise.all([...procs.values()].map((p) => p.kill()));
    await watcher?.shutdown();
    await env?.release();
  });

  async function start(id: string): Promise<SampleControllerProcess> {
    const port = ports.get(id) ?? (await freePort());
    ports.set(id, port);
    const p = new SampleControllerProcess(id, [
      `--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, '--workers=2', '--sharding', `--identity=${id}`,
      `--sharding-namespace=${ns}`, `--shard-lease-duration=${LEASE_DURATION_MS / 1000}s`, '--shard-renew-deadline=4s',
      '--shard-retry-period=1s', `--metrics-bind-address=127.0.0.1:${port}`, '--log-level=debug',
    ]);
    procs.set(id, p);
    return p;
  }

  const foos = async (): Promise<KubeObject[]> => (await sample.samplecontrollerV1alpha1.foos(ns).list()).items ?? [];
  const deployments = async () => (await kube.appsV1.deployments(ns).list()).items ?? [];
  const shardOf = (o: KubeObject): string | undefined => o.metadata?.labels?.[SHARD];

  async function cachedFoos(id: string): Promise<number | undefined> {
    const res = await fetch(`http://127.0.0.1:${ports.get(id)}/metrics`);
    const s = parsePrometheusText(await res.text()).find((m) => m.name === 'kubegen_shard_cached_objects' && m.labels['resource'] === 'foos');
    return s?.value;
  }

  /** Every Foo labelled by the ring over `live`, its Deployment in the same shard, its status written. */
  async function converged(live: string[]): Promise<boolean> {
    const ring = new HashRing(live);
    const [fs, ds] = [await foos(), await deployments()];
    if (fs.length !== COUNT || ds.length !== COUNT) return false;
    const deploymentShard = new Map(ds.map((d) => [d.metadata?.name, shardOf(d)]));
    return fs.every((f) => {
      const key = `${ns}/${f.metadata?.name}`;
      const status = (f as { status?: { availableReplicas?: number } }).status;
      return shardOf(f) === ring.get(f.metadata?.uid ?? key) && f.metadata?.labels?.[DRAIN] === undefined && deploymentShard.get(`${f.metadata?.name}-deploy`) === shardOf(f) && status?.availableReplicas !== undefined;
    });
  }

  it('assigns every Foo by the ring, reconciles it in its shard, and each replica caches its share', async () => {
    const started = await Promise.all(IDS.map((id) => start(id)));
    await Promise.all(started.map((p) => p.waitForLog((l) => l.msg === 'shard lease acquired', 'shard lease')));
    const t0 = performance.now();
    for (let i = 0; i < COUNT; i += 25) {
      await Promise.all(Array.from({ length: Math.min(25, COUNT - i) }, (_, j) =>
        sample.samplecontrollerV1alpha1.foos(ns).create({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: `foo-${i + j}` }, spec: { deploymentName: `foo-${i + j}-deploy`, replicas: 1 } })));
    }
    await eventually('all Foos assigned and reconciled', 60_000, () => converged(IDS));
    process.stdout.write(`# 150 Foos assigned and reconciled in ${Math.round(performance.now() - t0)} ms\n`);
    const byLabel = new Map(IDS.map((id) => [id, 0]));
    for (const f of await foos()) byLabel.set(shardOf(f)!, (byLabel.get(shardOf(f)!) ?? 0) + 1);
    await eventually('each replica\'s cache to hold its Foos', 10_000, async () => {
      for (const id of IDS) if ((await cachedFoos(id)) !== byLabel.get(id)) return false;
      return true;
    });
    process.stdout.write(`# Foos per shard (labels = caches): ${JSON.stringify(Object.fromEntries(byLabel))}\n`);
    for (const [id, n] of byLabel) {
      assert.ok(Math.abs(n - COUNT / 3) <= COUNT * BALANCE_TOLERANCE, `${id} holds ${n} of ${COUNT} Foos`);
    }
  });

  it('kill -9 of a shard: its Foos are reassigned and reconciled by the others within lease duration + 10 s', async () => {
    const sharder = (await kube.coordinationV1.leases(ns).get('sample-controller-sharder')).spec?.holderIdentity;
    victim = IDS.find((id) => id !== sharder)!;
    const theirs = (await foos()).filter((f) => shardOf(f) === victim).map((f) => f.metadata!.name!);
    assert.ok(theirs.length > 0);
    const p = procs.get(victim)!;
    const t0 = performance.now();
    p.child.kill('SIGKILL');
    await p.exited;
    killedAt.set(p, Date.now());
    await Promise.all(theirs.map((name) =>
      sample.samplecontrollerV1alpha1.foos(ns).patch(name, { type: 'merge', patch: { spec: { replicas: 2 } } })));
    const survivors = IDS.filter((id) => id !== victim);
    await eventually('the killed shard\'s Foos moved and their Deployments following the spec change', LEASE_DURATION_MS + 10_000, async () => {
      const ds = new Map((await deployments()).map((d) => [d.metadata?.name, d]));
      return theirs.every((name) => ds.get(`${name}-deploy`)?.spec?.replicas === 2) && (await converged(survivors));
    });
    const took = Math.round(performance.now() - t0);
    process.stdout.write(`# kill -9 of ${victim} (${theirs.length} Foos): moved and reconciled after ${took} ms\n`);
    assert.ok(took > LEASE_DURATION_MS - 2_000, `moved after ${took} ms: the dead shard's lease was not respected`);
  });

  it('a returning shard gets its Foos back through the drain handshake, and they are reconciled there', async () => {
    const listed = await foos();
    const before = new Map(listed.map((f) => [`${ns}/${f.metadata!.name}`, shardOf(f)]));
    // The ring places an object by its UID (the hash KEP-5866 shards by).
    const ring = new HashRing(IDS);
    const returning = listed.filter((f) => ring.get(f.metadata!.uid!) === victim).map((f) => `${ns}/${f.metadata!.name}`);
    const t0 = performance.now();
    await start(victim);
    await eventually('the returned shard to get its Foos back', LEASE_DURATION_MS * 2 + 20_000, () => converged(IDS));
    process.stdout.write(`# restart of ${victim}: ${returning.length} Foos back after ${Math.round(performance.now() - t0)} ms\n`);
    for (const key of returning) {
      const h = history.get(key)!;
      const from = before.get(key);
      // ... {from, no drain} → {from, drain} → {unassigned} → {victim}: the drain handshake, in this order.
      const i = h.findLastIndex((v) => v.shard === from && v.drain);
      assert.ok(i >= 0, `${key} never carried the drain label on ${from}: ${JSON.stringify(h)}`);
      assert.deepEqual(h.slice(i + 1), [{ shard: undefined, drain: false }, { shard: victim, drain: false }], `${key}: ${JSON.stringify(h)}`);
    }
    // Reconciled by the returned shard: a spec change reaches their Deployments.
    const names = returning.map((k) => k.split('/')[1]!);
    await Promise.all(names.map((name) => sample.samplecontrollerV1alpha1.foos(ns).patch(name, { type: 'merge', patch: { spec: { replicas: 3 } } })));
    await eventually('Deployments of the returned Foos following the spec', 20_000, async () => {
      const ds = new Map((await deployments()).map((d) => [d.metadata?.name, d]));
      return names.every((name) => ds.get(`${name}-deploy`)?.spec?.replicas === 3);
    });
    const synced = procs.get(victim)!.lines.filter((l) => l.msg === 'sync finished').map((l) => l['resourceName']);
    for (const key of returning) assert.ok(synced.includes(key), `${key} was not synced by ${victim}`);
    const sharder = (await kube.coordinationV1.leases(ns).get('sample-controller-sharder')).spec?.holderIdentity!;
    const metrics = parsePrometheusText(await (await fetch(`http://127.0.0.1:${ports.get(sharder)}/metrics`)).text());
    const drains = metrics.find((m) => m.name === 'kubegen_shard_reassignments_total' && m.labels['reason'] === 'drain')?.value ?? 0;
    assert.ok(drains >= returning.length, `kubegen_shard_reassignments_total{reason="drain"} = ${drains}`);
  });

  it('kill -9 of the sharder: another replica takes the sharder over; a replacement with a new identity gets a share; the dead shard\'s Lease is deleted', async () => {
    const leases = kube.coordinationV1.leases(ns);
    const sharder = (await leases.get('sample-controller-sharder')).spec?.holderIdentity!;
    assert.ok(IDS.includes(sharder), `sharder held by ${sharder}`);
    const p = procs.get(sharder)!;
    const t0 = performance.now();
    p.child.kill('SIGKILL');
    await p.exited;
    killedAt.set(p, Date.now());
    procs.delete(sharder);
    // As a Deployment would: the replacement pod has a new name, so a new identity.
    await start('shard-3');
    const live = [...IDS.filter((id) => id !== sharder), 'shard-3'];
    await eventually('every Foo on the survivors and the replacement, reconciled', LEASE_DURATION_MS * 2 + 30_000, () => converged(live));
    process.stdout.write(`# kill -9 of the sharder ${sharder}: ${COUNT} Foos on ${live.join(', ')} after ${Math.round(performance.now() - t0)} ms\n`);
    const newSharder = (await leases.get('sample-controller-sharder')).spec?.holderIdentity;
    assert.ok(newSharder !== undefined && live.includes(newSharder), `sharder now held by ${newSharder}`);
    await eventually('the dead shard\'s fenced Lease deleted', LEASE_DURATION_MS + 10_000, async () =>
      !(await leases.list()).items.some((l) => l.metadata?.name === `sample-controller-shard-${sharder}`));
    const names = (await leases.list()).items.map((l) => l.metadata?.name).sort();
    assert.deepEqual(names, ['sample-controller-sharder', ...live.map((id) => `sample-controller-shard-${id}`)].sort());
  });

  it('no Foo was ever reconciled by two shards at once', () => {
    const logs: SyncLog[] = [...procs.values(), ...killedAt.keys()].map((p) => ({
      proc: `${p.name}#${p.child.pid}`, lines: p.lines, openEnd: killedAt.get(p) ?? Date.now(),
    }));
    const { byKey, finished } = syncIntervals(logs);
    assert.ok(finished > COUNT, `only ${finished} syncs logged`);
    const overlaps = syncOverlaps(byKey);
    assert.deepEqual(overlaps, [], `Foos reconciled concurrently by two shards: ${JSON.stringify(overlaps.slice(0, 5))}`);
    process.stdout.write(`# ${finished} syncs of ${byKey.size} Foos by ${logs.length} processes checked: no overlap\n`);
  });
});
