/**
 * The ring that maps objects to shards: every object's KEP-5866 hash (FNV-1a 64 of its UID, `shard-hash.ts`) falls
 * in one of {@link SHARD_BUCKETS} buckets, and every bucket belongs to one live shard. A shard's part is therefore a
 * union of hash ranges — the `shardSelector` a filtering apiserver applies — and the same function decides
 * membership on the client when it does not.
 *
 * Buckets go to shards by consistent hashing with bounded loads: every shard owns `virtualNodes` points (default
 * 100) on the 64-bit hash ring, the first eight bytes of SHA-1(`<identity>#<i>`); a bucket goes to the owner of the
 * first point at or after the bucket's start that has room, room meaning fewer than `ceil(buckets / shards ×
 * loadFactor)` buckets (default load factor 1.05: three shards get 85 or 86 buckets, at most 90). The mapping depends
 * only on the set of identities, so every replica computes the same; a shard that joins takes about its share, all
 * from the others, and one that leaves hands over only its own (plus the few a full neighbour passes on).
 *
 * SHA-1 (node:crypto) places the points: FNV-1a of short, similar names (`replica-0#1`) clusters them.
 */
import { createHash } from 'node:crypto';
import { bucketOfHash, rangesOfBuckets, SHARD_BUCKETS, shardHash, type HashRange } from './shard-hash.js';

/** Default number of points per shard. */
export const DEFAULT_VIRTUAL_NODES = 100;
/** Default bound on a shard's buckets, as a factor of the even share. */
export const DEFAULT_LOAD_FACTOR = 1.05;

/** Options of a {@link HashRing}. */
export interface HashRingOptions {
  /** Points per shard (default 100). */
  virtualNodes?: number;
  /** Most buckets a shard may own, as a factor of the even share (default 1.05; at least 1). */
  loadFactor?: number;
}

/** A point's position: the first eight bytes of SHA-1, as 16 hex digits (compared as strings). */
function pointOf(s: string): string {
  return createHash('sha1').update(s).digest('hex').slice(0, 16);
}

/** An immutable assignment of the hash space's buckets to a set of shard identities (see the module comment). */
export class HashRing {
  /** The identities on the ring, sorted. */
  readonly members: readonly string[];
  /** The owner of each bucket (empty when the ring is empty). */
  private readonly owners: string[] = [];

  constructor(identities: Iterable<string>, opts: HashRingOptions = {}) {
    const vnodes = opts.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
    if (!Number.isInteger(vnodes) || vnodes < 1) throw new RangeError(`virtualNodes must be a positive integer, got ${vnodes}`);
    const factor = opts.loadFactor ?? DEFAULT_LOAD_FACTOR;
    if (!(factor >= 1)) throw new RangeError(`loadFactor must be at least 1, got ${factor}`);
    this.members = [...new Set(identities)].sort();
    if (this.members.length === 0) return;
    const points: { at: string; owner: string }[] = [];
    for (const id of this.members) for (let i = 0; i < vnodes; i++) points.push({ at: pointOf(`${id}#${i}`), owner: id });
    // Ties (equal points) are broken by identity, so the ring never depends on the order identities were given.
    points.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.owner < y.owner ? -1 : x.owner > y.owner ? 1 : 0));
    const cap = Math.ceil((SHARD_BUCKETS / this.members.length) * factor);
    const load = new Map<string, number>(this.members.map((m) => [m, 0]));
    for (let b = 0; b < SHARD_BUCKETS; b++) {
      const start = b.toString(16).padStart(2, '0') + '00000000000000';
      let i = lowerBound(points, start);
      // Clockwise from the bucket's start to the first point whose owner has room (every full pass finds one).
      for (let step = 0; ; step++, i++) {
        const p = points[i % points.length]!;
        if (load.get(p.owner)! < cap || step >= points.length) {
          this.owners[b] = p.owner;
          load.set(p.owner, load.get(p.owner)! + 1);
          break;
        }
      }
    }
  }

  /** Number of identities on the ring. */
  get size(): number {
    return this.members.length;
  }

  /** Whether `identity` is on the ring. */
  has(identity: string): boolean {
    return this.members.includes(identity);
  }

  /** The identity an object with this UID belongs to; undefined when the ring is empty. */
  get(uid: string): string | undefined {
    return this.ownerOfHash(shardHash(uid));
  }

  /** The identity a hash (16 hex digits) belongs to; undefined when the ring is empty. */
  ownerOfHash(hash: string): string | undefined {
    return this.owners[bucketOfHash(hash)];
  }

  /** The owner of bucket `b` (0 to 255); undefined when the ring is empty. */
  ownerOfBucket(b: number): string | undefined {
    return this.owners[b];
  }

  /** The buckets `identity` owns, in order (none when it is not on the ring). */
  bucketsOf(identity: string): number[] {
    const out: number[] = [];
    this.owners.forEach((o, b) => o === identity && out.push(b));
    return out;
  }

  /** The hash ranges `identity` owns, consecutive buckets merged (what its shard selector selects). */
  rangesOf(identity: string): HashRange[] {
    return rangesOfBuckets(this.bucketsOf(identity));
  }
}

/** The index of the first point at or after `at` (`points.length` when there is none). */
function lowerBound(points: readonly { at: string }[], at: string): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid]!.at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
