/**
 * CEL's optional syntax, `x.?field` and `x[?key]` (enabled by the apiserver since 1.28), which `@bufbuild/cel`'s
 * parser does not know: the source is rewritten before parsing (`x.__kgopt__field`, `x[__kgoptidx__(key)]`, skipping
 * string literals) and the parsed markers are turned into `@optSelect`/`@optIndex` calls. Optional list and map
 * entries (`[?a]`, `{?k: v}`) are not supported. Error positions after a rewritten `[?` are off by a few columns.
 */
import { create } from '@bufbuild/protobuf';
import { ExprSchema, type Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { children } from './ast.js';

const SELECT_MARK = '__kgopt__';
const INDEX_MARK = '__kgoptidx__';

/** The end (exclusive) of the string literal starting at `i`, or -1 if none starts there. */
function stringEnd(src: string, i: number): number {
  const m = /^([rRbB]{0,2})('''|"""|'|")/.exec(src.slice(i, i + 5));
  if (!m || (i > 0 && /[A-Za-z0-9_]/.test(src[i - 1]!) && m[1] !== '')) return -1;
  const raw = /[rR]/.test(m[1]!);
  const quote = m[2]!;
  let j = i + m[0].length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') j += 2;
    else if (src.startsWith(quote, j)) return j + quote.length;
    else j++;
  }
  return src.length;
}

/** The source with `.?` and `[?` rewritten into markers `@bufbuild/cel` parses; unchanged when it has neither. */
export function desugarOptionalSyntax(src: string): string {
  if (!src.includes('?')) return src;
  let out = '';
  const brackets: boolean[] = [];
  let i = 0;
  while (i < src.length) {
    const end = /['"rRbB]/.test(src[i]!) ? stringEnd(src, i) : -1;
    if (end > i) {
      out += src.slice(i, end);
      i = end;
      continue;
    }
    const c = src[i]!;
    const rest = src.slice(i + 1);
    if (c === '.' && /^\?\s*[A-Za-z_]/.test(rest)) {
      const skip = /^\?\s*/.exec(rest)![0].length;
      out += `.${SELECT_MARK}`;
      i += 1 + skip;
    } else if (c === '[') {
      const opt = /^\s*\?/.exec(rest);
      brackets.push(opt !== null);
      out += opt ? `[${INDEX_MARK}(` : '[';
      i += 1 + (opt ? opt[0].length : 0);
    } else if (c === ']') {
      out += brackets.pop() ? ')]' : ']';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Turns the parsed markers into `@optSelect(x, 'field')` and `@optIndex(x, key)` calls (in place). */
export function lowerOptionalSyntax(e: Expr): void {
  children(e).forEach(lowerOptionalSyntax);
  const k = e.exprKind;
  if (k.case === 'selectExpr' && k.value.field.startsWith(SELECT_MARK) && k.value.operand) {
    const field = k.value.field.slice(SELECT_MARK.length);
    const name = create(ExprSchema, { id: e.id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'stringValue', value: field } } as never } });
    e.exprKind = { case: 'callExpr', value: { function: '@optSelect', args: [k.value.operand, name] } as never };
  } else if (k.case === 'callExpr') {
    const idx = k.value.args[1];
    if (k.value.function === '_[_]' && idx?.exprKind.case === 'callExpr' && idx.exprKind.value.function === INDEX_MARK && idx.exprKind.value.args.length === 1) {
      k.value.function = '@optIndex';
      k.value.args = [k.value.args[0]!, idx.exprKind.value.args[0]!];
    }
  }
}
