/**
 * The declarations of one Go file that an API package is made of: its package name, imports, type declarations
 * (with their doc comments and the comment group above them, where code generators put markers such as
 * `+genclient`), typed constants (the values of `+enum` types) and `map[string]string` variables (the
 * `types_swagger_doc_generated.go` descriptions). Function bodies and other variables are skipped. This is not a Go
 * parser: statements and expressions are never read, only skipped with balanced brackets.
 */
import { GoSyntaxError, tokenizeGo } from './go-lexer.js';
import type { GoToken } from './go-lexer.js';

/** A Go type expression. */
export type GoType =
  /** `T`, or `pkg.T` (`pkg` is the import's local name). */
  | { kind: 'name'; pkg?: string; name: string }
  | { kind: 'pointer'; elem: GoType }
  | { kind: 'slice'; elem: GoType }
  | { kind: 'array'; elem: GoType }
  | { kind: 'map'; key: GoType; value: GoType }
  | { kind: 'struct'; fields: GoField[] }
  /** `interface{...}`, `func(...)`, `chan T`: nothing a JSON schema can describe. */
  | { kind: 'opaque'; what: string };

/** One field of a struct: named, or embedded (`name` absent). */
export interface GoField {
  name?: string;
  type: GoType;
  /** The raw struct tag (`json:"name,omitempty" protobuf:"…"`), without backquotes. */
  tag: string;
  /** Comment lines right above the field, without `//` (markers included). */
  comments: string[];
  line: number;
  column: number;
}

export interface GoTypeDecl {
  name: string;
  type: GoType;
  /** `type A = B`. */
  alias: boolean;
  /** The doc comment: the comment group ending on the line above, without `//`. */
  doc: string[];
  /** The doc comment and the comment group above it (code-generator markers live in either). */
  comments: string[];
  line: number;
  column: number;
}

export interface GoConst {
  name: string;
  /** The declared type, if any (`const PodRunning PodPhase = "Running"`). */
  type?: GoType;
  /** The value when it is a single string literal. */
  value?: string;
  /** The value when it is a single identifier (another constant). */
  valueName?: string;
  doc: string[];
  line: number;
}

/** A `var x = map[string]string{"k": "v", …}` variable. */
export interface GoStringMapVar {
  name: string;
  entries: [string, string][];
}

export interface GoFile {
  file: string;
  packageName: string;
  /** Package comment lines (the comment group right above `package`). */
  packageDoc: string[];
  /** Local name → import path. An import without a name is known by the path's last element. */
  imports: Map<string, string>;
  types: GoTypeDecl[];
  consts: GoConst[];
  stringMaps: GoStringMapVar[];
}

/** Reads the declarations of one Go source file. Throws `GoSyntaxError` on malformed input. */
export function parseGoFile(src: string, file: string): GoFile {
  return new DeclParser(tokenizeGo(src, file), file).parseFile();
}

class DeclParser {
  private pos = 0;
  /** Comment tokens seen since the last significant token. */
  private pending: GoToken[] = [];

  constructor(
    private readonly tokens: GoToken[],
    private readonly file: string,
  ) {}

  parseFile(): GoFile {
    const out: GoFile = { file: this.file, packageName: '', packageDoc: [], imports: new Map(), types: [], consts: [], stringMaps: [] };
    const pkgDoc = this.docOf(this.peek());
    const pkg = this.next();
    if (pkg.text !== 'package' || pkg.kind !== 'ident') throw this.error(pkg, 'expected the package clause');
    out.packageDoc = pkgDoc.doc;
    out.packageName = this.expectIdent();
    this.skipSemis();
    while (this.peek().kind !== 'eof') {
      const doc = this.docOf(this.peek());
      const t = this.next();
      if (t.kind !== 'ident') throw this.error(t, `unexpected ${JSON.stringify(t.text)} at the top level`);
      switch (t.text) {
        case 'import':
          this.group(() => this.importSpec(out.imports));
          break;
        case 'type':
          this.group((specDoc) => out.types.push(this.typeSpec(specDoc ?? doc)), true);
          break;
        case 'const':
          this.constDecl(out.consts, doc);
          break;
        case 'var':
          this.group(() => this.varSpec(out.stringMaps));
          break;
        case 'func':
          this.skipFunc();
          break;
        default:
          throw this.error(t, `unexpected ${JSON.stringify(t.text)} at the top level`);
      }
      this.skipSemis();
    }
    return out;
  }

