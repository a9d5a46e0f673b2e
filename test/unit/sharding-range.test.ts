/**
 * `RangeShard` (sharding without assignment labels) on the fake transport and a FakeClock, three replicas sharing one
 * fake apiserver: a lone shard takes every bucket; two more join and the buckets split with every bucket active in
 * exactly one shard at every step (the handoff waits for in-flight reconciles and for the others' generation); a
 * graceful leave and a dead shard (no renewals, then fenced) hand their buckets to the rest; owned objects carry
 * their owner's bucket; the scope's selectors follow the buckets. Shards started together take only their parts: the
 * join window keeps the first from taking (and watching) the whole ring for a moment.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { GENERATION_ANNOTATION, NOTHING_SHARD_SELECTOR, RangeShard, scopeShardSelector } from '@kubegen/runtime/internal/sharding/range-shard.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { bucketOfHash, rangesOfBuckets, shardHash, shardRangeSelector, SHARD_BUCKETS } from '@kubegen/runtime/internal/sharding/shard-hash.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { matchesShardSelector, parseShardSelector } from '@kubegen/runtime/internal/testing/fake/fake-shard-selector.js';
import { FakeTransport, newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

const LEASE_NS = 'kube-system';
const START = Date.parse('2024-05-01T00:00:00Z');

const settle = async (): Promise<void> => {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
};

interface Replica {
  shard: RangeShard;
  stop: AbortController;
  done: Promise<void>;
  /** This replica's own view of the shared fake apiserver (a partition affects it alone). */
  transport: FakeTransport;
}

function start(shared: FakeTransport, clock: FakeClock, identity: string, joinWindowMs?: number): Replica {
  const transport = new FakeTransport(shared.tracker);
  const shard = new RangeShard({ transport, ringName: 'tasks', identity, namespace: LEASE_NS, clock, logger: nullLogger, registry: new Registry(), ...(joinWindowMs !== undefined ? { joinWindowMs } : {}) });
  const stop = new AbortController();
  return { shard, stop, done: shard.run(stop.signal), transport };
}

/** Every bucket is active in at most one replica; returns how many are active somewhere. */
function checkExclusive(replicas: readonly Replica[]): number {
  const owner = new Map<number, string>();
  for (const r of replicas) {
    for (const b of r.shard.activeBuckets()) {
      assert.equal(owner.get(b), undefined, `bucket ${b} active in ${owner.get(b)} and ${r.shard.identity}`);
      owner.set(b, r.shard.identity);
    }
  }
  return owner.size;
}

/** Steps the clock 100 ms at a time, checking exclusivity at every step, until `done()` or `ms` passed. */
async function advanceUntil(clock: FakeClock, replicas: readonly Replica[], done: () => boolean, ms: number): Promise<void> {
  for (let t = 0; t < ms && !done(); t += 100) {
    clock.step(100);
    await settle();
    checkExclusive(replicas);
  }
  assert.ok(done(), `not reached within ${ms} ms of fake time: ${replicas.map((r) => `${r.shard.identity}=${r.shard.activeBuckets().length}`).join(' ')}`);
}

