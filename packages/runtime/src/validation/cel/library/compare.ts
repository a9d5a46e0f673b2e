/**
 * Equality and ordering of CEL values for the library functions (`@bufbuild/cel` keeps its own private): numbers
 * compare across int/uint/double, strings by code point, bytes bytewise, timestamps and durations by time, lists and
 * maps by content, the libraries' opaque values by their canonical text.
 */
import { isCelList, isCelMap, isCelUint, type CelValue } from '@bufbuild/cel';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';

function num(v: CelValue): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

/** Seconds and nanos of a Timestamp/Duration, or the text of an opaque library value. */
function messageKey(v: CelValue): { time?: [bigint, number]; text?: string; type: string } | undefined {
  if (!isReflectMessage(v)) return undefined;
  const m = v.message as { seconds?: bigint; nanos?: number; value?: string };
  if (typeof m.seconds === 'bigint') return { time: [m.seconds, m.nanos ?? 0], type: v.desc.typeName };
  return { text: m.value ?? '', type: v.desc.typeName };
}

export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) return na == nb; // eslint-disable-line eqeqeq -- cross-type numeric
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (isCelList(a)) {
    if (!isCelList(b) || a.size !== b.size) return false;
    for (let i = 0; i < a.size; i++) if (!celEquals(a.get(i)!, b.get(i)!)) return false;
    return true;
  }
  if (isCelMap(a)) {
    if (!isCelMap(b) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  const ma = messageKey(a);
  const mb = messageKey(b);
  if (ma && mb) {
    if (ma.type !== mb.type) return false;
    return ma.time && mb.time ? ma.time[0] === mb.time[0] && ma.time[1] === mb.time[1] : ma.text === mb.text;
  }
  return false;
}

/** -1, 0 or 1; throws `no such overload` for values CEL cannot order. */
export function celCompare(a: CelValue, b: CelValue): number {
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return Math.sign(a.length - b.length);
  }
  const ma = messageKey(a);
  const mb = messageKey(b);
  if (ma?.time && mb?.time && ma.type === mb.type) {
    if (ma.time[0] !== mb.time[0]) return ma.time[0] < mb.time[0] ? -1 : 1;
    return Math.sign(ma.time[1] - mb.time[1]);
  }
  throw new Error('no such overload');
}

function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}
