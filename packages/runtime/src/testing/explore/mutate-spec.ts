/**
 * One change to a spec, drawn from its schema (the `mutate` fault, mutate.ts): anywhere in the spec, not only at its
 * top level. The candidates are every field the schema lets a change be made to:
 *
 * - a scalar: an enum switches to another of its values, an integer or number moves by one within `minimum`/
 *   `maximum`, a boolean flips, a free string (no pattern or format) gains or loses a character within its length
 *   bounds; an absent one is set;
 * - an optional field present (scalar, object, list or map) is removed;
 * - an absent object is set to its smallest valid value (its required fields, each the smallest valid value: the
 *   schema's `default`, the first enum value, `minimum` or 1, `false`, a string of `minLength` letters);
 * - a list of objects gains an entry (distinct keys for a list-map) or loses one, within `minItems`/`maxItems`, and
 *   each entry's fields are candidates in turn; a list of scalars gains a distinct value or loses one;
 * - a map of scalars (`additionalProperties`) gains a key, loses one, or has a value changed.
 *
 * A field whose valid values cannot be made this way (a pattern, a format, a nested free-form object) is left alone;
 * a spec the control plane then refuses (a CEL rule, say) is skipped by explore, not reported.
 */

/** The part of a structural schema the changes read. */
export interface Schema {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

type Path = (string | number)[];
/** One possible change: what it does (for tests and reports) and how it is made on a copy of the spec. */
interface Candidate {
  what: string;
  apply(spec: Record<string, unknown>): void;
}

/** Whether `s` is a scalar a change can be made to. */
export function scalar(s: Schema): boolean {
  if (s.enum && s.enum.length > 0) return true;
  if (s.type === 'string') return s.pattern === undefined && s.format === undefined;
  return s.type === 'integer' || s.type === 'number' || s.type === 'boolean';
}

/** Whether the schema of a spec offers any change at all. */
export function mutable(schema: Schema): boolean {
  return candidates({}, schema, []).length > 0;
}

/** `spec` (a copy) with one change drawn with `rand` from its schema; `what` says which (`set template.image`). */
export function mutateSpec(spec: Record<string, unknown>, schema: Schema, rand: () => number): { spec: Record<string, unknown>; what: string } {
  const out = structuredClone(spec);
  const all = candidates(out, schema, [], rand);
  if (all.length === 0) return { spec: out, what: 'nothing' };
  const c = all[Math.floor(rand() * all.length)]!;
  c.apply(out);
  return { spec: out, what: c.what };
}

const show = (p: Path): string => p.map((x) => (typeof x === 'number' ? `[${x}]` : `.${x}`)).join('').slice(1);
const plain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function at(root: Record<string, unknown>, p: Path): unknown {
  let cur: unknown = root;
  for (const k of p) cur = (cur as Record<string | number, unknown> | undefined)?.[k];
  return cur;
}

function setAt(root: Record<string, unknown>, p: Path, v: unknown): void {
  const parent = at(root, p.slice(0, -1)) as Record<string | number, unknown>;
  const k = p[p.length - 1]!;
  if (v === undefined) {
    if (Array.isArray(parent)) parent.splice(k as number, 1);
    else delete parent[k];
  } else parent[k] = v;
}

/** Every change `schema` allows to the object at `path` of `root` (which exists). */
function candidates(root: Record<string, unknown>, schema: Schema, path: Path, rand: () => number = Math.random): Candidate[] {
  const obj = (path.length === 0 ? root : at(root, path)) as Record<string, unknown>;
  const out: Candidate[] = [];
  for (const [name, s] of Object.entries(schema.properties ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const p = [...path, name];
    const v = obj[name];
    const optional = !(schema.required ?? []).includes(name);
    if (v === undefined || v === null) {
      const made = smallest(s);
      if (scalar(s)) out.push({ what: `set ${show(p)}`, apply: (r) => setAt(r, p, changed(undefined, s, rand)) });
      else if (made !== undefined) out.push({ what: `set ${show(p)}`, apply: (r) => setAt(r, p, made) });
      continue;
    }
    if (optional) out.push({ what: `remove ${show(p)}`, apply: (r) => setAt(r, p, undefined) });
    if (scalar(s)) out.push({ what: `change ${show(p)}`, apply: (r) => setAt(r, p, changed(v, s, rand)) });
    else if (s.properties && plain(v)) out.push(...candidates(root, s, p, rand));
    else if (s.type === 'array' && Array.isArray(v) && s.items) out.push(...listCandidates(root, s, p, v, rand));
    else if (plain(s.additionalProperties) && scalar(s.additionalProperties) && plain(v)) out.push(...mapCandidates(s.additionalProperties, p, v, rand));
  }
  return out;
}

function listCandidates(root: Record<string, unknown>, s: Schema, p: Path, list: unknown[], rand: () => number): Candidate[] {
  const items = s.items!;
  const out: Candidate[] = [];
  if (list.length > (s.minItems ?? 0)) out.push({ what: `remove ${show(p)}[${list.length - 1}]`, apply: (r) => (at(r, p) as unknown[]).pop() });
  const added = newEntry(s, list, rand);
  if (list.length < (s.maxItems ?? Infinity) && added !== undefined) out.push({ what: `add to ${show(p)}`, apply: (r) => (at(r, p) as unknown[]).push(added) });
  if (items.properties) {
    const keys = new Set(s['x-kubernetes-list-map-keys'] ?? []);
    // An entry's key fields stay: changing one is a removal and an addition, which the list candidates make.
    const inner: Schema = { ...items, properties: Object.fromEntries(Object.entries(items.properties).filter(([k]) => !keys.has(k))), required: (items.required ?? []).filter((k) => !keys.has(k)) };
    list.forEach((entry, i) => {
      if (plain(entry)) out.push(...candidates(root, inner, [...p, i], rand));
    });
  }
  return out;
}

function mapCandidates(values: Schema, p: Path, map: Record<string, unknown>, rand: () => number): Candidate[] {
  const keys = Object.keys(map).sort();
  const out: Candidate[] = [{ what: `add to ${show(p)}`, apply: (r) => ((at(r, p) as Record<string, unknown>)[freshKey(keys)] = smallest(values) ?? changed(undefined, values, rand)) }];
  if (keys.length > 0) {
    const k = keys[Math.floor(rand() * keys.length)]!;
    out.push({ what: `remove ${show([...p, k])}`, apply: (r) => delete (at(r, p) as Record<string, unknown>)[k] });
    out.push({ what: `change ${show([...p, k])}`, apply: (r) => ((at(r, p) as Record<string, unknown>)[k] = changed(map[k], values, rand)) });
  }
  return out;
}

function freshKey(taken: readonly string[]): string {
  let i = taken.length;
  while (taken.includes(`k${i}`)) i++;
  return `k${i}`;
}

/** A new entry for `list` (schema `s`): distinct from every entry there (its keys, for a list-map); undefined when none can be made. */
function newEntry(s: Schema, list: readonly unknown[], rand: () => number): unknown {
  const items = s.items!;
  if (scalar(items)) {
    for (let tries = 0; tries < 5; tries++) {
      const v = changed(list[list.length - 1], items, rand);
      if (!list.some((x) => JSON.stringify(x) === JSON.stringify(v))) return v;
    }
    return undefined;
  }
  const made = smallest(items);
  if (!plain(made)) return undefined;
  for (const k of s['x-kubernetes-list-map-keys'] ?? []) {
    const ks = items.properties?.[k] ?? {};
    const used = new Set(list.map((e) => (plain(e) ? JSON.stringify(e[k]) : '')));
    let v = made[k] ?? smallest(ks);
    for (let n = 1; used.has(JSON.stringify(v)) && n < 50; n++) v = ks.type === 'string' && !ks.enum ? `${String(smallest(ks) ?? 'a')}${n}` : changed(v, ks, rand);
    if (used.has(JSON.stringify(v))) return undefined;
    made[k] = v;
  }
  return made;
}

/** The smallest valid value of `s` (see the module comment); undefined when none can be made. */
export function smallest(s: Schema): unknown {
  if (s.default !== undefined) return structuredClone(s.default);
  if (s.enum && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return Math.max(s.minimum ?? -Infinity, Math.min(s.maximum ?? Infinity, 1));
    case 'string':
      return s.pattern === undefined && s.format === undefined ? 'a'.repeat(Math.max(1, s.minLength ?? 0)) : undefined;
    case 'array': {
      if ((s.minItems ?? 0) === 0) return [];
      const one = s.minItems === 1 && s.items ? smallest(s.items) : undefined;
      return one === undefined ? undefined : [one];
    }
    case 'object': {
      if (!s.properties) return plain(s.additionalProperties) || s.additionalProperties === true ? {} : undefined;
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) {
        const v = s.properties[k] ? smallest(s.properties[k]!) : undefined;
        if (v === undefined) return undefined;
        out[k] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** A valid value of `s` other than `v` (or `v` itself when there is no other). */
export function changed(v: unknown, s: Schema, rand: () => number): unknown {
  if (s.enum && s.enum.length > 0) {
    const others = s.enum.filter((e) => e !== v);
    return others.length > 0 ? others[Math.floor(rand() * others.length)] : v;
  }
  if (s.type === 'boolean') return v === undefined ? rand() < 0.5 : !v;
  if (s.type === 'integer' || s.type === 'number') {
    const min = s.minimum ?? -Infinity;
    const max = s.maximum ?? Infinity;
    if (typeof v !== 'number') return Math.max(min, Math.min(max, 1));
    const up = rand() < 0.5;
    const n = up ? (v + 1 <= max ? v + 1 : v - 1) : v - 1 >= min ? v - 1 : v + 1;
    return n >= min && n <= max ? n : v;
  }
  const str = typeof v === 'string' ? v : '';
  const minLen = s.minLength ?? 0;
  const maxLen = s.maxLength ?? Infinity;
  const longer = `${str}${'abcdefghij'[Math.floor(rand() * 10)]}`;
  if (typeof v !== 'string') return 'a'.repeat(Math.max(1, minLen));
  if (str.length > minLen && (rand() < 0.5 || longer.length > maxLen)) return str.slice(0, -1);
  return longer.length <= maxLen ? longer : str;
}
