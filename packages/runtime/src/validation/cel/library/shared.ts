/** Pieces several libraries share. */
import { celMethod, CelScalar, type CelFunc, type CelObjectType, type CelValue } from '@bufbuild/cel';

/** Whether `f` returns without throwing (the libraries' `isX(s)` beside `x(s)`). */
export function succeeds(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

/** `isGreaterThan`, `isLessThan` and `compareTo` on an opaque type ordered by `compare` (quantity, semver). */
export function comparisonMethods(type: CelObjectType, compare: (a: CelValue, b: CelValue) => number): CelFunc[] {
  return [
    celMethod('isGreaterThan', type, [type], CelScalar.BOOL, function (o) {
      return compare(this, o) > 0;
    }),
    celMethod('isLessThan', type, [type], CelScalar.BOOL, function (o) {
      return compare(this, o) < 0;
    }),
    celMethod('compareTo', type, [type], CelScalar.INT, function (o) {
      return BigInt(compare(this, o));
    }),
  ];
}
