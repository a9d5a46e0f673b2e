/**
 * `x-kubernetes-list-type: set` and `map` lists compare and concatenate as the apiserver's values do
 * (apiserver/pkg/cel/common/valuesunstructured.go): `==` ignores order (a map list matches elements by their keys),
 * `+` is a union (set) or a keyed merge (map), and objects or lists holding such lists compare them so. The decision
 * follows the left operand's declared type, as cel-go's `Equal`/`Add` dispatch on the receiver. `@bufbuild/cel` knows
 * nothing of this, so the checker notes such operators and they are rewritten into calls of the functions below.
 */
import { create } from '@bufbuild/protobuf';
import { celFunc, CelScalar, isCelList, isCelMap, listType, type CelFunc, type CelValue, type CelInput } from '@bufbuild/cel';
import { ExprSchema, type Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { children } from './ast.js';
import type { CelT } from './decl.js';
import { celEquals } from './library/compare.js';

/** One operator to rewrite: the call's id, the operator, and the left operand's declared type. */
export interface SemanticOp {
  id: bigint;
  op: '_==_' | '_!=_' | '_+_';
  type: CelT;
}

const TYPES: CelT[] = [];
const typeIds = new Map<CelT, number>();

function typeId(t: CelT): number {
  let id = typeIds.get(t);
  if (id === undefined) {
    id = TYPES.push(t) - 1;
    typeIds.set(t, id);
  }
  return id;
}

const holds = new WeakMap<object, boolean>();

/** Whether values of `t` compare differently from plain CEL values (a set/map list somewhere inside). */
export function hasSemanticList(t: CelT): boolean {
  const cached = holds.get(t);
  if (cached !== undefined) return cached;
  holds.set(t, false); // cycles cannot occur in schemas, but be safe
  let r = false;
  if (t.kind === 'list') r = t.listType !== undefined || hasSemanticList(t.elem);
  else if (t.kind === 'map') r = hasSemanticList(t.value);
  else if (t.kind === 'object') r = [...t.fields.values()].some(hasSemanticList);
  holds.set(t, r);
  return r;
}

/** Rewrites the noted operators in `root` into calls of the functions below (in place). */
export function rewriteSemanticOps(root: Expr, ops: readonly SemanticOp[], nextId: () => bigint): void {
  if (ops.length === 0) return;
  const byId = new Map(ops.map((o) => [o.id, o]));
  const visit = (e: Expr): void => {
    children(e).forEach(visit);
    const op = byId.get(e.id);
    if (!op || e.exprKind.case !== 'callExpr') return;
    const call = e.exprKind.value;
    call.function = op.op === '_==_' ? '@k8sEquals' : op.op === '_!=_' ? '@k8sNotEquals' : '@k8sAdd';
    call.args.push(create(ExprSchema, { id: nextId(), exprKind: { case: 'constExpr', value: { constantKind: { case: 'int64Value', value: BigInt(typeId(op.type)) } } as never } }));
  };
  visit(root);
}

function keyOf(v: CelValue, keys: readonly string[]): CelValue[] {
  return keys.map((k) => (isCelMap(v) ? v.get(k) ?? null : null));
}

function findKeyed(list: readonly CelValue[], v: CelValue, keys: readonly string[]): number {
  const key = keyOf(v, keys);
  return list.findIndex((x) => keyOf(x, keys).every((kv, i) => celEquals(kv, key[i]!)));
}

/** `a == b` with `a` of declared type `t`. */
export function semanticEquals(a: CelValue, b: CelValue, t: CelT): boolean {
  if (t.kind === 'list' && isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    const xs = [...a];
    if (t.listType === 'set') return [...b].every((y) => xs.some((x) => celEquals(x, y)));
    if (t.listType === 'map') {
      return [...b].every((y) => {
        const i = findKeyed(xs, y, t.mapKeys ?? []);
        return i >= 0 && semanticEquals(xs[i]!, y, t.elem);
      });
    }
    return xs.every((x, i) => semanticEquals(x, b.get(i)!, t.elem));
  }
  if ((t.kind === 'object' || t.kind === 'map') && isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, va] of a) {
      const vb = b.get(k);
      if (vb === undefined) return false;
      const ft = t.kind === 'map' ? t.value : t.fields.get(String(k));
      if (!(ft ? semanticEquals(va, vb, ft) : celEquals(va, vb))) return false;
    }
    return true;
  }
  return celEquals(a, b);
}

/** `a + b` with `a` a list of declared type `t`. */
function semanticAdd(a: CelValue, b: CelValue, t: CelT): CelInput {
  if (!isCelList(a) || !isCelList(b)) throw new Error('no such overload');
  const out = [...a];
  if (t.kind === 'list' && t.listType === 'set') {
    for (const y of b) if (!out.some((x) => celEquals(x, y))) out.push(y);
  } else if (t.kind === 'list' && t.listType === 'map') {
    for (const y of b) {
      const i = findKeyed(out, y, t.mapKeys ?? []);
      if (i >= 0) out[i] = y;
      else out.push(y);
    }
  } else {
    out.push(...b);
  }
  return out as CelInput;
}

const typeOf = (id: bigint): CelT => TYPES[Number(id)]!;

export const SEMANTIC_FUNCS: CelFunc[] = [
  celFunc('@k8sEquals', [CelScalar.DYN, CelScalar.DYN, CelScalar.INT], CelScalar.BOOL, (a, b, t) => semanticEquals(a, b, typeOf(t))),
  celFunc('@k8sNotEquals', [CelScalar.DYN, CelScalar.DYN, CelScalar.INT], CelScalar.BOOL, (a, b, t) => !semanticEquals(a, b, typeOf(t))),
  celFunc('@k8sAdd', [CelScalar.DYN, CelScalar.DYN, CelScalar.INT], listType(CelScalar.DYN), (a, b, t) => semanticAdd(a, b, typeOf(t)) as never),
];
