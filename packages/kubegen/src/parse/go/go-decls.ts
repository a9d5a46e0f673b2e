/**
 * The declarations of one Go file that an API package is made of: its package name, imports, type declarations
 * (with their doc comments and the comment group above them, where code generators put markers such as
 * `+genclient`), typed constants (the values of `+enum` types) and `map[string]string` variables (the
 * `types_swagger_doc_generated.go` descriptions). Function bodies and other variables are skipped. This is not a Go
 * parser: statements and expressions are never read, only skipped with balanced brackets.
 */
import { commentText, GoTokenCursor } from './go-cursor.js';
import { tokenizeGo } from './go-lexer.js';
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
  private readonly cur: GoTokenCursor;

  constructor(
    tokens: GoToken[],
    private readonly file: string,
  ) {
    this.cur = new GoTokenCursor(tokens, file);
  }

  parseFile(): GoFile {
    const out: GoFile = { file: this.file, packageName: '', packageDoc: [], imports: new Map(), types: [], consts: [], stringMaps: [] };
    const pkgDoc = this.cur.docOf(this.cur.peek());
    const pkg = this.cur.next();
    if (pkg.text !== 'package' || pkg.kind !== 'ident') throw this.cur.error(pkg, 'expected the package clause');
    out.packageDoc = pkgDoc.doc;
    out.packageName = this.cur.expectIdent();
    this.cur.skipSemis();
    while (this.cur.peek().kind !== 'eof') {
      const doc = this.cur.docOf(this.cur.peek());
      const t = this.cur.next();
      if (t.kind !== 'ident') throw this.cur.error(t, `unexpected ${JSON.stringify(t.text)} at the top level`);
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
          this.cur.skipFunc();
          break;
        default:
          throw this.cur.error(t, `unexpected ${JSON.stringify(t.text)} at the top level`);
      }
      this.cur.skipSemis();
    }
    return out;
  }

  /** `kw spec` or `kw ( spec; spec; … )`; with `docs`, each spec in a group gets its own doc comments. */
  private group(spec: (doc?: { doc: string[]; comments: string[] }) => void, docs = false): void {
    if (this.cur.peek().text === '(' && this.cur.peek().kind === 'op') {
      this.cur.next();
      this.cur.skipSemis();
      while (!(this.cur.peek().kind === 'op' && this.cur.peek().text === ')')) {
        spec(docs ? this.cur.docOf(this.cur.peek()) : undefined);
        this.cur.skipSemis();
      }
      this.cur.next();
    } else spec();
  }

  private importSpec(imports: Map<string, string>): void {
    let name: string | undefined;
    if (this.cur.peek().kind === 'ident' || (this.cur.peek().kind === 'op' && this.cur.peek().text === '.')) name = this.cur.next().text;
    const p = this.cur.next();
    if (p.kind !== 'string') throw this.cur.error(p, 'expected an import path');
    const local = name ?? p.text.slice(p.text.lastIndexOf('/') + 1);
    if (local !== '_' && local !== '.') imports.set(local, p.text);
  }

  private typeSpec(doc: { doc: string[]; comments: string[] }): GoTypeDecl {
    const nameTok = this.cur.peek();
    const name = this.cur.expectIdent();
    if (this.cur.peek().kind === 'op' && this.cur.peek().text === '[' && this.isTypeParams()) this.cur.skipBalanced();
    let alias = false;
    if (this.cur.peek().kind === 'op' && this.cur.peek().text === '=') {
      this.cur.next();
      alias = true;
    }
    const type = this.type();
    return { name, type, alias, doc: doc.doc, comments: doc.comments, line: nameTok.line, column: nameTok.column };
  }

  /** `[T any]` after a type name is a type parameter list; `[5]int` is not reached here (a name comes first). */
  private isTypeParams(): boolean {
    const a = this.cur.raw(1);
    const b = this.cur.raw(2);
    return a?.kind === 'ident' && b !== undefined && !(b.kind === 'op' && b.text === ']');
  }

  private constDecl(out: GoConst[], outerDoc: { doc: string[] }): void {
    const grouped = this.cur.peek().kind === 'op' && this.cur.peek().text === '(';
    let last: { type?: GoType; value?: string; valueName?: string } = {};
    const spec = (doc: string[]): void => {
      const first = this.cur.peek();
      const names = [this.cur.expectIdent()];
      while (this.cur.peek().kind === 'op' && this.cur.peek().text === ',') {
        this.cur.next();
        names.push(this.cur.expectIdent());
      }
      let type: GoType | undefined;
      let value: string | undefined;
      let valueName: string | undefined;
      let explicit = false;
      if (!(this.cur.peek().kind === 'op' && this.cur.peek().text === '=') && !this.cur.atStatementEnd()) type = this.type();
      if (this.cur.peek().kind === 'op' && this.cur.peek().text === '=') {
        this.cur.next();
        explicit = true;
        const expr = this.cur.skipExpression().filter((t) => t.kind !== 'comment');
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
      this.cur.next();
      this.cur.skipSemis();
      while (!(this.cur.peek().kind === 'op' && this.cur.peek().text === ')')) {
        spec(this.cur.docOf(this.cur.peek()).doc);
        this.cur.skipSemis();
      }
      this.cur.next();
    } else spec(outerDoc.doc);
  }

  private varSpec(out: GoStringMapVar[]): void {
    const names = [this.cur.expectIdent()];
    while (this.cur.peek().kind === 'op' && this.cur.peek().text === ',') {
      this.cur.next();
      names.push(this.cur.expectIdent());
    }
    if (!(this.cur.peek().kind === 'op' && this.cur.peek().text === '=')) {
      if (!this.cur.atStatementEnd()) this.type();
      if (!(this.cur.peek().kind === 'op' && this.cur.peek().text === '=')) return;
    }
    this.cur.next();
    const expr = this.cur.skipExpression().filter((t) => t.kind !== 'comment' && t.kind !== 'semi');
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
    const t = this.cur.next();
    if (t.kind === 'op') {
      if (t.text === '*') return { kind: 'pointer', elem: this.type() };
      if (t.text === '(') {
        const inner = this.type();
        this.cur.expectOp(')');
        return inner;
      }
      if (t.text === '[') {
        if (this.cur.peek().kind === 'op' && this.cur.peek().text === ']') {
          this.cur.next();
          return { kind: 'slice', elem: this.type() };
        }
        if (this.cur.peek().kind === 'op' && this.cur.peek().text === '...') this.cur.next();
        else this.cur.skipUntil(']');
        this.cur.expectOp(']');
        return { kind: 'array', elem: this.type() };
      }
      if (t.text === '<-') {
        this.cur.expectIdentText('chan');
        this.type();
        return { kind: 'opaque', what: 'chan' };
      }
    }
    if (t.kind === 'ident') {
      switch (t.text) {
        case 'map': {
          this.cur.expectOp('[');
          const key = this.type();
          this.cur.expectOp(']');
          return { kind: 'map', key, value: this.type() };
        }
        case 'struct':
          return { kind: 'struct', fields: this.structFields() };
        case 'interface':
          this.cur.skipBalanced();
          return { kind: 'opaque', what: 'interface' };
        case 'func':
          this.cur.skipBalanced();
          if (this.cur.peek().kind === 'op' && this.cur.peek().text === '(') this.cur.skipBalanced();
          else if (!this.cur.atStatementEnd() && this.cur.peek().kind !== 'string' && !(this.cur.peek().kind === 'op' && '},'.includes(this.cur.peek().text))) this.type();
          return { kind: 'opaque', what: 'func' };
        case 'chan':
          if (this.cur.peek().kind === 'op' && this.cur.peek().text === '<-') this.cur.next();
          this.type();
          return { kind: 'opaque', what: 'chan' };
      }
      if (this.cur.peek().kind === 'op' && this.cur.peek().text === '.') {
        this.cur.next();
        const name = this.cur.expectIdent();
        this.skipTypeArgs();
        return { kind: 'name', pkg: t.text, name };
      }
      this.skipTypeArgs();
      return { kind: 'name', name: t.text };
    }
    throw this.cur.error(t, `expected a type, found ${JSON.stringify(t.text)}`);
  }

  private skipTypeArgs(): void {
    if (this.cur.peek().kind === 'op' && this.cur.peek().text === '[' && this.cur.raw(1)?.kind === 'ident') this.cur.skipBalanced();
  }

  private structFields(): GoField[] {
    this.cur.expectOp('{');
    const fields: GoField[] = [];
    this.cur.skipSemis();
    while (!(this.cur.peek().kind === 'op' && this.cur.peek().text === '}')) {
      const first = this.cur.peek();
      const fieldComments = this.cur.adjacentComments(first).flatMap((c) => commentText(c).split('\n'));
      const names: string[] = [];
      let type: GoType;
      const second = this.cur.raw(1)!;
      const embedded =
        (first.kind === 'op' && first.text === '*') ||
        (first.kind === 'ident' && (second.kind === 'semi' || second.kind === 'string' || (second.kind === 'op' && (second.text === '.' || second.text === '}'))));
      if (embedded) type = this.type();
      else {
        names.push(this.cur.expectIdent());
        while (this.cur.peek().kind === 'op' && this.cur.peek().text === ',') {
          this.cur.next();
          names.push(this.cur.expectIdent());
        }
        type = this.type();
      }
      let tag = '';
      if (this.cur.peek().kind === 'string') tag = this.cur.next().text;
      if (embedded) fields.push({ type, tag, comments: fieldComments, line: first.line, column: first.column });
      for (const name of names) fields.push({ name, type, tag, comments: fieldComments, line: first.line, column: first.column });
      if (!(this.cur.peek().kind === 'op' && this.cur.peek().text === '}')) {
        const s = this.cur.next();
        if (s.kind !== 'semi') throw this.cur.error(s, `expected the end of a field, found ${JSON.stringify(s.text)}`);
      }
      this.cur.skipSemis();
    }
    this.cur.next();
    return fields;
  }
}