  /** `kw spec` or `kw ( spec; spec; … )`; with `docs`, each spec in a group gets its own doc comments. */
  private group(spec: (doc?: { doc: string[]; comments: string[] }) => void, docs = false): void {
    if (this.peek().text === '(' && this.peek().kind === 'op') {
      this.next();
      this.skipSemis();
      while (!(this.peek().kind === 'op' && this.peek().text === ')')) {
        spec(docs ? this.docOf(this.peek()) : undefined);
        this.skipSemis();
      }
      this.next();
    } else spec();
  }

  private importSpec(imports: Map<string, string>): void {
    let name: string | undefined;
    if (this.peek().kind === 'ident' || (this.peek().kind === 'op' && this.peek().text === '.')) name = this.next().text;
    const p = this.next();
    if (p.kind !== 'string') throw this.error(p, 'expected an import path');
    const local = name ?? p.text.slice(p.text.lastIndexOf('/') + 1);
    if (local !== '_' && local !== '.') imports.set(local, p.text);
  }

  private typeSpec(doc: { doc: string[]; comments: string[] }): GoTypeDecl {
    const nameTok = this.peek();
    const name = this.expectIdent();
    if (this.peek().kind === 'op' && this.peek().text === '[' && this.isTypeParams()) this.skipBalanced();
    let alias = false;
    if (this.peek().kind === 'op' && this.peek().text === '=') {
      this.next();
      alias = true;
    }
    const type = this.type();
    return { name, type, alias, doc: doc.doc, comments: doc.comments, line: nameTok.line, column: nameTok.column };
  }

  /** `[T any]` after a type name is a type parameter list; `[5]int` is not reached here (a name comes first). */
  private isTypeParams(): boolean {
    const a = this.tokens[this.pos + 1];
    const b = this.tokens[this.pos + 2];
    return a?.kind === 'ident' && b !== undefined && !(b.kind === 'op' && b.text === ']');
  }

  private constDecl(out: GoConst[], outerDoc: { doc: string[] }): void {
    const grouped = this.peek().kind === 'op' && this.peek().text === '(';
    let last: { type?: GoType; value?: string; valueName?: string } = {};
    const spec = (doc: string[]): void => {
      const first = this.peek();
      const names = [this.expectIdent()];
      while (this.peek().kind === 'op' && this.peek().text === ',') {
        this.next();
        names.push(this.expectIdent());
      }
      let type: GoType | undefined;
      let value: string | undefined;
      let valueName: string | undefined;
      let explicit = false;
      if (!(this.peek().kind === 'op' && this.peek().text === '=') && !this.atStatementEnd()) type = this.type();
      if (this.peek().kind === 'op' && this.peek().text === '=') {
        this.next();
        explicit = true;
        const start = this.pos;
        this.skipExpression();
        const expr = this.tokens.slice(start, this.pos).filter((t) => t.kind !== 'comment');
        if (expr.length === 1 && expr[0]!.kind === 'string') value = expr[0]!.text;
        else if (expr.length === 1 && expr[0]!.kind === 'ident') valueName = expr[0]!.text;
      }
      // A spec without a value repeats the previous one's type and expression (iota sequences).
      if (!explicit) ({ type, value, valueName } = { ...last, ...(type ? { type } : {}) });
      last = { ...(type ? { type } : {}), ...(value !== undefined ? { value } : {}), ...(valueName !== undefined ? { valueName } : {}) };
      for (const name of names) {
        const c: GoConst = { name, doc, line: first.line };
        if (type) c.type = type;
        if (value !== undefined) c.value = value;
        if (valueName !== undefined) c.valueName = valueName;
        out.push(c);
      }
    };
    if (grouped) {
      this.next();
      this.skipSemis();
      while (!(this.peek().kind === 'op' && this.peek().text === ')')) {
        spec(this.docOf(this.peek()).doc);
        this.skipSemis();
      }
      this.next();
    } else spec(outerDoc.doc);
  }

