/**
 * The rewrites the checker makes to an expression's AST as it learns the operands' types, so that evaluation
 * (`@bufbuild/cel` with optional.ts's functions) does what cel-go's typed program does:
 * - selecting or indexing on an optional chains (`x.?a.b` is `x.?a.?b`, `x.?a[k]` is `x.?a[?k]`), and `has()` on an
 *   optional asks whether it holds a value with the field: the select or index becomes an `@optSelect`, `@optIndex`
 *   or `@optHas` call;
 * - a reserved word selected bare (`self.namespace`) becomes the escaped name objects are keyed by (`__namespace__`).
 * Each rewrite keeps the node's id, so positions and issues still point at the source.
 */
import { create } from '@bufbuild/protobuf';
import { ExprSchema, type Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** Turns the select `e` (of `field` on `operand`) into `fn(operand, 'field')`: `@optSelect` or `@optHas`. */
export function toOptionalSelect(e: Expr, fn: '@optSelect' | '@optHas', operand: Expr, field: string): void {
  const name = create(ExprSchema, { id: e.id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'stringValue', value: field } } as never } });
  e.exprKind = { case: 'callExpr', value: { function: fn, args: [operand, name] } as never };
}

/** Turns the index call `e` (`_[_]`) into an optional index (`@optIndex`). */
export function toOptionalIndex(e: Expr): void {
  if (e.exprKind.case === 'callExpr') e.exprKind.value.function = '@optIndex';
}

/** Renames the field a select (or an optional select / has on an optional: `@optSelect`, `@optHas`) names. */
export function renameSelectedField(e: Expr, field: string): void {
  const k = e.exprKind;
  if (k.case === 'selectExpr') k.value.field = field;
  else if (k.case === 'callExpr') {
    const name = k.value.args[1]?.exprKind;
    if (name?.case === 'constExpr' && name.value.constantKind.case === 'stringValue') name.value.constantKind.value = field;
  }
}
