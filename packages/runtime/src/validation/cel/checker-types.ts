/** Type relations the checker applies to operators and literals. */
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { type CelT, DYN, BOOL, INT, UINT, DOUBLE, STRING, BYTES, NULL, assignable } from './decl.js';

export const NUMERIC = new Set(['int', 'uint', 'double']);

export function constType(kind: string | undefined): CelT {
  switch (kind) {
    case 'boolValue':
      return BOOL;
    case 'int64Value':
      return INT;
    case 'uint64Value':
      return UINT;
    case 'doubleValue':
      return DOUBLE;
    case 'stringValue':
      return STRING;
    case 'bytesValue':
      return BYTES;
    case 'nullValue':
      return NULL;
    default:
      return DYN;
  }
}

/** `a.b.c` when the expression is a chain of selections on an identifier (a namespaced function name). */
export function qualifiedName(e: Expr): string | undefined {
  const k = e.exprKind;
  if (k.case === 'identExpr') return k.value.name;
  if (k.case === 'selectExpr' && k.value.operand && !k.value.testOnly) {
    const left = qualifiedName(k.value.operand);
    return left === undefined ? undefined : `${left}.${k.value.field}`;
  }
  return undefined;
}

export function isScalar(t: CelT, name: string): boolean {
  return t.kind === 'scalar' && t.name === name;
}

export function sameType(a: CelT, b: CelT): boolean {
  return assignable(a, b) && assignable(b, a) && a.kind === b.kind;
}

export function comparableForEquality(a: CelT, b: CelT): boolean {
  if (a.kind === 'dyn' || b.kind === 'dyn' || isScalar(a, 'null_type') || isScalar(b, 'null_type')) return true;
  return assignable(a, b) || assignable(b, a);
}

export function orderable(a: CelT, b: CelT): boolean {
  if (a.kind === 'dyn' || b.kind === 'dyn') return true;
  if (a.kind !== 'scalar' || b.kind !== 'scalar') return false;
  if (NUMERIC.has(a.name) && NUMERIC.has(b.name)) return true; // cross-type numeric comparisons (k8s 1.28+)
  return a.name === b.name && ['string', 'bytes', 'bool', 'timestamp', 'duration'].includes(a.name);
}

/** Whether two types can be one type parameter (a list's `+`): one assignable to the other. */
export function unifiable(a: CelT, b: CelT): boolean {
  return assignable(a, b) || assignable(b, a);
}
