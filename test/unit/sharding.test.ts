/**
 * The sharder's decisions against the fake transport (no apiserver) on a FakeClock: unassigned objects are
 * assigned by the ring and their controlled Deployments follow; a joining shard gets objects through the drain
 * handshake (drain label only, the assignment after the acknowledgement); a released or expired shard Lease is
 * fenced and its objects move directly; a renewing shard keeps its objects; Conflicts are decided again. Plus the
 * decision table itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Deployment, Lease } from '@kubegen/runtime/internal/builtin/types.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { formatMicroTime } from '@kubegen/runtime/internal/leaderelection/lease-lock.js';
import { decideAssignment } from '@kubegen/runtime/internal/sharding/assignment.js';
import { FENCE_HOLDER_PREFIX } from '@kubegen/runtime/internal/sharding/lease-tracker.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { Sharder } from '@kubegen/runtime/internal/sharding/sharder.js';
import { conflict } from '@kubegen/runtime/internal/testing/fake/fake-errors.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { fooResource } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/register.js';

const RING = 'foos';
const NS = 'default';
const LEASE_NS = 'kube-system';
const SHARD = 'shard.kubegen.io/foos';
const DRAIN = 'drain.shard.kubegen.io/foos';
const START = Date.parse('2024-05-01T00:00:00Z');
const N = 30;

const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

function lease(identity: string, holder = identity, durationSeconds = 10): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: `${RING}-shard-${identity}`, namespace: LEASE_NS, labels: { 'shard.kubegen.io/ring': RING } },
    spec: { holderIdentity: holder, leaseDurationSeconds: durationSeconds, renewTime: formatMicroTime(START) },
  };
}

function foo(i: number, shard?: string): KubeObject & { spec: unknown } {
  return {
    apiVersion: 'samplecontroller.k8s.io/v1alpha1',
    kind: 'Foo',
    metadata: { name: `foo-${i}`, namespace: NS, uid: `uid-${i}`, ...(shard ? { labels: { [SHARD]: shard } } : {}) },
    spec: { deploymentName: `foo-${i}-deploy`, replicas: 1 },
  };
}

function deployment(i: number, shard?: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `foo-${i}-deploy`,
      namespace: NS,
      ...(shard ? { labels: { [SHARD]: shard } } : {}),
      ownerReferences: [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: `foo-${i}`, uid: `uid-${i}`, controller: true }],
    },
  };
}

const key = (i: number): string => `${NS}/foo-${i}`;
/** The ring hashes an object's UID (KEP-5866), which the fixtures set to `uid-<i>`. */
const uid = (i: number): string => `uid-${i}`;

interface Running {
  transport: FakeTransport;
  clock: FakeClock;
  registry: Registry;
  stop: () => Promise<void>;
}

function startSharder(objects: KubeObject[]): Running {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([builtinResources.leases, fooResource, builtinResources.deployments], ...objects);
  const registry = new Registry();
  const sharder = new Sharder({
    transport, ring: RING, identity: 'a', leaseNamespace: LEASE_NS, resource: fooResource,
    controlled: [builtinResources.deployments], clock, logger: nullLogger, registry, writeBurst: 10_000,
  });
  const abort = new AbortController();
  const done = sharder.run(abort.signal);
  return { transport, clock, registry, stop: async () => { abort.abort(); await done; } };
}

async function list<T extends KubeObject>(t: FakeTransport, resource: typeof fooResource, namespace = NS): Promise<T[]> {
  return ((await t.request({ verb: 'list', resource, namespace })) as { items: T[] }).items;
}

/** Steps the clock in `stepMs` steps, settling in between, until `cond` holds; fails after `maxMs` of clock time. */
async function until(r: Running, cond: () => Promise<boolean>, what: string, maxMs = 5_000, stepMs = 50): Promise<void> {
  for (let t = 0; t <= maxMs; t += stepMs) {
    await settle();
    if (await cond()) return;
    r.clock.step(stepMs);
  }
  assert.fail(`timed out (clock) waiting for ${what}`);
}

