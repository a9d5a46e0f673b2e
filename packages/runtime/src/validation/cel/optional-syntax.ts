/**
 * CEL's optional syntax, `x.?field` and `x[?key]` (enabled by the apiserver since 1.28), which `@bufbuild/cel`'s
 * parser does not know: the source is rewritten before parsing (`x.__kgopt__field`, `x[__kgoptidx__(key)]`, skipping
 * string literals, and optional list and map entries `[?a]`, `{?k: v}` into `[__kgoptentry__(a)]`,
 * `{__kgoptentry__(k): v}`) and the parsed markers are turned into `@optSelect`/`@optIndex`/`@optList`/`@optMap`
 * calls (optional.ts evaluates them; the checker types them). Positions are mapped back to the source.
 */
import { create } from '@bufbuild/protobuf';
import { ExprSchema, type Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { children, maxId } from './ast.js';

const SELECT_MARK = '__kgopt__';
const INDEX_MARK = '__kgoptidx__';
const ENTRY_MARK = '__kgoptentry__';

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

/** An open bracket of the source: what it opens, and whether an optional entry's marker call is open in it. */
interface Frame {
  kind: 'index' | 'optIndex' | 'list' | 'map' | 'other';
  marker: boolean;
}

/** Whether a `[` after `before` (the output so far) indexes the expression before it, rather than opening a list. */
function opensIndex(before: string): boolean {
  const t = before.trimEnd();
  if (t === '' || /(^|[^A-Za-z0-9_])in$/.test(t)) return false;
  return /[A-Za-z0-9_)\]}'"]$/.test(t);
}

/** Rewritten source, and for each of its characters the offset in the original it stands for. */
export interface Desugared {
  text: string;
  origin: number[];
}

/**
 * The source with `.?`, `[?`, and optional list and map entries (`[?a]`, `{?k: v}`) rewritten into markers
 * `@bufbuild/cel` parses (unchanged when it has no `?`), with the origin of every character, so that positions in
 * the parsed expression can be mapped back to the source (see `originalPositions`).
 */
