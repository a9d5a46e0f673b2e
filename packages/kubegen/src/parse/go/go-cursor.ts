/**
 * Walking a Go file's tokens for the declaration reader (go-decls.ts): the next significant token, with the comments
 * before it kept so that a declaration's doc comment and the marker group above it can be read; expectations that
 * throw a `GoSyntaxError` naming the file and position; and skipping what the reader never reads (bracketed runs,
 * expressions, function bodies) with brackets balanced.
 */
import { GoSyntaxError } from './go-lexer.js';
import type { GoToken } from './go-lexer.js';

/** A position in a token list (see the module comment). */
export class GoTokenCursor {
  private pos = 0;
  /** Comment tokens seen since the last significant token. */
  private pending: GoToken[] = [];

  constructor(
    private readonly tokens: GoToken[],
    private readonly file: string,
  ) {}

  /** The next significant token; comments before it are collected into `pending` (cleared by significant tokens). */
  peek(): GoToken {
    while (this.tokens[this.pos]!.kind === 'comment') this.pending.push(this.tokens[this.pos++]!);
    return this.tokens[this.pos]!;
  }

  /** Consumes the next significant token; a significant token other than `;` clears the pending comments. */
  next(): GoToken {
    const t = this.peek();
    this.pos++;
    if (t.kind !== 'semi') this.pending = [];
    return t;
  }

  /** The raw token `offset` places after the current one (comments included), for lookahead. */
  raw(offset: number): GoToken | undefined {
    return this.tokens[this.pos + offset];
  }

  /** Consumes an identifier and returns it; throws naming what was found instead. */
  expectIdent(): string {
    const t = this.next();
    if (t.kind !== 'ident') throw this.error(t, `expected an identifier, found ${JSON.stringify(t.text)}`);
    return t.text;
  }

  /** Consumes the identifier `word` (a keyword); throws naming what was found instead. */
  expectIdentText(word: string): void {
    const t = this.next();
    if (t.kind !== 'ident' || t.text !== word) throw this.error(t, `expected ${word}, found ${JSON.stringify(t.text)}`);
  }

  /** Consumes the operator `op`; throws naming what was found instead. */
  expectOp(op: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.text !== op) throw this.error(t, `expected ${JSON.stringify(op)}, found ${JSON.stringify(t.text)}`);
  }

  /** Consumes any `;` (written or inserted at line ends). */
  skipSemis(): void {
    while (this.peek().kind === 'semi') this.next();
  }

  /** Whether the next significant token ends a statement: `;`, the end of the file, or the `)` of a group. */
  atStatementEnd(): boolean {
    const t = this.peek();
    return t.kind === 'semi' || t.kind === 'eof' || (t.kind === 'op' && t.text === ')');
  }

  /** Skips a bracketed run starting at the current `(`, `[` or `{`, nesting included. */
  skipBalanced(): void {
    let depth = 0;
    do {
      const t = this.next();
      if (t.kind === 'eof') throw this.error(t, 'unbalanced brackets');
      if (t.kind === 'op' && '([{'.includes(t.text)) depth++;
      if (t.kind === 'op' && ')]}'.includes(t.text)) depth--;
    } while (depth > 0);
  }

  /** Skips to the operator `op` (not consuming it), bracketed runs whole; throws at the end of the file. */
  skipUntil(op: string): void {
    while (!(this.peek().kind === 'op' && this.peek().text === op)) {
      if (this.peek().kind === 'eof') throw this.error(this.peek(), `expected ${op}`);
      if (this.peek().kind === 'op' && '([{'.includes(this.peek().text)) this.skipBalanced();
      else this.next();
    }
  }

  /**
   * Skips an expression up to the `;` (or `)` of a group) that ends it, brackets balanced; returns the tokens skipped
   * (comments included).
   */
  skipExpression(): GoToken[] {
    const start = this.pos;
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') break;
      if (depth === 0 && (t.kind === 'semi' || (t.kind === 'op' && (t.text === ')' || t.text === ',')))) break;
      if (t.kind === 'op' && '([{'.includes(t.text)) depth++;
      if (t.kind === 'op' && ')]}'.includes(t.text)) depth--;
      this.next();
    }
    return this.tokens.slice(start, this.pos);
  }

  /** Skips a `func` declaration after its keyword: signature and body (none, for a declaration without one). */
  skipFunc(): void {
    let depth = 0;
    let prev: GoToken | undefined;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') return;
      if (t.kind === 'op' && (t.text === '(' || t.text === '[')) depth++;
      if (t.kind === 'op' && (t.text === ')' || t.text === ']')) depth--;
      if (depth === 0 && t.kind === 'op' && t.text === '{' && !(prev?.kind === 'ident' && (prev.text === 'interface' || prev.text === 'struct'))) {
        this.skipBalanced();
        return;
      }
      if (depth === 0 && t.kind === 'semi') return;
      if (t.kind === 'op' && t.text === '{') {
        this.skipBalanced();
        prev = undefined;
        continue;
      }
      prev = this.next();
    }
  }

  /** The comment group ending right above `t` (no blank line between), oldest first. */
  adjacentComments(t: GoToken): GoToken[] {
    const group: GoToken[] = [];
    let line = t.line;
    for (let k = this.pending.length - 1; k >= 0; k--) {
      const c = this.pending[k]!;
      const end = c.line + (c.text.match(/\n/g)?.length ?? 0);
      if (end !== line - 1 || !c.ownLine) break;
      group.unshift(c);
      line = c.line;
    }
    return group;
  }

  /**
   * A declaration's doc (the adjacent comment group) and, with it, the last comment group above the doc (after a
   * blank line: where code generators put markers such as `+genclient`).
   */
  docOf(t: GoToken): { doc: string[]; comments: string[] } {
    const doc = this.adjacentComments(t);
    const rest = this.pending.slice(0, this.pending.length - doc.length).filter((c) => c.ownLine);
    const above: GoToken[] = [];
    for (let k = rest.length - 1; k >= 0; k--) {
      const c = rest[k]!;
      const end = c.line + (c.text.match(/\n/g)?.length ?? 0);
      if (above.length > 0 && end !== above[0]!.line - 1) break;
      above.unshift(c);
    }
    const lines = (cs: GoToken[]): string[] => cs.flatMap((c) => commentText(c).split('\n'));
    return { doc: lines(doc), comments: [...lines(above), ...lines(doc)] };
  }

  /** A `GoSyntaxError` at `t`'s position in this file. */
  error(t: GoToken, detail: string): GoSyntaxError {
    return new GoSyntaxError(this.file, t.line, t.column, detail);
  }
}

/** A comment's text: `// x` → ` x`; a block comment's lines with leading `*` decoration kept as written. */
export function commentText(c: GoToken): string {
  return c.text;
}