  private varSpec(out: GoStringMapVar[]): void {
    const names = [this.expectIdent()];
    while (this.peek().kind === 'op' && this.peek().text === ',') {
      this.next();
      names.push(this.expectIdent());
    }
    if (!(this.peek().kind === 'op' && this.peek().text === '=')) {
      if (!this.atStatementEnd()) this.type();
      if (!(this.peek().kind === 'op' && this.peek().text === '=')) return;
    }
    this.next();
    const start = this.pos;
    this.skipExpression();
    const expr = this.tokens.slice(start, this.pos).filter((t) => t.kind !== 'comment' && t.kind !== 'semi');
    const head = expr.slice(0, 6).map((t) => t.text).join(' ');
    if (names.length !== 1 || head !== 'map [ string ] string {') return;
    const entries: [string, string][] = [];
    for (let i = 6; i + 2 < expr.length; ) {
      const k = expr[i]!;
      const colon = expr[i + 1]!;
      if (k.kind !== 'string' || colon.text !== ':') break;
      // A value may be several string literals joined with `+`.
      let j = i + 2;
      let v = '';
      while (j < expr.length && expr[j]!.kind === 'string') {
        v += expr[j]!.text;
        j++;
        if (expr[j]?.text === '+') j++;
        else break;
      }
      entries.push([k.text, v]);
      i = expr[j]?.text === ',' ? j + 1 : j;
    }
    out.push({ name: names[0]!, entries });
  }

  private type(): GoType {
    const t = this.next();
    if (t.kind === 'op') {
      if (t.text === '*') return { kind: 'pointer', elem: this.type() };
      if (t.text === '(') {
        const inner = this.type();
        this.expectOp(')');
        return inner;
      }
      if (t.text === '[') {
        if (this.peek().kind === 'op' && this.peek().text === ']') {
          this.next();
          return { kind: 'slice', elem: this.type() };
        }
        if (this.peek().kind === 'op' && this.peek().text === '...') this.next();
        else this.skipUntil(']');
        this.expectOp(']');
        return { kind: 'array', elem: this.type() };
      }
      if (t.text === '<-') {
        this.expectIdentText('chan');
        this.type();
        return { kind: 'opaque', what: 'chan' };
      }
    }
    if (t.kind === 'ident') {
      switch (t.text) {
        case 'map': {
          this.expectOp('[');
          const key = this.type();
          this.expectOp(']');
          return { kind: 'map', key, value: this.type() };
        }
        case 'struct':
          return { kind: 'struct', fields: this.structFields() };
        case 'interface':
          this.skipBalanced();
          return { kind: 'opaque', what: 'interface' };
        case 'func':
          this.skipBalanced();
          if (this.peek().kind === 'op' && this.peek().text === '(') this.skipBalanced();
          else if (!this.atStatementEnd() && this.peek().kind !== 'string' && !(this.peek().kind === 'op' && '},'.includes(this.peek().text))) this.type();
          return { kind: 'opaque', what: 'func' };
        case 'chan':
          if (this.peek().kind === 'op' && this.peek().text === '<-') this.next();
          this.type();
          return { kind: 'opaque', what: 'chan' };
      }
      if (this.peek().kind === 'op' && this.peek().text === '.') {
        this.next();
        const name = this.expectIdent();
        this.skipTypeArgs();
        return { kind: 'name', pkg: t.text, name };
      }
      this.skipTypeArgs();
      return { kind: 'name', name: t.text };
    }
    throw this.error(t, `expected a type, found ${JSON.stringify(t.text)}`);
  }

  private skipTypeArgs(): void {
    if (this.peek().kind === 'op' && this.peek().text === '[' && this.tokens[this.pos + 1]?.kind === 'ident') this.skipBalanced();
  }