export function desugarOptionalSyntax(src: string): Desugared {
  if (!src.includes('?')) return { text: src, origin: [] };
  let out = '';
  const origin: number[] = [];
  /** Appends `text`, standing for the source at `at` (copied text: at, at + 1, ...; inserted markers: all at `at`). */
  const emit = (text: string, at: number, copied = false): void => {
    out += text;
    for (let j = 0; j < text.length; j++) origin.push(copied ? at + j : at);
  };
  const frames: Frame[] = [];
  /** Whether the next token starts an entry of the innermost list or map literal. */
  let entryStart = false;
  let i = 0;
  while (i < src.length) {
    const end = /['"rRbB]/.test(src[i]!) ? stringEnd(src, i) : -1;
    if (end > i) {
      emit(src.slice(i, end), i, true);
      i = end;
      entryStart = false;
      continue;
    }
    const c = src[i]!;
    const rest = src.slice(i + 1, i + 64);
    const top = frames[frames.length - 1];
    if (/\s/.test(c)) {
      emit(c, i);
      i++;
      continue;
    }
    if (c === '?' && entryStart && (top?.kind === 'list' || top?.kind === 'map')) {
      emit(`${ENTRY_MARK}(`, i + 1);
      top.marker = true;
      i++;
      entryStart = false;
      continue;
    }
    entryStart = false;
    if (c === '.' && /^\?\s*[A-Za-z_]/.test(rest)) {
      const skip = /^\?\s*/.exec(rest)![0].length;
      emit(`.${SELECT_MARK}`, i);
      i += 1 + skip;
      continue;
    }
    if (c === '[' && opensIndex(out)) {
      const opt = /^\s*\?/.exec(rest);
      frames.push({ kind: opt ? 'optIndex' : 'index', marker: false });
      emit(opt ? `[${INDEX_MARK}(` : '[', i);
      i += 1 + (opt ? opt[0].length : 0);
      continue;
    }
    if (c === '[' || c === '{' || c === '(') {
      // `Msg{...}` is a message literal, not a map: its fields are left alone.
      const kind = c === '[' ? 'list' : c === '{' && !/[A-Za-z0-9_]$/.test(out.trimEnd()) ? 'map' : 'other';
      frames.push({ kind, marker: false });
      entryStart = kind !== 'other';
    } else if (c === ']' || c === '}' || c === ')') {
      const f = frames.pop();
      if (f?.kind === 'optIndex' || f?.marker) emit(')', i);
    } else if ((c === ',' && top?.marker) || (c === ':' && top?.kind === 'map' && top.marker)) {
      emit(')', i);
      top!.marker = false;
    }
    if (c === ',' && (top?.kind === 'list' || top?.kind === 'map')) entryStart = true;
    emit(c, i);
    i++;
  }
  return { text: out, origin };
}

/** Maps `positions` (offsets in the rewritten text, by expression id) back to the source, in place. */
export function originalPositions(positions: Record<string, number>, d: Desugared): void {
  if (d.origin.length === 0) return;
  for (const [id, at] of Object.entries(positions)) positions[id] = d.origin[at] ?? at;
}

/**
 * Turns the parsed markers into calls (in place, but returns the root, which may be replaced): `@optSelect(x,
 * 'field')`, `@optIndex(x, key)`, and for list or map literals with optional entries `@optList([elements], [indexes
 * of the optional ones])` and `@optMap([keys], [values], [indexes of the optional ones])`; `type(x)` becomes
 * `@type(x)` and the identifier `optional_type` `@optionalType()`, which know the optional's representation.
 */
export function lowerOptionalSyntax(root: Expr): Expr {
  let next = maxId(root) + 1n;
  const mk = (kind: Expr['exprKind']): Expr => create(ExprSchema, { id: next++, exprKind: kind });
  const list = (elements: Expr[]): Expr => mk({ case: 'listExpr', value: { elements, optionalIndices: [] } as never });
  const ints = (xs: number[]): Expr => list(xs.map((x) => mk({ case: 'constExpr', value: { constantKind: { case: 'int64Value', value: BigInt(x) } } as never })));
  /** The marked expression inside `__kgoptentry__(x)`, or undefined. */
  const unmark = (x: Expr | undefined): Expr | undefined =>
    x?.exprKind.case === 'callExpr' && x.exprKind.value.function === ENTRY_MARK && !x.exprKind.value.target && x.exprKind.value.args.length === 1 ? x.exprKind.value.args[0] : undefined;
  const visit = (e: Expr): void => {
    children(e).forEach(visit);
    const k = e.exprKind;
    if (k.case === 'selectExpr' && k.value.field.startsWith(SELECT_MARK) && k.value.operand) {
      const field = k.value.field.slice(SELECT_MARK.length);
      const name = mk({ case: 'constExpr', value: { constantKind: { case: 'stringValue', value: field } } as never });
      e.exprKind = { case: 'callExpr', value: { function: '@optSelect', args: [k.value.operand, name] } as never };
    } else if (k.case === 'identExpr' && k.value.name === 'optional_type') {
      e.exprKind = { case: 'callExpr', value: { function: '@optionalType', args: [] } as never };
    } else if (k.case === 'callExpr' && k.value.function === 'type' && !k.value.target && k.value.args.length === 1) {
      k.value.function = '@type'; // which knows optionals
    } else if (k.case === 'callExpr') {
      const idx = k.value.args[1];
      if (k.value.function === '_[_]' && idx?.exprKind.case === 'callExpr' && idx.exprKind.value.function === INDEX_MARK && idx.exprKind.value.args.length === 1) {
        k.value.function = '@optIndex';
        k.value.args = [k.value.args[0]!, idx.exprKind.value.args[0]!];
      }
    } else if (k.case === 'listExpr') {
      const optional: number[] = [];
      const elements = k.value.elements.map((x, i) => {
        const inner = unmark(x);
        if (inner) optional.push(i);
        return inner ?? x;
      });
      if (optional.length > 0) e.exprKind = { case: 'callExpr', value: { function: '@optList', args: [list(elements), ints(optional)] } as never };
    } else if (k.case === 'structExpr' && !k.value.messageName) {
      const optional: number[] = [];
      const keys = k.value.entries.map((en, i) => {
        const key = en.keyKind.case === 'mapKey' ? en.keyKind.value : mk({ case: 'constExpr', value: { constantKind: { case: 'nullValue', value: 0 } } as never });
        const inner = unmark(key);
        if (inner) optional.push(i);
        return inner ?? key;
      });
      const values = k.value.entries.map((en) => en.value ?? mk({ case: 'constExpr', value: { constantKind: { case: 'nullValue', value: 0 } } as never }));
      if (optional.length > 0) e.exprKind = { case: 'callExpr', value: { function: '@optMap', args: [list(keys), list(values), ints(optional)] } as never };
    }
  };
  visit(root);
  return root;
}
