import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** The direct subexpressions of `e`, in source order (a comprehension's: range, init, condition, step, result). */
export function children(e: Expr): Expr[] {
  const k = e.exprKind;
  const all: (Expr | undefined)[] =
    k.case === 'selectExpr' ? [k.value.operand]
    : k.case === 'callExpr' ? [k.value.target, ...k.value.args]
    : k.case === 'listExpr' ? k.value.elements
    : k.case === 'structExpr' ? k.value.entries.flatMap((en) => [en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined, en.value])
    : k.case === 'comprehensionExpr' ? [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result]
    : [];
  return all.filter((x): x is Expr => x !== undefined);
}

/** The largest expression id in the tree. */
export function maxId(e: Expr): bigint {
  return children(e).reduce((m, c) => {
    const x = maxId(c);
    return x > m ? x : m;
  }, e.id);
}