const labelsOf = async (r: Running): Promise<Map<string, Record<string, string>>> =>
  new Map((await list(r.transport, fooResource)).map((f) => [`${NS}/${f.metadata!.name}`, f.metadata?.labels ?? {}]));

async function metric(r: Running, name: string, labels: Record<string, string>): Promise<number> {
  const m = (await r.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = (m?.values as { value: number; labels: Record<string, string> }[] | undefined)?.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

describe('Sharder', () => {
  it('assigns unassigned objects by the ring over live shards; controlled Deployments follow their owner', async () => {
    const ids = ['a', 'b', 'c'];
    const ring = new HashRing(ids);
    const r = startSharder([...ids.map((id) => lease(id)), ...Array.from({ length: N }, (_, i) => foo(i)), ...Array.from({ length: N }, (_, i) => deployment(i))]);
    try {
      await until(r, async () => [...(await labelsOf(r)).values()].every((l) => l[SHARD]), 'every Foo assigned');
      const labels = await labelsOf(r);
      for (let i = 0; i < N; i++) assert.equal(labels.get(key(i))![SHARD], ring.get(uid(i)), key(i));
      await until(r, async () => (await list<Deployment>(r.transport, builtinResources.deployments)).every((d) => d.metadata?.labels?.[SHARD]), 'Deployments labelled');
      for (const d of await list<Deployment>(r.transport, builtinResources.deployments)) {
        assert.equal(d.metadata!.labels![SHARD], labels.get(`${NS}/${d.metadata!.ownerReferences![0]!.name}`)![SHARD]);
      }
      assert.equal(await metric(r, 'kubegen_shard_reassignments_total', { ring: RING, reason: 'new' }), N);
      assert.equal(await metric(r, 'kubegen_shard_live_shards', { ring: RING }), 3);
      let total = 0;
      for (const id of ids) total += await metric(r, 'kubegen_shard_objects', { ring: RING, shard: id });
      assert.equal(total, N);
    } finally {
      await r.stop();
    }
  });

  it('moves objects to a joining shard through the drain handshake only', async () => {
    const before = new HashRing(['a', 'b']);
    const after = new HashRing(['a', 'b', 'c']);
    const r = startSharder([lease('a'), lease('b'), ...Array.from({ length: N }, (_, i) => foo(i, before.get(uid(i)))), ...Array.from({ length: N }, (_, i) => deployment(i, before.get(uid(i))))]);
    try {
      await until(r, async () => (await metric(r, 'kubegen_shard_live_shards', { ring: RING })) === 2, 'two live shards');
      const moving = Array.from({ length: N }, (_, i) => i).filter((i) => after.get(uid(i)) === 'c');
      assert.ok(moving.length > 0);
      await r.transport.request({ verb: 'create', resource: builtinResources.leases, namespace: LEASE_NS, body: lease('c') });
      await until(r, async () => { const l = await labelsOf(r); return moving.every((i) => l.get(key(i))![DRAIN] === 'true'); }, 'drain labels');
      let labels = await labelsOf(r);
      for (let i = 0; i < N; i++) {
        assert.equal(labels.get(key(i))![SHARD], before.get(uid(i)), `${key(i)} must stay with its shard until it acknowledges`);
        if (!moving.includes(i)) assert.equal(labels.get(key(i))![DRAIN], undefined);
      }
      // The current shards acknowledge: both labels removed.
      for (const i of moving) {
        await r.transport.request({ verb: 'patch', resource: fooResource, namespace: NS, name: `foo-${i}`, patchType: 'merge', body: { metadata: { labels: { [SHARD]: null, [DRAIN]: null } } } });
      }
      await until(r, async () => { const l = await labelsOf(r); return moving.every((i) => l.get(key(i))![SHARD] === 'c'); }, 'assignment to c');
      labels = await labelsOf(r);
      for (const i of moving) assert.equal(labels.get(key(i))![DRAIN], undefined);
      await until(r, async () => (await list<Deployment>(r.transport, builtinResources.deployments)).filter((d) => d.metadata?.labels?.[SHARD] === 'c').length === moving.length, 'Deployments follow to c');
      assert.equal(await metric(r, 'kubegen_shard_reassignments_total', { ring: RING, reason: 'drain' }), moving.length);
      assert.equal(await metric(r, 'kubegen_shard_reassignments_total', { ring: RING, reason: 'new' }), 0, 'completing a drain is not a new assignment');
    } finally {
      await r.stop();
    }
  });

  it('fences a released shard Lease and moves its objects without a drain', async () => {
    const ring = new HashRing(['a', 'b', 'c']);
    const r = startSharder([lease('a'), lease('b'), lease('c'), ...Array.from({ length: N }, (_, i) => foo(i, ring.get(uid(i))))]);
    try {
      await until(r, async () => (await metric(r, 'kubegen_shard_live_shards', { ring: RING })) === 3, 'three live shards');
      const ofC = Array.from({ length: N }, (_, i) => i).filter((i) => ring.get(uid(i)) === 'c');
      await r.transport.request({ verb: 'update', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-c', body: lease('c', '', 1) });
      await until(r, async () => { const l = await labelsOf(r); return ofC.every((i) => ['a', 'b'].includes(l.get(key(i))![SHARD]!)); }, 'c\'s objects moved');
      const fenced = (await r.transport.request({ verb: 'get', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-c' })) as Lease;
      assert.ok(fenced.spec?.holderIdentity?.startsWith(FENCE_HOLDER_PREFIX), `fenced: ${fenced.spec?.holderIdentity}`);
      const labels = await labelsOf(r);
      const two = new HashRing(['a', 'b']);
      for (let i = 0; i < N; i++) assert.equal(labels.get(key(i))![SHARD], ring.get(uid(i)) === 'c' ? two.get(uid(i)) : ring.get(uid(i)));
      assert.equal(await metric(r, 'kubegen_shard_reassignments_total', { ring: RING, reason: 'dead' }), ofC.length);
      assert.equal(await metric(r, 'kubegen_shard_reassignments_total', { ring: RING, reason: 'drain' }), 0);
    } finally {
      await r.stop();
    }
  });

  it('deletes a fenced Lease once the fence lapsed and its shard has no objects left, not before', async () => {
    const ring = new HashRing(['a', 'c']);
    const r = startSharder([lease('a'), lease('c'), ...Array.from({ length: N }, (_, i) => foo(i, ring.get(uid(i))))]);
    const getC = async (): Promise<Lease | undefined> =>
      (await r.transport.request({ verb: 'list', resource: builtinResources.leases, namespace: LEASE_NS }) as { items: Lease[] }).items.find((l) => l.metadata?.name === 'foos-shard-c');
    // The moves away from c fail for now, so c keeps objects after its Lease is fenced.
    let blockMoves = true;
    r.transport.prependReactor('patch', 'foos', () => (blockMoves ? { handled: true, error: conflict(fooResource, 'foo', 'blocked by the test') } : undefined));
    try {
      await until(r, async () => (await metric(r, 'kubegen_shard_live_shards', { ring: RING })) === 2, 'two live shards');
      await r.transport.request({ verb: 'update', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-c', body: lease('c', '', 1) });
      await until(r, async () => (await getC())?.spec?.holderIdentity?.startsWith(FENCE_HOLDER_PREFIX) === true, 'c fenced');
      // Far past the fence's one-second duration: c still has objects, so its Lease stays.
      for (let t = 0; t < 5_000; t += 250) { r.clock.step(250); await settle(); }
      assert.ok((await getC()) !== undefined, 'a fenced Lease whose shard still has objects is kept');
      assert.ok([...(await labelsOf(r)).values()].some((l) => l[SHARD] === 'c'));
      blockMoves = false;
      await until(r, async () => (await getC()) === undefined, 'c\'s Lease deleted', 10_000, 250);
      assert.ok([...(await labelsOf(r)).values()].every((l) => l[SHARD] === 'a'), 'deleted only after every object left c');
      assert.equal((await r.transport.request({ verb: 'get', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-a' }) as Lease).spec?.holderIdentity, 'a', 'the live shard\'s Lease is untouched');
    } finally {
      await r.stop();
    }
  });

  it('declares a shard dead only after its Lease went unrenewed for leaseDuration on the sharder\'s clock', async () => {
    const ring = new HashRing(['a', 'b']);
    const r = startSharder([lease('a'), lease('b'), ...Array.from({ length: N }, (_, i) => foo(i, ring.get(uid(i))))]);
    try {
      await until(r, async () => (await metric(r, 'kubegen_shard_live_shards', { ring: RING })) === 2, 'two live shards');
      const renew = async (): Promise<void> => {
        const l = (await r.transport.request({ verb: 'get', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-a' })) as Lease;
        await r.transport.request({ verb: 'update', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-a', body: { ...l, spec: { ...l.spec, renewTime: formatMicroTime(r.clock.now()) } } });
      };
      // 9 s in, both still live; a renews.
      for (let t = 0; t < 9_000; t += 500) { r.clock.step(500); await settle(); }
      assert.equal(await metric(r, 'kubegen_shard_live_shards', { ring: RING }), 2);
      await renew();
      const labels = await labelsOf(r);
      for (let i = 0; i < N; i++) assert.equal(labels.get(key(i))![SHARD], ring.get(uid(i)), 'nothing moved while both were live');
      // b expires at 10 s (+ the check period); a renewed at 9 s and stays live.
      await until(r, async () => [...(await labelsOf(r)).values()].every((l) => l[SHARD] === 'a'), 'b\'s objects moved to a', 3_000);
      assert.ok(r.clock.now() - START >= 10_000, `moved after ${r.clock.now() - START} ms of clock time`);
      const a = (await r.transport.request({ verb: 'get', resource: builtinResources.leases, namespace: LEASE_NS, name: 'foos-shard-a' })) as Lease;
      assert.equal(a.spec?.holderIdentity, 'a');
      assert.equal(await metric(r, 'kubegen_shard_live_shards', { ring: RING }), 1);
    } finally {
      await r.stop();
    }
  });

  it('decides again after a Conflict on a label write', async () => {
    const r0 = { conflicts: 0 };
    const objects = [lease('a'), foo(1)];
    const r = startSharder(objects);
    r.transport.prependReactor('patch', 'foos', () => (r0.conflicts++ < 2 ? { handled: true, error: conflict(fooResource, 'foo-1', 'the object has been modified') } : undefined));
    try {
      await until(r, async () => (await labelsOf(r)).get(key(1))![SHARD] === 'a', 'assignment despite conflicts', 10_000);
      assert.ok(r0.conflicts >= 2);
    } finally {
      await r.stop();
    }
  });
});

describe('decideAssignment', () => {
  const states: Record<string, 'live' | 'dead' | 'uncertain'> = { a: 'live', b: 'live', d: 'dead', u: 'uncertain' };
  const stateOf = (id: string) => states[id] ?? 'dead';
  const decide = (current: string | undefined, draining: boolean, desired: string | undefined) => decideAssignment({ current, draining, desired, stateOf });
  it('covers every case of the table', () => {
    assert.deepEqual(decide(undefined, false, undefined), { action: 'wait' });
    assert.deepEqual(decide(undefined, false, 'a'), { action: 'assign', owner: 'a', from: undefined, reason: 'new' });
    assert.deepEqual(decide('u', false, 'a'), { action: 'wait' });
    assert.deepEqual(decide('d', true, 'a'), { action: 'assign', owner: 'a', from: 'd', reason: 'dead' });
    assert.deepEqual(decide('a', false, 'a'), { action: 'keep', owner: 'a' });
    assert.deepEqual(decide('a', true, 'a'), { action: 'cancelDrain', owner: 'a' });
    assert.deepEqual(decide('b', false, 'a'), { action: 'drain', owner: 'b', to: 'a' });
    assert.deepEqual(decide('b', true, 'a'), { action: 'keep', owner: 'b' });
  });
});
