/**
 * Field selectors (`k8s.io/apimachinery/pkg/fields`): comma-joined `path=value`, `path==value`, `path!=value` terms,
 * all of which must hold. Values may escape `\`, `,` and `=` with a backslash. The apiserver supports
 * `metadata.name` and `metadata.namespace` on every object (plus a CRD's `selectableFields`); this implementation
 * reads any dotted path generically, so it also serves those selectable fields.
 */

/** The operators of a field selector term (apimachinery `selection.Operator`): `=` and `==` are equal, `!=` not. */
export type FieldSelectorOperator = '=' | '==' | '!=';

/** One `field op value` term of a field selector (apimachinery `fields.Requirement`); `value` is unescaped. */
export interface FieldRequirement {
  /** A dotted path into the object, e.g. `metadata.name` or `spec.nodeName`. */
  readonly field: string;
  readonly operator: FieldSelectorOperator;
  readonly value: string;
}

/** A parsed, immutable field selector (apimachinery `fields.Selector`): terms that must all hold. */
export interface FieldSelector {
  /** Whether the object's fields satisfy every term. A missing field reads as `''`. */
  matches(obj: unknown): boolean;
  /** True when there are no terms (selects everything). */
  empty(): boolean;
  /** Canonical form: terms sorted, values escaped. */
  toString(): string;
  readonly requirements: readonly FieldRequirement[];
}

const OPERATORS: FieldSelectorOperator[] = ['!=', '==', '='];

/** Escapes `\`, `,` and `=` in a field selector value (`fields.EscapeValue`). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      const n = s[i + 1];
      if (n === '\\' || n === ',' || n === '=') {
        out += n;
        i++;
        continue;
      }
      throw new Error(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    }
    if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character: '${c}'`);
    out += c;
  }
  return out;
}

/** Splits on commas that are not escaped. */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function splitTerm(term: string): [string, FieldSelectorOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/**
 * Reads a dotted path from an object as a field selector string: strings as-is, numbers and booleans in their
 * JSON form, missing/null/other values as `''`.
 */
export function fieldValue(obj: unknown, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return '';
}

class TermsSelector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  matches(obj: unknown): boolean {
    return this.requirements.every((r) => (fieldValue(obj, r.field) === r.value) === (r.operator !== '!='));
  }
  empty(): boolean {
    return this.requirements.length === 0;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
  }
}

/**
 * Parses a field selector (`fields.ParseSelector`). `''` selects everything. Throws an `Error` for a term without
 * an operator or with a bad escape sequence.
 */
export function parseFieldSelector(s: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const part of splitTerms(s).sort()) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new Error(`invalid selector: '${s}'; can't understand '${part}'`);
    const [field, operator, rhs] = split;
    reqs.push(Object.freeze({ field, operator, value: unescapeFieldValue(rhs) }));
  }
  return new TermsSelector(Object.freeze(reqs));
}
