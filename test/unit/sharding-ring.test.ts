/**
 * The consistent-hash ring and the sharding names: balance over three shards, minimal movement when a shard joins
 * or leaves, determinism; label keys, Lease names (sanitized, collision-free), ring name and identity validation,
 * and the label-based ShardSelector; the sync overlap checker the sharding integration test relies on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashRing, ringHash } from '@kubegen/runtime/internal/sharding/ring.js';
import {
  drainLabel, sharderLeaseName, shardingKey, shardLabel, shardLeaseName, validateRingName, validateShardIdentity,
} from '@kubegen/runtime/internal/sharding/labels.js';
import { labelShardSelector } from '@kubegen/runtime/internal/sharding/shard-selector.js';
import { syncIntervals, syncOverlaps } from '../support/sync-overlaps.js';
import { validateDNS1123Subdomain } from '@kubegen/runtime/internal/labels/validation.js';

const keys = Array.from({ length: 1000 }, (_, i) => `ns-${i % 7}/foo-${i}`);

function counts(ring: HashRing): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(ring.get(k)!, (m.get(ring.get(k)!) ?? 0) + 1);
  return m;
}

describe('HashRing', () => {
  it('spreads 1000 keys over 3 shards at a third each, within ±15%', () => {
    const c = counts(new HashRing(['shard-0', 'shard-1', 'shard-2']));
    assert.equal(c.size, 3);
    for (const [shard, n] of c) assert.ok(Math.abs(n - 1000 / 3) <= (1000 / 3) * 0.15, `${shard} got ${n} of 1000`);
  });

  it('is deterministic and independent of the order of identities', () => {
    const a = new HashRing(['x', 'y', 'z']);
    const b = new HashRing(['z', 'x', 'y', 'x']);
    assert.deepEqual(a.members, ['x', 'y', 'z']);
    for (const k of keys) assert.equal(a.get(k), b.get(k));
    assert.equal(ringHash('default/foo'), ringHash('default/foo'));
    assert.ok(Number.isSafeInteger(ringHash('default/foo')));
  });

  it('moves only about a quarter of the keys, all to the new shard, when a fourth shard joins', () => {
    const before = new HashRing(['a', 'b', 'c']);
    const after = new HashRing(['a', 'b', 'c', 'd']);
    let moved = 0;
    for (const k of keys) {
      if (before.get(k) === after.get(k)) continue;
      moved++;
      assert.equal(after.get(k), 'd', `${k} moved from ${before.get(k)} to ${after.get(k)}, not to the new shard`);
    }
    assert.ok(moved > 250 * 0.7 && moved < 250 * 1.3, `moved ${moved} of 1000 keys`);
  });

  it('moves only the leaving shard\'s keys when a shard leaves', () => {
    const before = new HashRing(['a', 'b', 'c']);
    const after = new HashRing(['a', 'b']);
    for (const k of keys) {
      if (before.get(k) !== 'c') assert.equal(after.get(k), before.get(k), `${k} moved though its shard stayed`);
      else assert.ok(after.get(k) === 'a' || after.get(k) === 'b');
    }
  });

  it('answers undefined when empty and rejects bad virtual node counts', () => {
    assert.equal(new HashRing([]).get('a/b'), undefined);
    assert.equal(new HashRing(['only']).get('a/b'), 'only');
    assert.throws(() => new HashRing(['a'], { virtualNodes: 0 }), RangeError);
  });
});

describe('sharding names', () => {
  it('names labels and Leases after the ring', () => {
    assert.equal(shardLabel('foos'), 'shard.kubegen.io/foos');
    assert.equal(drainLabel('foos'), 'drain.shard.kubegen.io/foos');
    assert.equal(sharderLeaseName('foos'), 'foos-sharder');
    assert.equal(shardLeaseName('foos', 'replica-0'), 'foos-shard-replica-0');
    assert.equal(shardingKey({ metadata: { namespace: 'ns', name: 'a' } }), 'ns/a');
    assert.equal(shardingKey({ metadata: { name: 'cluster-wide' } }), 'cluster-wide');
  });

  it('sanitizes identities into valid, distinct Lease names', () => {
    const a = shardLeaseName('foos', 'Host_1');
    const b = shardLeaseName('foos', 'host-1');
    const long = shardLeaseName('foos', 'x'.repeat(300));
    for (const n of [a, b, long]) assert.deepEqual(validateDNS1123Subdomain(n), [], n);
    assert.notEqual(a, b);
    assert.match(a, /^foos-shard-host-1-[0-9a-f]{8}$/);
  });

  it('validates ring names and identities', () => {
    validateRingName('sample-controller');
    assert.throws(() => validateRingName('Foo_Ring'), /invalid sharding ring name/);
    assert.throws(() => validateRingName('x'.repeat(64)), /63/);
    validateShardIdentity('Pod_1.a');
    assert.throws(() => validateShardIdentity(''), /must not be empty/);
    assert.throws(() => validateShardIdentity('a/b'), /invalid shard identity/);
  });

  it('labelShardSelector selects the shard label and ANDs it with a caller selector', () => {
    const s = labelShardSelector('foos', 'r0');
    assert.equal(s.labelSelector, 'shard.kubegen.io/foos=r0');
    assert.deepEqual(s.apply({ namespace: 'x' }), { namespace: 'x', labelSelector: 'shard.kubegen.io/foos=r0' });
    assert.deepEqual(s.apply({ labelSelector: 'app=web' }), { labelSelector: 'app=web,shard.kubegen.io/foos=r0' });
    assert.deepEqual(s.apply(), { labelSelector: 'shard.kubegen.io/foos=r0' });
    assert.equal(s.matches({ metadata: { labels: { 'shard.kubegen.io/foos': 'r0' } } }), true);
    assert.equal(s.matches({ metadata: { labels: { 'shard.kubegen.io/foos': 'r1' } } }), false);
  });
});

describe('sync overlap checker (of the sharding integration test)', () => {
  const line = (msg: string, key: string, at: number) => ({ msg, resourceName: key, at });
  it('finds concurrent syncs of one key by two processes, and only those', () => {
    const { byKey, finished } = syncIntervals([
      { proc: 'a', openEnd: 100, lines: [line('sync started', 'n/x', 1), line('sync finished', 'n/x', 5), line('sync started', 'n/y', 10), line('sync finished', 'n/y', 20), line('sync started', 'n/z', 30)] },
      { proc: 'b', openEnd: 100, lines: [line('sync started', 'n/x', 5), line('sync finished', 'n/x', 8), line('sync started', 'n/y', 19), line('sync finished', 'n/y', 25), line('sync started', 'n/z', 99), line('sync finished', 'n/z', 120)] },
    ]);
    assert.equal(finished, 5);
    const found = syncOverlaps(byKey).map((o) => o.key);
    // x: back to back (no overlap); y: b started before a finished; z: a's sync never finished before the kill at 100.
    assert.deepEqual(found.sort(), ['n/y', 'n/z']);
  });
});
