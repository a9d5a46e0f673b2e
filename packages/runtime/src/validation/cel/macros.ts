/**
 * cel-go's two-variable comprehensions (ext.TwoVarComprehensions, enabled by the apiserver since 1.32):
 * `all(k, v, p)`, `exists(k, v, p)`, `existsOne(k, v, p)`, `transformList(k, v, [filter,] t)`,
 * `transformMap(k, v, [filter,] t)`, `transformMapEntry(k, v, [filter,] e)`. `@bufbuild/cel` parses them as plain
 * calls, so they are rewritten here into one-variable comprehensions over the range's keys (list indexes or map
 * keys), with the range bound once and `v` read as `range[k]`.
 */
import { create } from '@bufbuild/protobuf';
import { parse, celFunc, CelScalar, isCelList, isCelMap, listType, mapType, type CelFunc, type CelMap, type CelInput } from '@bufbuild/cel';
import { ExprSchema, SourceInfoSchema, type Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { DYN, INT, listOf, mapOf } from './decl.js';
import { desugarOptionalSyntax, lowerOptionalSyntax, originalPositions } from './optional-syntax.js';
import { children, maxId } from './ast.js';
import { typed } from './library/typed.js';

const MACROS = new Set(['all', 'exists', 'existsOne', 'exists_one', 'transformList', 'transformMap', 'transformMapEntry']);
/** The optional library's macros: `opt.optMap(v, expr)`, `opt.optFlatMap(v, expr)`. */
const OPT_MACROS = new Set(['optMap', 'optFlatMap']);

/**
 * Parses a CEL expression as the apiserver's parser would: `@bufbuild/cel`'s parser plus the optional syntax and the
 * two-variable macros.
 */
export function parseCel(source: string): ReturnType<typeof parse> {
  const desugared = desugarOptionalSyntax(source);
  const parsed = parse(desugared.text);
  const positions = (parsed.sourceInfo ??= create(SourceInfoSchema)).positions;
  originalPositions(positions, desugared);
  parsed.expr = lowerOptionalSyntax(parsed.expr);
  parsed.expr = expandTwoVarMacros(parsed.expr, positions);
  return parsed;
}

/** Rewrites the two-variable macro calls in `root` (in place, allocating ids after the largest in `positions`). */
export function expandTwoVarMacros(root: Expr, positions: Record<string, number>): Expr {
  let next = Object.keys(positions).reduce((m, k) => (BigInt(k) > m ? BigInt(k) : m), maxId(root)) + 1n;
  let bindings = 0;
  const mk = (pos: number, kind: Expr['exprKind']): Expr => {
    const id = next++;
    positions[String(id)] = pos;
    return create(ExprSchema, { id, exprKind: kind });
  };
  const ident = (name: string, pos: number): Expr => mk(pos, { case: 'identExpr', value: { name } as never });
  const call = (fn: string, args: Expr[], pos: number): Expr => mk(pos, { case: 'callExpr', value: { function: fn, args } as never });
  const bool = (b: boolean, pos: number): Expr => mk(pos, { case: 'constExpr', value: { constantKind: { case: 'boolValue', value: b } } as never });
  const int = (n: bigint, pos: number): Expr => mk(pos, { case: 'constExpr', value: { constantKind: { case: 'int64Value', value: n } } as never });
  const comprehension = (pos: number, c: { iterVar: string; iterRange: Expr; accuVar: string; accuInit: Expr; loopCondition: Expr; loopStep: Expr; result: Expr }): Expr =>
    mk(pos, { case: 'comprehensionExpr', value: { iterVar2: '', ...c } as never });
  /** `result` with `name` bound to `value`, evaluated once: a comprehension over nothing whose accumulator is it. */
  const bindOnce = (pos: number, name: string, value: Expr, result: Expr): Expr =>
    comprehension(pos, {
      iterVar: '@unused',
      iterRange: mk(pos, { case: 'listExpr', value: { elements: [] } as never }),
      accuVar: name,
      accuInit: value,
      loopCondition: bool(false, pos),
      loopStep: ident(name, pos),
      result,
    });

  const visit = (e: Expr): Expr => {
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr':
        if (k.value.operand) k.value.operand = visit(k.value.operand);
        return e;
      case 'listExpr':
        k.value.elements = k.value.elements.map(visit);
        return e;
      case 'structExpr':
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') en.keyKind.value = visit(en.keyKind.value);
          if (en.value) en.value = visit(en.value);
        }
        return e;
      case 'comprehensionExpr': {
        const c = k.value;
        for (const f of ['iterRange', 'accuInit', 'loopCondition', 'loopStep', 'result'] as const) if (c[f]) c[f] = visit(c[f]!);
        return e;
      }
      case 'callExpr': {
        const c = k.value;
        if (c.target) c.target = visit(c.target);
        c.args = c.args.map(visit);
        if (c.target && OPT_MACROS.has(c.function) && c.args.length === 2 && c.args[0]!.exprKind.case === 'identExpr') {
          // opt.optMap(v, e) → (bound = opt).hasValue() ? optional.of(e[v := bound.value()]) : optional.none()
          const pos = positions[String(e.id)] ?? 0;
          const bound = `@kv${bindings++}`;
          const v = c.args[0]!.exprKind.value.name;
          const method = (name: string): Expr => mk(pos, { case: 'callExpr', value: { function: name, target: ident(bound, pos), args: [] } as never });
          const body = substitute(c.args[1]!, v, () => method('value'));
          const some = c.function === 'optMap' ? call('optional.of', [body], pos) : body;
          return bindOnce(pos, bound, c.target, call('_?_:_', [method('hasValue'), some, call('optional.none', [], pos)], pos));
        }
        const vars = c.args.slice(0, 2).map((a) => (a.exprKind.case === 'identExpr' ? a.exprKind.value.name : undefined));
        const arity = c.function === 'transformList' || c.function === 'transformMap' || c.function === 'transformMapEntry' ? [3, 4] : [3];
        if (!c.target || !MACROS.has(c.function) || !arity.includes(c.args.length) || vars.includes(undefined)) return e;
        const [kVar, vVar] = vars as [string, string];
        const pos = positions[String(e.id)] ?? 0;
        const bound = `@kv${bindings++}`;
        const value = (): Expr => call('@kvValue', [ident(bound, pos), ident(kVar, pos)], pos);
        const body = c.args.slice(2).map((a) => substitute(a, vVar, value));
        const result = ident('@result', pos);
        const acc = (): Expr => ident('@result', pos);
        let init: Expr;
        let cond: Expr = bool(true, pos);
        let step: Expr;
        let out: Expr = result;
        const [first, second] = body as [Expr, Expr | undefined];
        const filtered = (then: Expr): Expr => (second ? call('_?_:_', [first, then, acc()], pos) : then);
        const produced = second ?? first;
        switch (c.function) {
          case 'all':
            init = bool(true, pos);
            cond = call('@not_strictly_false', [acc()], pos);
            step = call('_&&_', [acc(), first], pos);
            break;
          case 'exists':
            init = bool(false, pos);
            cond = call('@not_strictly_false', [call('!_', [acc()], pos)], pos);
            step = call('_||_', [acc(), first], pos);
            break;
          case 'existsOne':
          case 'exists_one':
            init = int(0n, pos);
            step = call('_?_:_', [first, call('_+_', [acc(), int(1n, pos)], pos), acc()], pos);
            out = call('_==_', [result, int(1n, pos)], pos);
            break;
          case 'transformList':
            init = mk(pos, { case: 'listExpr', value: { elements: [] } as never });
            step = filtered(call('_+_', [acc(), mk(pos, { case: 'listExpr', value: { elements: [produced] } as never })], pos));
            break;
          case 'transformMap':
            init = mk(pos, { case: 'structExpr', value: { messageName: '', entries: [] } as never });
            step = filtered(call('@mapInsert', [acc(), ident(kVar, pos), produced], pos));
            break;
          default:
            init = mk(pos, { case: 'structExpr', value: { messageName: '', entries: [] } as never });
            step = filtered(call('@mapInsertEntry', [acc(), produced], pos));
        }
        const loop = comprehension(pos, {
          iterVar: kVar,
          iterRange: call('@kvKeys', [ident(bound, pos)], pos),
          accuVar: '@result',
          accuInit: init,
          loopCondition: cond,
          loopStep: step,
          result: out,
        });
        return bindOnce(pos, bound, c.target, loop);
      }
      default:
        return e;
    }
  };
  return visit(root);
}

