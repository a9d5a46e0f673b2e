/**
 * A rule's `fieldPath` as the apiserver validates and normalizes it (ValidFieldPath in
 * apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go): `.a.b`, `['a.b']` and map keys, each step a
 * property of the node's schema or a key of its additionalProperties; normalized to field.Path's text (`a.b`,
 * `m[key]`).
 */
import type { StructuralSchema } from '../types.js';

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuote(s: string): string {
  return s.replace(/\\./g, (m) => {
    const r = ESCAPES[m[1]!];
    if (r === undefined) throw new Error(`invalid string literal: invalid escape char ${m}`);
    return r;
  });
}

/** Splits into `.`, `[`, `]` and the text between them; a single-quoted string is one token. */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, j + 1));
      i = j + 1;
    } else if ('.[]'.includes(path[i]!)) {
      out.push(path[i]!);
      i++;
    } else {
      let j = i;
      while (j < path.length && !'.[]'.includes(path[j]!)) j++;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** The normalized path, or throws with the server's reason (`does not refer to a valid field`, ...). */
export function normalizeFieldPath(jsonPath: string, root: StructuralSchema): string {
  let schema: StructuralSchema | undefined = root;
  let out = '';
  const append = (name: string): void => {
    if (schema?.properties) {
      const next: StructuralSchema | undefined = schema.properties[name];
      if (!next) throw new Error('does not refer to a valid field');
      out = out === '' ? name : `${out}.${name}`;
      schema = next;
    } else if (schema?.additionalProperties && typeof schema.additionalProperties === 'object') {
      out = `${out}[${name}]`;
      schema = schema.additionalProperties;
    } else {
      throw new Error('does not refer to a valid field');
    }
  };
  const toks = tokens(jsonPath);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    if (tok === '[') {
      const q = toks[++i];
      if (q === undefined) throw new Error('unexpected end of JSON path');
      if (q.length < 2 || q[0] !== "'" || q[q.length - 1] !== "'") throw new Error(`expected single quoted string but got ${q}`);
      append(unescapeSingleQuote(q.slice(1, -1)));
      const close = toks[++i];
      if (close === undefined) throw new Error('unexpected end of JSON path');
      if (close !== ']') throw new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) throw new Error('unexpected end of JSON path');
      append(name);
    } else {
      throw new Error(`expected [ or . but got: ${tok}`);
    }
  }
  return out;
}
