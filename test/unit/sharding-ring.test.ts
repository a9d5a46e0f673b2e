/**
 * The consistent-hash ring and the sharding names: balance over three shards, minimal movement when a shard joins
 * or leaves, determinism; label keys, Lease names (sanitized, collision-free), ring name and identity validation,
 * and the label-based ShardSelector; the sync overlap checker the sharding integration test relies on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { HASH_SPACE_END, inRanges, SHARD_BUCKETS, shardHash, shardRangeSelector } from '@kubegen/runtime/internal/sharding/shard-hash.js';
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

describe('KEP-5866 hash and ranges', () => {
  it('is FNV-1a 64 as 16 hex digits, as apimachinery\'s HashField', () => {
    // Reference vectors of FNV-1a 64 (the empty string is the offset basis).
    assert.equal(shardHash(''), 'cbf29ce484222325');
    assert.equal(shardHash('a'), 'af63dc4c8601ec8c');
    assert.equal(shardHash('foobar'), '85944171f73967e8');
    const ref = (v: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(v)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, '0');
    };
    for (let i = 0; i < 2000; i++) {
      const v = i % 2 ? randomUUID() : `ns-${i}/é€${'x'.repeat(i % 40)}`;
      assert.equal(shardHash(v), ref(v), v);
    }
  });

  it('the ranges of the live shards cover the hash space exactly once, and the selector agrees with membership', () => {
    for (const members of [['a'], ['a', 'b'], ['replica-0', 'replica-1', 'replica-2'], ['s1', 's2', 's3', 's4', 's5']]) {
      const ring = new HashRing(members);
      const ranges = members.flatMap((m) => ring.rangesOf(m)).sort((x, y) => (x.start < y.start ? -1 : 1));
      assert.equal(ranges[0]!.start, '0x0000000000000000');
      assert.equal(ranges.at(-1)!.end, HASH_SPACE_END);
      for (let i = 1; i < ranges.length; i++) assert.equal(ranges[i]!.start, ranges[i - 1]!.end, `no gap or overlap at ${ranges[i]!.start}`);
      const byShard = new Map(members.map((m) => [m, ring.rangesOf(m)]));
      for (let i = 0; i < 3000; i++) {
        const uid = randomUUID();
        const owner = ring.get(uid)!;
        for (const [m, r] of byShard) assert.equal(inRanges(shardHash(uid), r), m === owner, `${uid} in ${m}'s ranges`);
      }
      for (const m of members) assert.match(shardRangeSelector(ring.rangesOf(m)), /^shardRange\(object\.metadata\.uid, '0x[0-9a-f]{16}', '0x(1)?[0-9a-f]{16}'\)( \|\| shardRange\(object\.metadata\.uid, '0x[0-9a-f]{16}', '0x(1)?[0-9a-f]{16}'\))*$/);
    }
  });
});

describe('HashRing', () => {
  const uids = Array.from({ length: 20_000 }, () => randomUUID());
  const counts = (ring: HashRing): Map<string, number> => {
    const m = new Map<string, number>();
    for (const u of uids) m.set(ring.get(u)!, (m.get(ring.get(u)!) ?? 0) + 1);
    return m;
  };

  it('gives each of three shards a third of the buckets (bounded loads) and of the objects within 15%', () => {
    const ring = new HashRing(['replica-0', 'replica-1', 'replica-2']);
    for (const m of ring.members) assert.ok([85, 86].includes(ring.bucketsOf(m).length) || ring.bucketsOf(m).length <= 90, `${m}: ${ring.bucketsOf(m).length} buckets`);
    for (const [m, n] of counts(ring)) assert.ok(Math.abs(n / (uids.length / 3) - 1) < 0.15, `${m}: ${n} of ${uids.length}`);
  });

  it('depends only on the set of identities', () => {
    const a = new HashRing(['x', 'y', 'z']);
    const b = new HashRing(['z', 'x', 'y', 'x']);
    for (let bucket = 0; bucket < SHARD_BUCKETS; bucket++) assert.equal(a.ownerOfBucket(bucket), b.ownerOfBucket(bucket));
  });

  it('a joining shard takes about its share, nearly all from the others; a leaving one hands over its own', () => {
    const before = new HashRing(['a', 'b', 'c']);
    const after = new HashRing(['a', 'b', 'c', 'd']);
    let moved = 0;
    let movedElsewhere = 0;
    for (let bucket = 0; bucket < SHARD_BUCKETS; bucket++) {
      if (before.ownerOfBucket(bucket) === after.ownerOfBucket(bucket)) continue;
      moved++;
      if (after.ownerOfBucket(bucket) !== 'd') movedElsewhere++;
    }
    assert.ok(moved <= SHARD_BUCKETS * 0.35, `${moved} buckets moved (the even share is 64)`);
    assert.ok(movedElsewhere <= SHARD_BUCKETS * 0.06, `${movedElsewhere} buckets moved between the old shards (bounded loads pass a few on)`);
    const smaller = new HashRing(['a', 'b']);
    let stayedMoved = 0;
    for (let bucket = 0; bucket < SHARD_BUCKETS; bucket++) {
      if (before.ownerOfBucket(bucket) !== 'c' && smaller.ownerOfBucket(bucket) !== before.ownerOfBucket(bucket)) stayedMoved++;
    }
    assert.ok(stayedMoved <= SHARD_BUCKETS * 0.06, `${stayedMoved} buckets of the staying shards moved`);
  });

  it('answers undefined when empty and rejects bad settings', () => {
    assert.equal(new HashRing([]).get('uid'), undefined);
    assert.deepEqual(new HashRing([]).rangesOf('a'), []);
    assert.equal(new HashRing(['only']).get('uid'), 'only');
    assert.deepEqual(new HashRing(['only']).rangesOf('only'), [{ start: '0x0000000000000000', end: HASH_SPACE_END }]);
    assert.throws(() => new HashRing(['a'], { virtualNodes: 0 }), RangeError);
    assert.throws(() => new HashRing(['a'], { loadFactor: 0.9 }), RangeError);
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
  const line = (msg: string, key: string, at: number) => ({ msg, resourceName: key, ts: at });
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
