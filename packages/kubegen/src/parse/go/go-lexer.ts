/**
 * Tokens of Go source, for the declarations the built-in API front end reads (`k8s.io/api` and apimachinery's
 * `types.go`: package clause, imports, type and const declarations, doc comments). Implements the parts of the Go
 * spec's lexical grammar those files use — identifiers, numbers, interpreted and raw strings, runes, operators and
 * both comment forms — plus automatic semicolon insertion at line ends, so that a struct's fields come one per
 * statement. Anything else (a stray character) is an error naming file, line and column.
 */

export type GoTokenKind = 'ident' | 'string' | 'number' | 'rune' | 'op' | 'comment' | 'semi' | 'eof';

export interface GoToken {
  kind: GoTokenKind;
  /** The token's text: an identifier, operator, the decoded value of a string, a comment's text without `//`. */
  text: string;
  line: number;
  column: number;
  /** For comments: nothing but white space precedes it on its line (not a comment trailing code). */
  ownLine?: boolean;
}

/** A syntax error in Go source: `file:line:column: detail`. */
export class GoSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    detail: string,
  ) {
    super(`${file}:${line}:${column}: ${detail}`);
    this.name = 'GoSyntaxError';
  }
}

const OPERATORS = [
  '<<=', '>>=', '&^=', '...', '&&', '||', '<-', '++', '--', '==', '!=', '<=', '>=', ':=', '+=', '-=', '*=', '/=', '%=',
  '&=', '|=', '^=', '<<', '>>', '&^', '+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '=', '!', '(', ')', '[', ']',
  '{', '}', ',', ';', '.', ':', '~',
];

/** Go inserts a semicolon at a line end after these (identifiers and literals are handled by kind). */
const ENDS_STATEMENT = new Set([')', ']', '}', '++', '--']);
const KEYWORDS_ENDING_STATEMENT = new Set(['break', 'continue', 'fallthrough', 'return']);

/** Splits Go source into tokens; comments are kept as tokens (one per line comment, one per block comment). */
export function tokenizeGo(src: string, file: string): GoToken[] {
  const out: GoToken[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const advance = (n: number): void => {
    for (let k = 0; k < n; k++) {
      if (src.charCodeAt(i) === 10) {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  const lastSignificant = (): GoToken | undefined => {
    for (let k = out.length - 1; k >= 0; k--) if (out[k]!.kind !== 'comment') return out[k];
    return undefined;
  };
  const endsStatement = (t: GoToken | undefined): boolean =>
    t !== undefined &&
    (t.kind === 'string' || t.kind === 'number' || t.kind === 'rune' || (t.kind === 'ident' && !isKeyword(t.text)) ||
      (t.kind === 'ident' && KEYWORDS_ENDING_STATEMENT.has(t.text)) || (t.kind === 'op' && ENDS_STATEMENT.has(t.text)));
  const newline = (): void => {
    if (endsStatement(lastSignificant())) out.push({ kind: 'semi', text: '\n', line, column: col });
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      newline();
      advance(1);
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      advance(1);
      continue;
    }
    const startLine = line;
    const startCol = col;
    if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      out.push({ kind: 'comment', text: src.slice(i + 2, stop), line: startLine, column: startCol, ownLine: ownLine(src, i) });
      advance(stop - i);
      continue;
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new GoSyntaxError(file, startLine, startCol, 'comment not terminated');
      const text = src.slice(i + 2, end);
      const hadNewline = text.includes('\n');
      out.push({ kind: 'comment', text, line: startLine, column: startCol, ownLine: ownLine(src, i) });
      advance(end + 2 - i);
      // A block comment spanning lines acts like a newline.
      if (hadNewline) newline();
      continue;
    }
    if (isLetter(c)) {
      let j = i + 1;
      while (j < src.length && (isLetter(src[j]!) || isDigit(src[j]!))) j++;
      out.push({ kind: 'ident', text: src.slice(i, j), line: startLine, column: startCol });
      advance(j - i);
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < src.length && /[0-9a-zA-Z_.]/.test(src[j]!)) {
        // An exponent's sign belongs to the number: 1e-9.
        j++;
        if (/[eEpP]/.test(src[j - 1]!) && !/^0[xX]/.test(src.slice(i, j)) && (src[j] === '+' || src[j] === '-')) j++;
      }
      out.push({ kind: 'number', text: src.slice(i, j), line: startLine, column: startCol });
      advance(j - i);
      continue;
    }
    if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) throw new GoSyntaxError(file, startLine, startCol, 'raw string literal not terminated');
      out.push({ kind: 'string', text: src.slice(i + 1, end).replace(/\r/g, ''), line: startLine, column: startCol });
      advance(end + 1 - i);
      continue;
    }
    if (c === '"' || c === "'") {
      const { value, end } = readQuoted(src, i, file, startLine, startCol);
      out.push({ kind: c === '"' ? 'string' : 'rune', text: value, line: startLine, column: startCol });
      advance(end - i);
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new GoSyntaxError(file, startLine, startCol, `unexpected character ${JSON.stringify(c)}`);
    out.push({ kind: op === ';' ? 'semi' : 'op', text: op, line: startLine, column: startCol });
    advance(op.length);
  }
  newline();
  out.push({ kind: 'eof', text: '', line, column: col });
  return out;
}