/** `e` with free occurrences of the identifier `name` replaced by `make()`. */
function substitute(e: Expr, name: string, make: () => Expr): Expr {
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      return k.value.name === name ? make() : e;
    case 'selectExpr':
      if (k.value.operand) k.value.operand = substitute(k.value.operand, name, make);
      return e;
    case 'callExpr':
      if (k.value.target) k.value.target = substitute(k.value.target, name, make);
      k.value.args = k.value.args.map((a) => substitute(a, name, make));
      return e;
    case 'listExpr':
      k.value.elements = k.value.elements.map((a) => substitute(a, name, make));
      return e;
    case 'structExpr':
      for (const en of k.value.entries) {
        if (en.keyKind.case === 'mapKey') en.keyKind.value = substitute(en.keyKind.value, name, make);
        if (en.value) en.value = substitute(en.value, name, make);
      }
      return e;
    case 'comprehensionExpr': {
      const c = k.value;
      if (c.iterRange) c.iterRange = substitute(c.iterRange, name, make);
      if (c.accuInit) c.accuInit = substitute(c.accuInit, name, make);
      const shadowedInLoop = c.iterVar === name || c.iterVar2 === name || c.accuVar === name;
      if (!shadowedInLoop) {
        if (c.loopCondition) c.loopCondition = substitute(c.loopCondition, name, make);
        if (c.loopStep) c.loopStep = substitute(c.loopStep, name, make);
      }
      if (c.accuVar !== name && c.result) c.result = substitute(c.result, name, make);
      return e;
    }
    default:
      return e;
  }
}

