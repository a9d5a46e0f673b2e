/**
 * The label selector string syntax, parsed as `labels.Parse` does (same lexer, grammar and error cases):
 *
 *   selector    := requirement ( ',' requirement )*  |  ''
 *   requirement := key | '!' key | key ('=' | '==' | '!=' | '>' | '<') value? | key ('in' | 'notin') '(' values ')'
 *
 * Whitespace (space, tab, CR, LF) separates tokens and is otherwise ignored; `key=` means the empty value; `in`/`notin`
 * are keywords only in operator position. Keys must be qualified names and values valid label values.
 */
import { newRequirement, selectorFromRequirements } from './selector.js';
import type { Requirement, Selector, SelectorOperator } from './selector.js';

type Tok =
  | 'end'
  | 'error'
  | 'id'
  | 'in'
  | 'notin'
  | '!'
  | '!='
  | '('
  | ')'
  | ','
  | '='
  | '=='
  | '>'
  | '<';

const KEYWORDS: Record<string, Tok> = {
  in: 'in',
  notin: 'notin',
  '!': '!',
  '!=': '!=',
  '(': '(',
  ')': ')',
  ',': ',',
  '=': '=',
  '==': '==',
  '>': '>',
  '<': '<',
};

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),<>'.includes(ch);

/** Splits the input into tokens (`labels.Lexer`); a NUL character ends the input as in Go. */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  const at = (i: number): string => (i < s.length ? s[i]! : '\0');
  for (;;) {
    while (isWhitespace(at(pos))) pos++;
    const ch = at(pos);
    if (ch === '\0') {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecial(ch)) {
      // Longest run of special symbols that still forms a known token.
      let buf = '';
      let last: Item | undefined;
      while (isSpecial(at(pos))) {
        const next = buf + at(pos);
        const tok = KEYWORDS[next];
        if (tok) {
          last = { tok, lit: next };
          buf = next;
          pos++;
        } else if (last) {
          break;
        } else {
          buf = next;
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
      if (!last) return [...items, { tok: 'end', lit: '' }];
      continue;
    }
    const start = pos;
    while (at(pos) !== '\0' && !isSpecial(at(pos)) && !isWhitespace(at(pos))) pos++;
    const lit = s.slice(start, pos);
    items.push({ tok: KEYWORDS[lit] ?? 'id', lit });
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  /** In value (and key) position the keywords `in`/`notin` are plain identifiers. */
  private peek(values: boolean): Item {
    const item = this.items[this.pos] ?? { tok: 'end', lit: '' };
    return values && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }
  private next(values: boolean): Item {
    const item = this.peek(values);
    if (this.pos < this.items.length) this.pos++;
    return item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek(true);
      if (tok === 'end') return reqs;
      if (tok !== 'id' && tok !== '!') throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new Error(`unable to parse requirement: ${(e as Error).message}`);
      }
      const after = this.next(true);
      if (after.tok === 'end') return reqs;
      if (after.tok !== ',') throw new Error(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.peek(true);
      if (following.tok !== 'id' && following.tok !== '!') {
        throw new Error(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    let { tok, lit } = this.next(true);
    let op: SelectorOperator | undefined;
    if (tok === '!') {
      op = '!';
      ({ tok, lit } = this.next(true));
    }
    if (tok !== 'id') throw new Error(`found '${lit}', expected: identifier`);
    const key = lit;
    const ahead = this.peek(true).tok;
    if (ahead === 'end' || ahead === ',') op ??= 'exists';
    if (op === 'exists' || op === '!') return newRequirement(key, op, []);
    const operator = this.operator();
    const values = operator === 'in' || operator === 'notin' ? this.setValues() : [this.exactValue()];
    return newRequirement(key, operator, values);
  }

  private operator(): SelectorOperator {
    const { tok, lit } = this.next(false);
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return tok;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new Error(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private exactValue(): string {
    const ahead = this.peek(true).tok;
    if (ahead === 'end' || ahead === ',') return '';
    const { tok, lit } = this.next(true);
    if (tok === 'id') return lit;
    throw new Error(`found '${lit}', expected: identifier`);
  }

  /** `( v1, v2 )`; empty slots (`()`, `(a,)`, `(,a)`) stand for the empty value, as in Go. */
  private setValues(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const first = this.peek(true);
    if (first.tok === ')') {
      this.next(true);
      return [''];
    }
    if (first.tok !== 'id' && first.tok !== ',') throw new Error(`found '${first.lit}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.next(true);
      if (tok === 'id') {
        values.add(lit);
        const sep = this.peek(true);
        if (sep.tok === ',') continue;
        if (sep.tok === ')') {
          this.next(true);
          return [...values].sort();
        }
        throw new Error(`found '${sep.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (values.size === 0) values.add('');
        const sep = this.peek(true);
        if (sep.tok === ')') {
          this.next(true);
          values.add('');
          return [...values].sort();
        }
        if (sep.tok === ',') {
          this.next(true);
          values.add('');
        }
        continue;
      }
      throw new Error(`found '${lit}', expected: ',', or identifier`);
    }
  }
}

/**
 * Parses a label selector string (`labels.Parse`). `''` (or only whitespace) selects everything.
 * Throws an `Error` whose message says what was found and what was expected, or which key/value is invalid.
 */
export function parseSelector(s: string): Selector {
  try {
    return selectorFromRequirements(new Parser(lex(s)).parse());
  } catch (e) {
    throw new Error(`invalid label selector "${s}": ${(e as Error).message}`);
  }
}
