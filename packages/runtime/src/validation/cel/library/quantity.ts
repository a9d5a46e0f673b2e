/**
 * Kubernetes' quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go) over resource.Quantity's grammar
 * (`<signed number><suffix>`, suffixes Ki…Ei, n u m k M G T P E, or an `e`/`E` exponent). Values are exact
 * fractions, so comparisons and arithmetic are exact; `==` compares values, as the server's Quantity type does.
 */
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from '@bufbuild/cel';
import { opaqueType } from './opaque.js';
import { comparisonMethods, succeeds } from './shared.js';

const QUANTITY = opaqueType('kubernetes.Quantity');

interface Fraction {
  n: bigint;
  d: bigint; // > 0
}

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
function frac(n: bigint, d: bigint): Fraction {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}
const pow10 = (e: number): Fraction => (e >= 0 ? frac(10n ** BigInt(e), 1n) : frac(1n, 10n ** BigInt(-e)));
const mul = (a: Fraction, b: Fraction): Fraction => frac(a.n * b.n, a.d * b.d);
const add = (a: Fraction, b: Fraction): Fraction => frac(a.n * b.d + b.n * a.d, a.d * b.d);
const neg = (a: Fraction): Fraction => ({ n: -a.n, d: a.d });
const cmp = (a: Fraction, b: Fraction): number => {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
};

/** resource.ParseQuantity's grammar; throws its error texts. */
export function parseQuantity(s: string): Fraction {
  if (s === '') throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  const m = /^([+-]?)(\d+\.?\d*|\.\d+)(.*)$/.exec(s);
  if (!m) throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  const [, sign, num, suffix] = m as unknown as [string, string, string, string];
  const [whole, fracDigits = ''] = num.split('.');
  let value = frac(BigInt((whole || '0') + fracDigits), 10n ** BigInt(fracDigits.length));
  if (suffix in BINARY) value = mul(value, frac(BINARY[suffix]!, 1n));
  else if (suffix in DECIMAL) value = mul(value, pow10(DECIMAL[suffix]!));
  else {
    const e = /^[eE]([+-]?\d+)$/.exec(suffix);
    if (!e) throw new Error('unable to parse quantity\'s suffix');
    value = mul(value, pow10(Number(e[1])));
  }
  return sign === '-' ? neg(value) : value;
}

const text = (f: Fraction): string => `${f.n}/${f.d}`;
function valueOf(v: CelValue): Fraction {
  const [n, d] = QUANTITY.text(v).split('/');
  return { n: BigInt(n!), d: BigInt(d!) };
}
const wrap = (f: Fraction): ReturnType<typeof QUANTITY.wrap> => QUANTITY.wrap(text(f));

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const isInt64 = (f: Fraction): boolean => f.d === 1n && f.n >= INT64_MIN && f.n <= INT64_MAX;

function parse(s: string): Fraction {
  try {
    return parseQuantity(s);
  } catch (e) {
    throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, { cause: e });
  }
}

export const QUANTITY_FUNCS: CelFunc[] = [
  celFunc('quantity', [CelScalar.STRING], QUANTITY.type, (s) => wrap(parse(s))),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s) => succeeds(() => parseQuantity(s))),
  celMethod('isInteger', QUANTITY.type, [], CelScalar.BOOL, function () {
    return isInt64(valueOf(this));
  }),
  celMethod('asInteger', QUANTITY.type, [], CelScalar.INT, function () {
    const f = valueOf(this);
    if (!isInt64(f)) throw new Error('cannot convert value to integer');
    return f.n;
  }),
  celMethod('asApproximateFloat', QUANTITY.type, [], CelScalar.DOUBLE, function () {
    const f = valueOf(this);
    return Number(f.n) / Number(f.d);
  }),
  celMethod('sign', QUANTITY.type, [], CelScalar.INT, function () {
    return BigInt(cmp(valueOf(this), frac(0n, 1n)));
  }),
  celMethod('add', QUANTITY.type, [QUANTITY.type], QUANTITY.type, function (o) {
    return wrap(add(valueOf(this), valueOf(o)));
  }),
  celMethod('add', QUANTITY.type, [CelScalar.INT], QUANTITY.type, function (i) {
    return wrap(add(valueOf(this), frac(i, 1n)));
  }),
  celMethod('sub', QUANTITY.type, [QUANTITY.type], QUANTITY.type, function (o) {
    return wrap(add(valueOf(this), neg(valueOf(o))));
  }),
  celMethod('sub', QUANTITY.type, [CelScalar.INT], QUANTITY.type, function (i) {
    return wrap(add(valueOf(this), frac(-i, 1n)));
  }),
  ...comparisonMethods(QUANTITY.type, (a, b) => cmp(valueOf(a), valueOf(b))),
];