  private structFields(): GoField[] {
    this.expectOp('{');
    const fields: GoField[] = [];
    this.skipSemis();
    while (!(this.peek().kind === 'op' && this.peek().text === '}')) {
      const first = this.peek();
      const fieldComments = this.adjacentComments(first).flatMap((c) => commentText(c).split('\n'));
      const names: string[] = [];
      let type: GoType;
      const second = this.tokens[this.pos + 1]!;
      const embedded =
        (first.kind === 'op' && first.text === '*') ||
        (first.kind === 'ident' && (second.kind === 'semi' || second.kind === 'string' || (second.kind === 'op' && (second.text === '.' || second.text === '}'))));
      if (embedded) type = this.type();
      else {
        names.push(this.expectIdent());
        while (this.peek().kind === 'op' && this.peek().text === ',') {
          this.next();
          names.push(this.expectIdent());
        }
        type = this.type();
      }
      let tag = '';
      if (this.peek().kind === 'string') tag = this.next().text;
      if (embedded) fields.push({ type, tag, comments: fieldComments, line: first.line, column: first.column });
      for (const name of names) fields.push({ name, type, tag, comments: fieldComments, line: first.line, column: first.column });
      if (!(this.peek().kind === 'op' && this.peek().text === '}')) {
        const s = this.next();
        if (s.kind !== 'semi') throw this.error(s, `expected the end of a field, found ${JSON.stringify(s.text)}`);
      }
      this.skipSemis();
    }
    this.next();
    return fields;
  }

  /** The comment group ending right above `t` (no blank line between), oldest first. */
  private adjacentComments(t: GoToken): GoToken[] {
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
  private docOf(t: GoToken): { doc: string[]; comments: string[] } {
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

  private skipFunc(): void {
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

  /** Skips an expression up to the `;` (or `)` of a group) that ends it, brackets balanced. */
  private skipExpression(): void {
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') return;
      if (depth === 0 && (t.kind === 'semi' || (t.kind === 'op' && (t.text === ')' || t.text === ',')))) return;
      if (t.kind === 'op' && '([{'.includes(t.text)) depth++;
      if (t.kind === 'op' && ')]}'.includes(t.text)) depth--;
      this.next();
    }
  }

  /** Skips a bracketed run starting at the current `(`, `[` or `{`, nesting included. */
  private skipBalanced(): void {
    let depth = 0;
    do {
      const t = this.next();
      if (t.kind === 'eof') throw this.error(t, 'unbalanced brackets');
      if (t.kind === 'op' && '([{'.includes(t.text)) depth++;
      if (t.kind === 'op' && ')]}'.includes(t.text)) depth--;
    } while (depth > 0);
  }

  private skipUntil(op: string): void {
    while (!(this.peek().kind === 'op' && this.peek().text === op)) {
      if (this.peek().kind === 'eof') throw this.error(this.peek(), `expected ${op}`);
      if (this.peek().kind === 'op' && '([{'.includes(this.peek().text)) this.skipBalanced();
      else this.next();
    }
  }

  private atStatementEnd(): boolean {
    const t = this.peek();
    return t.kind === 'semi' || t.kind === 'eof' || (t.kind === 'op' && t.text === ')');
  }

  private skipSemis(): void {
    while (this.peek().kind === 'semi') this.next();
  }

  /** The next significant token; comments before it are collected into `pending` (cleared by significant tokens). */
  private peek(): GoToken {
    while (this.tokens[this.pos]!.kind === 'comment') this.pending.push(this.tokens[this.pos++]!);
    return this.tokens[this.pos]!;
  }

  private next(): GoToken {
    const t = this.peek();
    this.pos++;
    if (t.kind !== 'semi') this.pending = [];
    return t;
  }

  private expectIdent(): string {
    const t = this.next();
    if (t.kind !== 'ident') throw this.error(t, `expected an identifier, found ${JSON.stringify(t.text)}`);
    return t.text;
  }

  private expectIdentText(word: string): void {
    const t = this.next();
    if (t.kind !== 'ident' || t.text !== word) throw this.error(t, `expected ${word}, found ${JSON.stringify(t.text)}`);
  }

  private expectOp(op: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.text !== op) throw this.error(t, `expected ${JSON.stringify(op)}, found ${JSON.stringify(t.text)}`);
  }

  private error(t: GoToken, detail: string): GoSyntaxError {
    return new GoSyntaxError(this.file, t.line, t.column, detail);
  }
}

/** A comment's text: `// x` → ` x`; a block comment's lines with leading `*` decoration kept as written. */
function commentText(c: GoToken): string {
  return c.text;
}