describe('RangeShard', () => {
  it('splits the buckets among joining shards and hands them back on leave and death, never active twice', async () => {
    const clock = new FakeClock(START);
    const transport = newFakeTransport([builtinResources.leases]);
    const a = start(transport, clock, 'r0');
    await a.shard.whenHeld();
    await advanceUntil(clock, [a], () => a.shard.activeBuckets().length === SHARD_BUCKETS, 5_000);

    // A reconcile in flight in a bucket r0 will lose holds that bucket until it ends.
    const final = new HashRing(['r0', 'r1', 'r2']);
    let uid = randomUUID();
    while (final.get(uid) === 'r0') uid = randomUUID();
    const leave = a.shard.tryEnter(uid);
    assert.ok(leave, 'r0 owns every bucket');
    const b = start(transport, clock, 'r1');
    const c = start(transport, clock, 'r2');
    const all = [a, b, c];
    await advanceUntil(clock, all, () => all.every((r) => r.shard.activeBuckets().length >= 80) || a.shard.activeBuckets().length < SHARD_BUCKETS, 20_000);
    // The bucket goes to another shard, which may not activate it while the reconcile is in flight here.
    const moving = bucketOfHash(shardHash(uid));
    for (let i = 0; i < 50; i++) {
      clock.step(100);
      await settle();
      assert.ok(![b, c].some((r) => r.shard.activeBuckets().includes(moving)), 'activated elsewhere while in flight');
    }
    assert.ok(!a.shard.activeBuckets().includes(moving), 'r0 took it out of its active buckets at once');
    leave();
    await advanceUntil(clock, all, () => checkExclusive(all) === SHARD_BUCKETS && all.every((r) => Math.abs(r.shard.activeBuckets().length - 85.3) <= 5), 20_000);
    const lease = (await transport.request({ verb: 'get', resource: builtinResources.leases, namespace: LEASE_NS, name: 'tasks-shard-r1' })) as { metadata: { annotations: Record<string, string> } };
    assert.match(lease.metadata.annotations[GENERATION_ANNOTATION] ?? '', /^[0-9a-f]{16}$/);

    // Scope: the owned-object selector lists the watched buckets; labelsFor gives an owner's bucket.
    const scope = b.shard.scope();
    assert.match(scope.ownedLabelSelector, /^bucket\.shard\.kubegen\.io\/tasks in \([0-9a-f]{2}(,[0-9a-f]{2})*\)$/);
    const owner = { metadata: { uid } };
    assert.deepEqual(b.shard.labelsFor(owner), { 'bucket.shard.kubegen.io/tasks': bucketOfHash(shardHash(uid)).toString(16).padStart(2, '0') });

    // A graceful leave: r2 releases its Lease; it is fenced and its buckets go to r0 and r1.
    c.stop.abort();
    await advanceUntil(clock, [a, b], () => checkExclusive([a, b]) === SHARD_BUCKETS, 20_000);
    await c.done;

    // A death: r1 is partitioned (its own requests fail); it gives up its Lease, r0 fences it and takes its buckets.
    b.transport.prependReactor('*', '*', () => ({ handled: true, error: Object.assign(new Error('partitioned'), { code: 'ECONNREFUSED' }) }));
    await advanceUntil(clock, [a, b], () => a.shard.activeBuckets().length === SHARD_BUCKETS, 60_000);
    assert.equal(b.shard.lost.aborted, true, 'r1 knows it lost its Lease');
    assert.deepEqual(b.shard.activeBuckets(), []);
    a.stop.abort();
    b.stop.abort();
    clock.step(1000);
    await Promise.all([a.done, b.done]);
  });
});

/**
 * Starts three shards 300 ms of fake time apart (the first holds its Lease before the others exist) and runs until
 * each has its part; returns the most buckets any of them ever watched.
 */
async function startTogether(joinWindowMs: number | undefined): Promise<number> {
  const clock = new FakeClock(START);
  const transport = newFakeTransport([builtinResources.leases]);
  let mostWatched = 0;
  const replicas: Replica[] = [];
  for (const id of ['r0', 'r1', 'r2']) {
    const r = start(transport, clock, id, joinWindowMs);
    r.shard.onScopeChange((scope) => (mostWatched = Math.max(mostWatched, scope.watched.length)));
    replicas.push(r);
    await r.shard.whenHeld();
    await settle();
    clock.step(300);
    await settle();
  }
  await advanceUntil(clock, replicas, () => checkExclusive(replicas) === SHARD_BUCKETS && replicas.every((r) => Math.abs(r.shard.activeBuckets().length - 85.3) <= 5), 20_000);
  for (const r of replicas) r.stop.abort();
  clock.step(1000);
  await Promise.all(replicas.map((r) => r.done));
  return mostWatched;
}

describe('RangeShard join window', () => {
  it('shards started together never watch more than about their part (default window: one retry period)', async () => {
    const most = await startTogether(undefined);
    assert.ok(most <= 95, `a shard watched ${most} of ${SHARD_BUCKETS} buckets`);
  });

  it('without a window the first shard takes the whole ring until the others appear', async () => {
    assert.equal(await startTogether(0), SHARD_BUCKETS);
  });
});

describe('scopeShardSelector', () => {
  it('selects nothing while the shard has no bucket (no selector would list every object), its ranges after', () => {
    const empty = scopeShardSelector({ watched: [], ranges: [], ownedLabelSelector: 'x in (none)', version: 1 });
    assert.equal(empty, NOTHING_SHARD_SELECTOR);
    const sel = parseShardSelector(empty);
    const uids = Array.from({ length: 500 }, () => randomUUID());
    assert.equal(uids.filter((uid) => matchesShardSelector({ metadata: { uid } } as KubeObject, sel)).length, 0);
    const ranges = rangesOfBuckets([0, 1, 2]);
    assert.equal(scopeShardSelector({ watched: [0, 1, 2], ranges, ownedLabelSelector: '', version: 2 }), shardRangeSelector(ranges));
  });
});
