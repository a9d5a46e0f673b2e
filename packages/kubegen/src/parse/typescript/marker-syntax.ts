/**
 * The text syntax of controller-gen markers, as found in JSDoc comments of the TypeScript front end:
 *
 *   +name                         a flag
 *   +name=value                   one anonymous value
 *   +name:arg=value,arg2=value2   named arguments
 *
 * Values: `"double quoted"` (JSON/Go escapes), `` `raw` ``, bare text, lists as `a;b;c` or `{a,b,c}`, and (for
 * `default`, `Enum` elements, `example`) any JSON value. Pure functions; errors are thrown as `MarkerSyntaxError`
 * with a message the caller turns into an `InputError` at the marker's position.
 */

export class MarkerSyntaxError extends Error {}

export type ValueType = 'flag' | 'bool' | 'int' | 'number' | 'string' | 'strings' | 'any' | 'anys';

/** Splits `text` on `sep` outside quotes, backticks, braces and brackets. */
export function splitTopLevel(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === '`' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === sep && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quote) throw new MarkerSyntaxError(`unterminated ${quote} string`);
  out.push(text.slice(start));
  return out;
}

/** A quoted or bare string value. */
export function parseString(raw: string): string {
  const t = raw.trim();
  if (t.startsWith('"')) {
    if (!t.endsWith('"') || t.length < 2) throw new MarkerSyntaxError(`unterminated string ${t}`);
    try {
      return JSON.parse(t) as string;
    } catch {
      throw new MarkerSyntaxError(`malformed string ${t}`);
    }
  }
  if (t.startsWith('`')) {
    if (!t.endsWith('`') || t.length < 2) throw new MarkerSyntaxError(`unterminated raw string ${t}`);
    return t.slice(1, -1);
  }
  if (t.startsWith("'") && t.endsWith("'") && t.length >= 2) return t.slice(1, -1);
  return t;
}

/** A JSON value, else controller-gen's loose literals: `{a,b}` lists, numbers, booleans, bare strings. */
export function parseAny(raw: string): unknown {
  const t = raw.trim();
  if (t === '') throw new MarkerSyntaxError('empty value');
  try {
    return JSON.parse(t) as unknown;
  } catch {
    // not JSON
  }
  if (t.startsWith('{') && t.endsWith('}')) {
    const inner = t.slice(1, -1).trim();
    if (inner === '') return [];
    const parts = splitTopLevel(inner, ',');
    if (parts.every((p) => /^\s*[A-Za-z_][\w.-]*\s*:/.test(p) && !/^\s*"/.test(p))) {
      const obj: Record<string, unknown> = {};
      for (const p of parts) {
        const i = p.indexOf(':');
        obj[p.slice(0, i).trim()] = parseAny(p.slice(i + 1));
      }
      return obj;
    }
    return parts.map(parseAny);
  }
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t.startsWith('"') || t.startsWith('`') || t.startsWith("'")) return parseString(t);
  return t;
}

/** Parses `raw` as `type`. `raw` is undefined for a bare flag. */
export function parseValue(raw: string | undefined, type: ValueType): unknown {
  if (raw === undefined) {
    if (type === 'flag' || type === 'bool') return true;
    throw new MarkerSyntaxError('needs a value');
  }
  const t = raw.trim();
  switch (type) {
    case 'flag':
      throw new MarkerSyntaxError('takes no value');
    case 'bool':
      if (t !== 'true' && t !== 'false') throw new MarkerSyntaxError(`expected true or false, found ${JSON.stringify(t)}`);
      return t === 'true';
    case 'int':
      if (!/^-?\d+$/.test(t)) throw new MarkerSyntaxError(`expected an integer, found ${JSON.stringify(t)}`);
      return Number(t);
    case 'number': {
      const n = Number(t);
      if (t === '' || !Number.isFinite(n)) throw new MarkerSyntaxError(`expected a number, found ${JSON.stringify(t)}`);
      return n;
    }
    case 'string':
      return parseString(t);
    case 'strings':
      return listItems(t).map(parseString);
    case 'any':
      return parseAny(t);
    case 'anys':
      return listItems(t).map(parseAny);
  }
}

function listItems(t: string): string[] {
  if (t.startsWith('{') && t.endsWith('}')) return splitTopLevel(t.slice(1, -1), ',').filter((s) => s.trim() !== '');
  return splitTopLevel(t, ';').filter((s) => s.trim() !== '');
}

/** `a=1,b="x,y"` → `{ a: '1', b: '"x,y"' }` (raw texts); a bare `a` → `{ a: undefined }`. */
export function splitArgs(text: string): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const part of splitTopLevel(text, ',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (!/^[A-Za-z][\w-]*$/.test(key)) throw new MarkerSyntaxError(`malformed argument ${JSON.stringify(part.trim())}`);
    if (out.has(key)) throw new MarkerSyntaxError(`argument ${key} given twice`);
    out.set(key, eq < 0 ? undefined : part.slice(eq + 1));
  }
  return out;
}
