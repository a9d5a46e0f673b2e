/**
 * KEP-5866's hash (apimachinery `pkg/sharding`: `HashField`): FNV-1a 64 of a field's value (the object's UID, or
 * its namespace), written as 16 lowercase hex digits. A shard selector sent to the apiserver selects half-open
 * ranges `[start, end)` of it, `0x0000000000000000` to `0x10000000000000000`; the same function decides membership
 * on the client, so a server that filters and one that does not agree object by object.
 *
 * The ring divides the hash space into {@link SHARD_BUCKETS} buckets by its first two hex digits: a shard owns whole
 * buckets, so its ranges are unions of buckets and an owned object labelled with its owner's bucket is selected by
 * a label set (`in (…)`) that matches the owner's ranges exactly.
 */

/** How many buckets the hash space is cut into: the first byte of the hash (two hex digits). */
export const SHARD_BUCKETS = 256;

/** The end of the hash space, exclusive: 2^64 as the KEP writes it. */
export const HASH_SPACE_END = '0x10000000000000000';

/** FNV-1a 64 offset basis and prime, in four 16-bit limbs (most significant first). */
const OFFSET = [0xcbf2, 0x9ce4, 0x8422, 0x2325];
const UTF8 = new TextEncoder();

/**
 * FNV-1a 64 of `value`'s UTF-8 bytes as 16 lowercase hex digits (Go: `fmt.Sprintf("%016x", fnv64a(value))`).
 * Four 16-bit limbs keep every product below 2^53, so the arithmetic is exact in doubles.
 */
export function shardHash(value: string): string {
  let [a, b, c, d] = OFFSET as [number, number, number, number];
  for (const byte of UTF8.encode(value)) {
    d ^= byte;
    // h *= 0x100000001b3 (2^40 + 0x1b3), mod 2^64: h * 0x1b3, plus h << 40.
    const d1 = d * 0x1b3;
    const c1 = c * 0x1b3 + Math.floor(d1 / 0x10000);
    const b1 = b * 0x1b3 + Math.floor(c1 / 0x10000);
    const a1 = a * 0x1b3 + Math.floor(b1 / 0x10000);
    // h << 40: limb d moves to bits 40-55 (into limb b, shifted by 8), limb c to bits 56-71 (into limb a).
    const shiftedB = (d & 0xff) << 8;
    const shiftedA = ((d >>> 8) & 0xff) | ((c & 0xff) << 8);
    const nb = (b1 % 0x10000) + shiftedB;
    const na = (a1 % 0x10000) + shiftedA + Math.floor(nb / 0x10000);
    d = d1 % 0x10000;
    c = c1 % 0x10000;
    b = nb % 0x10000;
    a = na % 0x10000;
  }
  return hex4(a) + hex4(b) + hex4(c) + hex4(d);
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, '0');
}

/** The bucket of a hash (its first byte): 0 to 255. */
export function bucketOfHash(hash: string): number {
  return parseInt(hash.slice(0, 2), 16);
}

/** `0x..` of the first hash of bucket `b` (`b` may be {@link SHARD_BUCKETS}: the end of the space). */
export function bucketStart(b: number): string {
  if (b >= SHARD_BUCKETS) return HASH_SPACE_END;
  return `0x${b.toString(16).padStart(2, '0')}00000000000000`;
}

/** A half-open range `[start, end)` of the hash space, as the KEP writes bounds (`0x` + 16 hex digits, or 2^64). */
export interface HashRange {
  start: string;
  end: string;
}

/** Whether `hash` (16 hex digits) falls in one of `ranges`. */
export function inRanges(hash: string, ranges: readonly HashRange[]): boolean {
  const h = `0x${hash}`;
  for (const r of ranges) if (h >= r.start && (r.end === HASH_SPACE_END || h < r.end)) return true;
  return false;
}

/** The ranges of a set of buckets: consecutive buckets merged into one range each, in order. */
export function rangesOfBuckets(buckets: readonly number[]): HashRange[] {
  const sorted = [...new Set(buckets)].sort((x, y) => x - y);
  const out: HashRange[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push({ start: bucketStart(sorted[i]!), end: bucketStart(sorted[j]! + 1) });
    i = j + 1;
  }
  return out;
}

/** The field a shard selector hashes: the object's UID (the default) or its namespace. */
export type ShardField = 'object.metadata.uid' | 'object.metadata.namespace';

/**
 * The `shardSelector` of `ranges` (KEP-5866): `shardRange(object.metadata.uid, '0x…', '0x…') || …`; `''` when there
 * is no range (the caller then selects nothing: see `ShardSelector`).
 */
export function shardRangeSelector(ranges: readonly HashRange[], field: ShardField = 'object.metadata.uid'): string {
  return ranges.map((r) => `shardRange(${field}, '${r.start}', '${r.end}')`).join(' || ');
}
