/**
 * A consistent-hash ring mapping keys (`namespace/name`) to shard identities.
 *
 * Every shard owns `virtualNodes` points (default 100) on a ring of 48-bit positions: the first six bytes of
 * SHA-1(`<identity>#<i>`). A key belongs to the shard owning the first point at or after SHA-1(key) (wrapping
 * around). The mapping depends only on the set of identities, not on the order they were given or on the process,
 * so every replica and every sharder instance computes the same assignment. When a shard joins it takes about
 * 1/n of the keys, all from the others; when one leaves only its keys move.
 *
 * SHA-1 (node:crypto, about a microsecond per key) is used as a well-mixed hash, not for security:
 * FNV-1a of the short, similar virtual-node names clusters them on the ring.
 */
import { createHash } from 'node:crypto';

/** Default number of points per shard: enough for ±10% balance among a handful of shards. */
export const DEFAULT_VIRTUAL_NODES = 100;

/** Options of a {@link HashRing}. */
export interface HashRingOptions {
  /** Points per shard (default 100). More points: better balance, larger ring. */
  virtualNodes?: number;
}

/** The 48-bit ring position of `s`: the first six bytes of its SHA-1, as an exact integer. */
export function ringHash(s: string): number {
  return createHash('sha1').update(s).digest().readUIntBE(0, 6);
}

/** An immutable consistent-hash ring over a set of shard identities (see the module comment). */
export class HashRing {
  /** The identities on the ring, sorted. */
  readonly members: readonly string[];
  private readonly points: Float64Array;
  private readonly owners: string[];

  constructor(identities: Iterable<string>, opts: HashRingOptions = {}) {
    const vnodes = opts.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
    if (!Number.isInteger(vnodes) || vnodes < 1) throw new RangeError(`virtualNodes must be a positive integer, got ${vnodes}`);
    this.members = [...new Set(identities)].sort();
    const entries: { point: number; owner: string }[] = [];
    for (const id of this.members) {
      for (let i = 0; i < vnodes; i++) entries.push({ point: ringHash(`${id}#${i}`), owner: id });
    }
    // Ties (equal 48-bit points) are broken by identity, so the ring never depends on insertion order.
    entries.sort((a, b) => a.point - b.point || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
    this.points = Float64Array.from(entries, (e) => e.point);
    this.owners = entries.map((e) => e.owner);
  }

  /** Number of identities on the ring. */
  get size(): number {
    return this.members.length;
  }

  /** Whether `identity` is on the ring. */
  has(identity: string): boolean {
    return this.members.includes(identity);
  }

  /** The identity `key` is assigned to; undefined when the ring is empty. */
  get(key: string): string | undefined {
    const n = this.points.length;
    if (n === 0) return undefined;
    const h = ringHash(key);
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === n ? 0 : lo];
  }
}
