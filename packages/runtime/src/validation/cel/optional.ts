/**
 * CEL optional values (`optionalOldSelf: true` makes `oldSelf` an `optional_type(T)`): `@bufbuild/cel` has no
 * optional type, so an optional is a map under one reserved key holding a list of zero or one value, and the
 * optional library (`hasValue`, `value`, `orValue`, `or`, `optional.of`, `optional.none`, `optional.ofNonZeroValue`)
 * works on that shape, as do the calls the optional syntax is lowered to (optional-syntax.ts): `@optSelect`,
 * `@optIndex`, `@optList`, `@optMap`.
 */
import { celFunc, celMethod, celType, objectType, CelScalar, isCelMap, isCelList, isCelUint, listType, mapType, type CelFunc, type CelValue, type CelInput } from '@bufbuild/cel';
import { optionalOf, type CelT, DYN } from './decl.js';

const KEY = '\u0000optional';

export function optionalValue(v: CelInput | undefined): CelInput {
  return new Map([[KEY, v === undefined ? [] : [v]]]);
}

export function noneValue(): CelInput {
  return optionalValue(undefined);
}

function contents(v: CelValue): CelValue[] {
  if (isCelMap(v)) {
    const inner = v.get(KEY);
    if (inner !== undefined && isCelList(inner)) return [...inner];
  }
  throw new Error('no such overload');
}

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return false;
}

/** The optional's value, or undefined when `v` is not an optional; `[]` for none. */
function optionalContents(v: CelValue): CelValue[] | undefined {
  if (!isCelMap(v)) return undefined;
  const inner = v.get(KEY);
  return inner !== undefined && isCelList(inner) ? [...inner] : undefined;
}

/** `x.?f` / `x[?k]`: none when `x` is none or has no such field/key/index, else optional.of(the element). */
function optionalElement(x: CelValue, key: CelValue): CelInput {
  const c = optionalContents(x);
  if (c && c.length === 0) return noneValue();
  const v = c ? c[0]! : x;
  if (isCelMap(v)) {
    // Numbers find keys of any numeric type with the same value (CelMap.get), as `m[k]` does.
    const k = typeof key === 'string' || typeof key === 'bigint' || typeof key === 'boolean' || typeof key === 'number' || isCelUint(key) ? key : undefined;
    const got = k === undefined ? undefined : v.get(k as never);
    return got === undefined ? noneValue() : optionalValue(got as CelInput);
  }
  if (isCelList(v) && typeof key === 'bigint') {
    return key >= 0n && key < BigInt(v.size) ? optionalValue(v.get(Number(key)) as CelInput) : noneValue();
  }
  throw new Error('no such overload');
}

/** The indexes `[0, 2]` of `@optList`/`@optMap` as a set of numbers. */
function indexSet(v: CelValue): Set<number> {
  if (!isCelList(v)) throw new Error('no such overload');
  return new Set([...v].map((x) => Number(x as bigint)));
}

/** `[a, ?b]`: the elements, with each optional one's value or, when none, nothing. */
function optionalList(elements: CelValue, optional: CelValue): CelInput {
  if (!isCelList(elements)) throw new Error('no such overload');
  const opt = indexSet(optional);
  const out: CelInput[] = [];
  [...elements].forEach((x, i) => out.push(...((opt.has(i) ? contents(x) : [x]) as CelInput[])));
  return out;
}

/** `{k: v, ?k2: v2}`: the entries, with each optional one only when its value is present; duplicate keys fail. */
function optionalMap(keys: CelValue, values: CelValue, optional: CelValue): CelInput {
  if (!isCelList(keys) || !isCelList(values)) throw new Error('no such overload');
  const opt = indexSet(optional);
  const vs = [...values];
  const out = new Map<unknown, CelInput>();
  [...keys].forEach((k, i) => {
    const v = opt.has(i) ? contents(vs[i]!) : [vs[i]!];
    if (v.length === 0) return;
    const key = isCelUint(k) ? k.value : k;
    if (out.has(key)) throw new Error(`Failed with repeated key: ${String(key)}`);
    out.set(key, v[0] as CelInput);
  });
  return out as CelInput;
}

/** The type of optionals: `type(optional.none()) == optional_type`. */
const OPTIONAL_TYPE = objectType('optional_type');

/** `has(x.?a.b)`: false when the optional is none, else whether its value has the field. */
function optionalHas(x: CelValue, field: CelValue): boolean {
  const c = contents(x);
  if (c.length === 0) return false;
  const v = c[0]!;
  if (isCelMap(v)) return v.get(field as string) !== undefined;
  throw new Error('no such overload');
}

export const OPTIONAL_FUNCS: CelFunc[] = [
  celFunc('@type', [CelScalar.DYN], CelScalar.TYPE, (x) => (optionalContents(x) ? OPTIONAL_TYPE : celType(x)) as never),
  celFunc('@optionalType', [], CelScalar.TYPE, () => OPTIONAL_TYPE as never),
  celFunc('@optHas', [CelScalar.DYN, CelScalar.STRING], CelScalar.BOOL, (x, f) => optionalHas(x, f)),
  celFunc('@optList', [CelScalar.DYN, CelScalar.DYN], listType(CelScalar.DYN), (xs, opt) => optionalList(xs, opt) as never),
  celFunc('@optMap', [CelScalar.DYN, CelScalar.DYN, CelScalar.DYN], MAP, (ks, vs, opt) => optionalMap(ks, vs, opt) as never),
  celFunc('@optSelect', [CelScalar.DYN, CelScalar.STRING], MAP, (x, f) => optionalElement(x, f) as never),
  celFunc('@optIndex', [CelScalar.DYN, CelScalar.DYN], MAP, (x, k) => optionalElement(x, k) as never),
  celFunc('optional.of', [CelScalar.DYN], MAP, (v) => optionalValue(v as CelInput) as never),
  celFunc('optional.none', [], MAP, () => noneValue() as never),
  celFunc('optional.ofNonZeroValue', [CelScalar.DYN], MAP, (v) => (isZero(v) ? noneValue() : optionalValue(v as CelInput)) as never),
  celMethod('hasValue', MAP, [], CelScalar.BOOL, function () {
    return contents(this).length === 1;
  }),
  celMethod('value', MAP, [], CelScalar.DYN, function () {
    const c = contents(this);
    if (c.length === 0) throw new Error('optional.none() dereference');
    return c[0] as never;
  }),
  celMethod('orValue', MAP, [CelScalar.DYN], CelScalar.DYN, function (alt) {
    const c = contents(this);
    return (c.length === 1 ? c[0] : alt) as never;
  }),
  celMethod('or', MAP, [MAP], MAP, function (alt) {
    return (contents(this).length === 1 ? this : (contents(alt), alt)) as never;
  }),
];

/** Checker result types of the optional functions (their declarations say map). */
export const OPTIONAL_RESULT_TYPES: ReadonlyMap<string, (target: CelT | undefined, args: CelT[]) => CelT> = new Map([
  ['optional.of', (_t: CelT | undefined, a: CelT[]) => optionalOf(a[0] ?? DYN)],
  ['optional.none', () => optionalOf(DYN)],
  ['optional.ofNonZeroValue', (_t: CelT | undefined, a: CelT[]) => optionalOf(a[0] ?? DYN)],
  ['value', (t: CelT | undefined) => (t?.kind === 'optional' ? t.inner : DYN)],
  ['orValue', (t: CelT | undefined) => (t?.kind === 'optional' ? t.inner : DYN)],
  ['or', (t: CelT | undefined) => t ?? DYN],
  ['hasValue', () => ({ kind: 'scalar', name: 'bool' })],
]);