const GO_KEYWORDS = new Set([
  'break', 'case', 'chan', 'const', 'continue', 'default', 'defer', 'else', 'fallthrough', 'for', 'func', 'go', 'goto',
  'if', 'import', 'interface', 'map', 'package', 'range', 'return', 'select', 'struct', 'switch', 'type', 'var',
]);

export function isKeyword(word: string): boolean {
  return GO_KEYWORDS.has(word);
}

/** Whether only spaces and tabs precede offset `i` on its line. */
function ownLine(src: string, i: number): boolean {
  for (let k = i - 1; k >= 0 && src[k] !== '\n'; k--) if (src[k] !== ' ' && src[k] !== '\t') return false;
  return true;
}

function isLetter(c: string): boolean {
  return /[A-Za-z_]/.test(c) || c.charCodeAt(0) > 127;
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

/** Decodes an interpreted string or rune literal starting at `start` (Go escapes: \n, \xNN, \uNNNN, \NNN …). */
function readQuoted(src: string, start: number, file: string, line: number, column: number): { value: string; end: number } {
  const quote = src[start]!;
  let i = start + 1;
  let value = '';
  const bytes: number[] = [];
  const flushBytes = (): void => {
    if (bytes.length > 0) {
      value += Buffer.from(bytes).toString('utf8');
      bytes.length = 0;
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === quote) {
      flushBytes();
      return { value, end: i + 1 };
    }
    if (c === '\n') break;
    if (c !== '\\') {
      flushBytes();
      value += c;
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    if (e in SIMPLE_ESCAPES) {
      flushBytes();
      value += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === 'x' || /[0-7]/.test(e)) {
      const hex = e === 'x';
      const digits = hex ? src.slice(i + 2, i + 4) : src.slice(i + 1, i + 4);
      bytes.push(parseInt(digits, hex ? 16 : 8));
      i += hex ? 4 : 4;
    } else if (e === 'u' || e === 'U') {
      flushBytes();
      const n = e === 'u' ? 4 : 8;
      value += String.fromCodePoint(parseInt(src.slice(i + 2, i + 2 + n), 16));
      i += 2 + n;
    } else {
      throw new GoSyntaxError(file, line, column, `unknown escape \\${e} in a ${quote === '"' ? 'string' : 'rune'} literal`);
    }
  }
  throw new GoSyntaxError(file, line, column, `${quote === '"' ? 'string' : 'rune'} literal not terminated`);
}