const keysOf = (r: CelInput): CelInput => {
  if (isCelList(r)) return Array.from({ length: r.size }, (_, i) => BigInt(i));
  if (isCelMap(r)) return [...r.keys()] as CelInput;
  throw new Error('no such overload');
};

function insert(m: CelMap, key: unknown, value: unknown): CelInput {
  const out = new Map<unknown, unknown>(m);
  if (out.has(key)) throw new Error(`insert failed: key ${String(key)} already exists`);
  out.set(key, value);
  return out as CelInput;
}

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

/** The runtime helpers the rewritten comprehensions call. */
export const TWO_VAR_FUNCS: CelFunc[] = [
  typed(celFunc('@kvKeys', [CelScalar.DYN], listType(CelScalar.DYN), (r) => keysOf(r as CelInput) as never), (_t, [r]) =>
    listOf(r?.kind === 'list' ? INT : r?.kind === 'map' ? r.key : DYN),
  ),
  typed(
    celFunc('@kvValue', [CelScalar.DYN, CelScalar.DYN], CelScalar.DYN, (r, k) => {
      if (isCelList(r)) return r.get(Number(k as bigint)) as never;
      if (isCelMap(r)) return r.get(k as string) as never;
      throw new Error('no such overload');
    }),
    (_t, [r]) => (r?.kind === 'list' ? r.elem : r?.kind === 'map' ? r.value : DYN),
  ),
  typed(celFunc('@mapInsert', [MAP, CelScalar.DYN, CelScalar.DYN], MAP, (m, k, v) => insert(m, k, v) as never), (_t, a) =>
    mapOf(a[1] ?? DYN, a[2] ?? DYN),
  ),
  celFunc('@mapInsertEntry', [MAP, MAP], MAP, (m, entry) => {
    let out = m as CelMap;
    for (const [k, v] of entry) out = insert(out, k, v) as CelMap;
    return out as never;
  }),
];
