/**
 * Where an issue about an expression is placed in its source, as cel-go places it: `@bufbuild/cel`'s parser records
 * a call at the start of its name (or the `.` before a method) and an operator just after its left operand, cel-go at
 * the call's `(` and at the operator itself. Positions are offsets into the expression's text (already mapped back
 * through the optional-syntax rewrite, optional-syntax.ts).
 */
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/**
 * The offset cel-go reports for `e`, from `positions` (by expression id, `@bufbuild/cel`'s); without `source`, the
 * recorded position as is.
 */
export function celGoOffset(e: Expr, positions: Record<string, number>, source: string | undefined): number {
  const at = positions[String(e.id)] ?? 0;
  if (source === undefined || e.exprKind.case !== 'callExpr') return at;
  const fn = e.exprKind.value.function;
  if (/^[_!-]|^@/.test(fn)) {
    const m = /^\s*/.exec(source.slice(at));
    return at + (m ? m[0].length : 0);
  }
  const paren = source.indexOf('(', at);
  return paren >= 0 ? paren : at;
}
