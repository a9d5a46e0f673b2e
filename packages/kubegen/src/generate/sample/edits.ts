/**
 * Candidate edits that may repair a sample (./satisfy.ts tries them with the kind's validator and keeps what works),
 * read off what the sample breaks:
 *
 * - a CEL rule (`x-kubernetes-validations`, {@link candidateEdits}): each field the rule names — `self.a`, or a path
 *   `self.a.b.c` through the schema's properties — is added when missing (with the parents it needs), dropped when
 *   present and optional, set to each literal the rule compares it with (`==`, `!=`, `<`…, `in [...]`) and to each
 *   value of its `enum` (a value the rule allows where it forbids the default, `self.ref.type != 'kic'`), given one
 *   element or character where the rule takes its size, and given an element that `exists(c, c.name == 'proxy')`
 *   asks for; the node itself is set to the literals `self` is compared with;
 * - a `oneOf`/`anyOf` that no branch meets ({@link compositionEdits}): the fields of each branch in turn are added
 *   (with the branch's constraints); one that more than one `oneOf` branch meets: the fields of all branches but one
 *   are dropped;
 * - a required field missing ({@link requiredEdits}): it is added.
 */
import type { JSONSchemaProps } from '../../model/index.js';
import { narrow } from './branches.js';

/** A segment of a path into an object: a property or map key, or a list index. */
export type Token = string | number;
/** Sets (or, with `remove`, deletes) the value at `path`. */
export type Edit = { path: Token[]; value?: unknown; remove?: boolean };
/** Generates a sample value of a schema (a field named `name`). */
export type ValueOf = (s: JSONSchemaProps, name: string) => unknown;

/** A node of the sample: its path in the object, its schema, its value (undefined when absent). */
export interface SampleNode {
  path: Token[];
  schema: JSONSchemaProps;
  self: unknown;
}

/** A node with the rule an error names. */
export interface RuleTarget extends SampleNode {
  rule: { rule: string; message?: string };
}

