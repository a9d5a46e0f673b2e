/**
 * List functions: Kubernetes' lists library (isSorted, sum, min, max, indexOf, lastIndexOf —
 * k8s.io/apiserver/pkg/cel/library/lists.go), cel-go's ext.Lists at version 3 (slice, flatten, distinct, reverse,
 * sort, lists.range; not the `sortBy` macro) and ext.Sets (sets.contains, sets.equivalent, sets.intersects).
 */
import { celFunc, celMethod, CelScalar, listType, isCelList, isCelUint, type CelFunc, type CelList, type CelValue, type CelInput } from '@bufbuild/cel';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { BOOL, INT, listOf } from '../decl.js';
import { celCompare, celEquals } from './compare.js';
import { typed, targetElem, sameAsTarget, flattened } from './typed.js';
import { durationOfNanos, nanosOfDuration } from '../time.js';

const LIST = listType(CelScalar.DYN);
const arr = (l: CelList): CelValue[] => [...l];
const out = (xs: readonly CelValue[]): CelInput => xs as CelInput;

function sum(list: CelList): CelInput {
  const xs = arr(list);
  if (xs.length === 0) return 0n;
  const first = xs[0]!;
  if (typeof first === 'bigint') {
    let s = 0n;
    for (const x of xs) {
      if (typeof x !== 'bigint') throw new Error('no such overload');
      s += x;
      if (s > 9223372036854775807n || s < -9223372036854775808n) throw new Error('integer overflow');
    }
    return s;
  }
  if (typeof first === 'number') return xs.reduce<number>((s, x) => s + Number(x as number), 0);
  if (isCelUint(first)) {
    return { value: xs.reduce<bigint>((s, x) => s + (x as { value: bigint }).value, 0n) } as never;
  }
  if (isReflectMessage(first) && first.desc.typeName === 'google.protobuf.Duration') {
    let ns = 0n;
    for (const x of xs) ns += nanosOfDuration((x as unknown as { message: Parameters<typeof nanosOfDuration>[0] }).message);
    return durationOfNanos(ns);
  }
  throw new Error('no such overload');
}

function extreme(list: CelList, sign: number): CelValue {
  const xs = arr(list);
  if (xs.length === 0) throw new Error(sign < 0 ? 'min called on empty list' : 'max called on empty list');
  let best: CelValue = xs[0]!;
  for (const x of xs.slice(1)) if (celCompare(x, best) * sign > 0) best = x;
  return best;
}

function flatten(list: CelList, depth: bigint): CelValue[] {
  if (depth < 0n) throw new Error('level must be non-negative');
  const result: CelValue[] = [];
  for (const x of list) {
    if (isCelList(x) && depth > 0n) result.push(...flatten(x, depth - 1n));
    else result.push(x);
  }
  return result;
}

const containsAll = (a: CelList, b: CelList): boolean => arr(b).every((x) => arr(a).some((y) => celEquals(x, y)));

export const LIST_FUNCS: CelFunc[] = [
  celMethod('isSorted', LIST, [], CelScalar.BOOL, function () {
    const xs = arr(this);
    return xs.every((x, i) => i === 0 || celCompare(xs[i - 1]!, x) <= 0);
  }),
  typed(celMethod('sum', LIST, [], CelScalar.DYN, function () { return sum(this) as never; }), targetElem),
  typed(celMethod('min', LIST, [], CelScalar.DYN, function () { return extreme(this, -1) as never; }), targetElem),
  typed(celMethod('max', LIST, [], CelScalar.DYN, function () { return extreme(this, 1) as never; }), targetElem),
  celMethod('indexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (v) {
    return BigInt(arr(this).findIndex((x) => celEquals(x, v)));
  }),
  celMethod('lastIndexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (v) {
    return BigInt(arr(this).findLastIndex((x) => celEquals(x, v)));
  }),
  typed(celMethod('slice', LIST, [CelScalar.INT, CelScalar.INT], LIST, function (start, end) {
    const xs = arr(this);
    if (start < 0n || end < 0n) throw new Error(`cannot slice(${start}, ${end}), negative indexes not supported`);
    if (start > end) throw new Error(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
    if (end > BigInt(xs.length)) throw new Error(`cannot slice(${start}, ${end}), list is length ${xs.length}`);
    return out(xs.slice(Number(start), Number(end))) as never;
  }), sameAsTarget),
  typed(celMethod('flatten', LIST, [], LIST, function () { return out(flatten(this, 1n)) as never; }), flattened),
  celMethod('flatten', LIST, [CelScalar.INT], LIST, function (depth) { return out(flatten(this, depth)) as never; }),
  typed(celMethod('distinct', LIST, [], LIST, function () {
    const seen: CelValue[] = [];
    for (const x of this) if (!seen.some((y) => celEquals(x, y))) seen.push(x);
    return out(seen) as never;
  }), sameAsTarget),
  typed(celMethod('reverse', LIST, [], LIST, function () { return out(arr(this).reverse()) as never; }), sameAsTarget),
  typed(celMethod('sort', LIST, [], LIST, function () {
    return out(arr(this).sort(celCompare)) as never;
  }), sameAsTarget),
  typed(celFunc('lists.range', [CelScalar.INT], LIST, (n) => out(Array.from({ length: Number(n) }, (_, i) => BigInt(i))) as never), () => listOf(INT)),
  typed(celFunc('sets.contains', [LIST, LIST], CelScalar.BOOL, (a, b) => containsAll(a, b)), () => BOOL),
  celFunc('sets.equivalent', [LIST, LIST], CelScalar.BOOL, (a, b) => containsAll(a, b) && containsAll(b, a)),
  celFunc('sets.intersects', [LIST, LIST], CelScalar.BOOL, (a, b) => arr(a).some((x) => arr(b).some((y) => celEquals(x, y)))),
];