const LITERAL = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false`;

/** A CEL literal as JSON (strings unquoted, numbers, booleans). */
function literal(text: string): unknown {
  const t = text.trim();
  if (t.startsWith("'") || t.startsWith('"')) return t.slice(1, -1).replace(/\\(.)/g, '$1');
  if (t === 'true' || t === 'false') return t === 'true';
  return Number(t);
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Collects edits, each once, in the order they are first proposed. */
class Edits {
  readonly list: Edit[] = [];
  private readonly seen = new Set<string>();
  push(e: Edit): void {
    const k = JSON.stringify(e);
    if (!this.seen.has(k)) (this.seen.add(k), this.list.push(e));
  }
}

/** A field a rule names, resolved through the schema's properties from the rule's node. */
interface FieldRef {
  /** Property names from the node (`['forProvider', 'redirectUrl']`). */
  names: string[];
  /** The schema of each name's level. */
  schemas: JSONSchemaProps[];
}

/**
 * The fields `text` names as `self.a.b…`, resolved through `schema`'s properties (a reserved word may be escaped,
 * `self.__namespace__`); each prefix of a path is a field of its own, shallower ones first.
 */
function fieldRefs(text: string, schema: JSONSchemaProps): FieldRef[] {
  const out = new Map<string, FieldRef>();
  for (const m of text.matchAll(/\bself((?:\s*\.\s*[A-Za-z_]\w*)+)/g)) {
    const names: string[] = [];
    const schemas: JSONSchemaProps[] = [];
    let s: JSONSchemaProps | undefined = schema;
    for (const raw of m[1]!.split('.').map((n) => n.trim()).filter(Boolean)) {
      const name: string = /^__\w+__$/.test(raw) && !s?.properties?.[raw] ? raw.slice(2, -2) : raw;
      s = s?.properties?.[name];
      if (!s) break;
      names.push(name);
      schemas.push(s);
      const key = names.join('.');
      if (!out.has(key)) out.set(key, { names: [...names], schemas: [...schemas] });
    }
  }
  return [...out.values()];
}

/** The value at `names` below `v` (undefined when any level is missing). */
function valueAt(v: unknown, names: readonly string[]): unknown {
  for (const n of names) v = isObject(v) ? v[n] : undefined;
  return v;
}

/**
 * The edit that puts `value` at `ref` below `node`: set at the shallowest missing level, whose value is generated
 * (`valueOf`) with each missing level below it generated in turn and `value` at the end. Undefined when a level on
 * the way is present but not an object.
 */
function addAt(node: SampleNode, ref: FieldRef, value: unknown, valueOf: ValueOf): Edit | undefined {
  let cur: unknown = node.self;
  for (let i = 0; i < ref.names.length; i++) {
    if (!isObject(cur)) return undefined;
    const next = cur[ref.names[i]!];
    if (next === undefined || i === ref.names.length - 1) {
      const top = i === ref.names.length - 1 ? value : structuredClone(valueOf(ref.schemas[i]!, ref.names[i]!));
      let inner = top;
      for (let j = i + 1; j < ref.names.length; j++) {
        if (!isObject(inner)) return undefined;
        const last = j === ref.names.length - 1;
        if (last) inner[ref.names[j]!] = value;
        else if (!isObject(inner[ref.names[j]!])) inner[ref.names[j]!] = structuredClone(valueOf(ref.schemas[j]!, ref.names[j]!));
        inner = inner[ref.names[j]!];
      }
      return { path: [...node.path, ...ref.names.slice(0, i + 1)], value: top };
    }
    cur = next;
  }
  return undefined;
}

/** The edits worth trying for `target`'s rule, in the order they are tried (also what breaks a rule that holds). */
export function candidateEdits(target: RuleTarget, valueOf: ValueOf): Edit[] {
  const { rule, schema, self, path } = target;
  const text = rule.rule;
  const edits = new Edits();
  const put = (ref: FieldRef, value: unknown): void => {
    const e = addAt(target, ref, value, valueOf);
    if (e) edits.push(e);
  };
  // Literals the rule compares a subject (`self.a.b`, or `self`) with.
  const literalsOf = (subject: string): unknown[] => {
    const out: unknown[] = [];
    const s = escapeRe(subject);
    for (const m of text.matchAll(new RegExp(String.raw`\b${s}\s*(==|!=|<=|>=|<|>)\s*(${LITERAL})`, 'g'))) {
      const v = literal(m[2]!);
      out.push(v);
      if (typeof v === 'number' && m[1] !== '==' && m[1] !== '!=') out.push(v + 1, v - 1);
    }
    for (const m of text.matchAll(new RegExp(String.raw`(${LITERAL})\s*(==|!=|<=|>=|<|>)\s*${s}\b(?!\s*\.)`, 'g'))) {
      const v = literal(m[1]!);
      out.push(v);
      if (typeof v === 'number' && m[2] !== '==' && m[2] !== '!=') out.push(v + 1, v - 1);
    }
    for (const m of text.matchAll(new RegExp(String.raw`\b${s}\s+in\s+\[([^\]]*)\]`, 'g'))) {
      for (const l of m[1]!.matchAll(new RegExp(LITERAL, 'g'))) out.push(literal(l[0]));
    }
    return out;
  };
  for (const ref of fieldRefs(text, schema)) {
    const fs = ref.schemas[ref.schemas.length - 1]!;
    const name = ref.names[ref.names.length - 1]!;
    const parentSchema = ref.schemas[ref.schemas.length - 2] ?? schema;
    const parent = valueAt(self, ref.names.slice(0, -1));
    const current = valueAt(self, ref.names);
    const subject = `self.${ref.names.join('.')}`;
    if (current === undefined) {
      const v = valueOf(fs, name);
      put(ref, v);
      if (Array.isArray(v) && v.length === 0 && fs.items) put(ref, [valueOf(fs.items, name)]);
    } else if (isObject(parent) && !(parentSchema.required ?? []).includes(name)) {
      edits.push({ path: [...path, ...ref.names], remove: true });
    }
    if (new RegExp(String.raw`size\(${escapeRe(subject)}\)|\b${escapeRe(subject)}\.size\(\)`).test(text)) {
      if (fs.type === 'array' && fs.items) put(ref, [valueOf(fs.items, name)]);
      if (fs.type === 'string') put(ref, 'x');
    }
    for (const v of literalsOf(subject)) put(ref, v);
    // A comparison with the field (`!=`, `==`, `in`): each value its enum allows, for a rule that forbids the default.
    if (fs.enum && new RegExp(String.raw`\b${escapeRe(subject)}\s*(==|!=|\bin\b)|(==|!=)\s*${escapeRe(subject)}\b(?!\s*\.)`).test(text)) {
      for (const v of fs.enum) if (v !== null) put(ref, v);
    }
    if (fs.items) for (const item of existsItems(text, subject, fs.items, name, valueOf)) {
      if (Array.isArray(current) && current.length > 0) put(ref, [...current, item]);
      put(ref, [item]);
    }
  }
  for (const v of literalsOf('self')) edits.push({ path, value: v });
  return edits.list;
}

/**
 * The elements `subject.exists(x, …)` (or `exists_one`) asks for: a generated item with each `x.f == literal` of the
 * predicate set, or the literal of `x == literal` for a list of scalars.
 */
function existsItems(text: string, subject: string, items: JSONSchemaProps, name: string, valueOf: ValueOf): unknown[] {
  const out: unknown[] = [];
  for (const m of text.matchAll(new RegExp(String.raw`\b${escapeRe(subject)}\s*\.\s*exists(?:_one)?\(\s*(\w+)\s*,([^)]*)\)`, 'g'))) {
    const v = escapeRe(m[1]!);
    const body = m[2]!;
    const fields: [string, unknown][] = [];
    for (const f of body.matchAll(new RegExp(String.raw`\b${v}\.(\w+)\s*==\s*(${LITERAL})|(${LITERAL})\s*==\s*${v}\.(\w+)\b`, 'g'))) {
      fields.push(f[1] !== undefined ? [f[1], literal(f[2]!)] : [f[4]!, literal(f[3]!)]);
    }
    if (fields.length > 0) {
      const item = structuredClone(valueOf(items, name));
      if (!isObject(item)) continue;
      for (const [k, val] of fields) item[k] = val;
      out.push(item);
      continue;
    }
    const scalar = new RegExp(String.raw`\b${v}\s*==\s*(${LITERAL})|(${LITERAL})\s*==\s*${v}\b`).exec(body);
    if (scalar) out.push(literal(scalar[1] ?? scalar[2]!));
  }
  return out;
}

/**
 * The edits for a `oneOf`/`anyOf` at `node` that no branch meets (`many`: that more than one `oneOf` branch meets):
 * one edit per branch, setting the node to its value with that branch's missing fields added (or, for `many`,
 * with the fields only the other branches require dropped).
 */
export function compositionEdits(node: SampleNode, composition: 'oneOf' | 'anyOf', many: boolean, valueOf: ValueOf): Edit[] {
  const branches = node.schema[composition] ?? [];
  if (!isObject(node.self)) return [];
  const self = node.self;
  const props = node.schema.properties ?? {};
  const required = node.schema.required ?? [];
  const edits = new Edits();
  for (const b of branches) {
    const value = { ...self };
    if (many) {
      for (const other of branches) for (const r of other === b ? [] : other.required ?? []) {
        if (!required.includes(r) && !(b.required ?? []).includes(r)) delete value[r];
      }
    } else {
      for (const r of b.required ?? []) {
        const fs = props[r] ?? (typeof node.schema.additionalProperties === 'object' ? node.schema.additionalProperties : undefined);
        if (!(r in value) && fs) value[r] = valueOf(b.properties?.[r] ? narrow(fs, b.properties[r]) : fs, r);
      }
    }
    if (Object.keys(value).length !== Object.keys(self).length) edits.push({ path: node.path, value });
  }
  return edits.list;
}

/** The edit that adds the missing required field `name` of `parent` (none when its schema does not declare it). */
export function requiredEdits(parent: SampleNode, name: string, valueOf: ValueOf): Edit[] {
  const fs = parent.schema.properties?.[name];
  if (!fs || !isObject(parent.self) || name in parent.self) return [];
  return [{ path: [...parent.path, name], value: valueOf(fs, name) }];
}

/** Applies `e` to `obj` in place (nothing when a parent on the path is missing). */
export function applyEdit(obj: Record<string, unknown>, e: Edit): void {
  if (e.path.length === 0) return;
  let parent: unknown = obj;
  for (const t of e.path.slice(0, -1)) {
    const next = (parent as Record<string | number, unknown>)[t];
    if (next === undefined || next === null || typeof next !== 'object') return;
    parent = next;
  }
  const last = e.path[e.path.length - 1]!;
  const p = parent as Record<string | number, unknown>;
  if (e.remove) delete p[last];
  else p[last] = structuredClone(e.value);
}
