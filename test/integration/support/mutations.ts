/**
 * Mutations of a kind's sample for the validator's differential test (issue 29): deterministic (seeded) variants of
 * a valid object, each meant to probe one rule family — wrong types, out-of-range numbers, too long or too short
 * strings, lists and maps, pattern, enum and format violations, missing required fields, nulls, unknown fields,
 * CEL-breaking values (read off each rule's text), duplicate list-map and set entries, metadata name, label and
 * annotation violations — plus valid variants (optional fields filled) and transition updates (a valid object
 * created, then updated with a change a rule over `oldSelf` may forbid). A mutation only says what it changed: the
 * verdict is the server's and the validator's to give.
 */
import type { JSONSchemaProps, KindVersion } from 'kubegen/internal/model/index.js';
import { sampleValue } from 'kubegen/internal/generate/sample/index.js';
import { applyEdit, candidateEdits, type Edit, type Token } from 'kubegen/internal/generate/sample/edits.js';

/** One case: create `object`; for a transition, create `base` first and update it to `object`'s change. */
export interface MutationCase {
  /** `family: what` — e.g. `type: spec.replicas = "12"`. */
  name: string;
  family: string;
  /** The object to create (for a transition: the object the update writes, `base` with the change). */
  object: Record<string, unknown>;
  /** Transition updates only: the object created first. */
  base?: Record<string, unknown>;
  /** Transition updates only: the change, to apply to the stored object the server returns for `base`. */
  edit?: Edit;
}

/** A place in the sample: present (`value` set), or an optional field its present parent may have. */
interface Site {
  path: Token[];
  schema: JSONSchemaProps;
  present: boolean;
  value: unknown;
  required: boolean;
}

const MAX_DEPTH = 12;
const MAX_SITES = 400;

const show = (path: Token[]): string => path.map((t, i) => (typeof t === 'number' ? `[${t}]` : i === 0 ? t : `.${t}`)).join('');
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeOf = (s: JSONSchemaProps): string | undefined => s.type ?? (s['x-kubernetes-int-or-string'] ? 'int-or-string' : undefined);

/** Every present node of `sample` under the root (metadata, apiVersion and kind aside), and the optional fields of present objects. */
function sitesOf(schema: JSONSchemaProps, sample: Record<string, unknown>): Site[] {
  const out: Site[] = [];
  const visit = (s: JSONSchemaProps, v: unknown, path: Token[], depth: number): void => {
    if (depth > MAX_DEPTH || out.length > MAX_SITES) return;
    if (isObj(v) && s.properties) {
      const req = new Set(s.required ?? []);
      for (const [k, ps] of Object.entries(s.properties)) {
        if (depth === 0 && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
        const present = k in v;
        out.push({ path: [...path, k], schema: ps, present, value: v[k], required: req.has(k) });
        if (present) visit(ps, v[k], [...path, k], depth + 1);
      }
    } else if (isObj(v) && typeof s.additionalProperties === 'object') {
      for (const [k, child] of Object.entries(v)) {
        out.push({ path: [...path, k], schema: s.additionalProperties, present: true, value: child, required: false });
        visit(s.additionalProperties, child, [...path, k], depth + 1);
      }
    } else if (Array.isArray(v) && s.items) {
      v.forEach((item, i) => {
        out.push({ path: [...path, i], schema: s.items!, present: true, value: item, required: false });
        visit(s.items!, item, [...path, i], depth + 1);
      });
    }
  };
  visit(schema, sample, [], 0);
  return out;
}

/** A deterministic pseudo-random source (an LCG) for the seeded choices. */
class Seeded {
  constructor(private state: number) {}
  next(): number {
    this.state = (Math.imul(this.state, 1103515245) + 12345) >>> 0;
    return this.state / 2 ** 32;
  }
  shuffle<T>(xs: T[]): T[] {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  }
}

/** Values of another type than `s` admits. */
function wrongTypes(s: JSONSchemaProps): unknown[] {
  switch (typeOf(s)) {
    case 'string': return [12345, true, { a: 'b' }, ['x']];
    case 'integer': return ['12', 1.5, true, [1]];
    case 'number': return ['1.5', false, { a: 1 }];
    case 'boolean': return ['true', 1, ['x']];
    case 'object': return ['text', [1], 7];
    case 'array': return ['text', { a: 1 }, 3];
    case 'int-or-string': return [true, { a: 1 }, [1]];
    default: return [];
  }
}

/** Values breaking the bounds, lengths, pattern, enum or format of `s` (family, value). */
function constraintBreakers(s: JSONSchemaProps, valid: unknown): [string, unknown][] {
  const out: [string, unknown][] = [];
  const step = s.multipleOf ?? 1;
  if (s.minimum !== undefined) out.push(['range', s.exclusiveMinimum ? s.minimum : s.minimum - step]);
  if (s.maximum !== undefined) out.push(['range', s.exclusiveMaximum ? s.maximum : s.maximum + step]);
  if (s.multipleOf !== undefined && typeof valid === 'number') out.push(['range', valid + s.multipleOf / 2]);
  if (s.maxLength !== undefined) out.push(['length', 'a'.repeat(s.maxLength + 1)]);
  if (s.minLength !== undefined && s.minLength > 0) out.push(['length', 'a'.repeat(s.minLength - 1)]);
  if (s.pattern !== undefined) out.push(['pattern', 'Not A Match!'], ['pattern', '']);
  if (s.enum !== undefined) out.push(['enum', typeof s.enum[0] === 'number' ? 987654 : 'NotInTheEnum']);
  if (s.format !== undefined && typeOf(s) === 'string') out.push(['format', 'not-a-valid-value']);
  const item = s.items ? sampleValue(s.items, 'item') : undefined;
  const many = (n: number): unknown[] => Array.from({ length: n }, (_, i) => (typeof item === 'string' ? `${item}${i}` : typeof item === 'number' ? item + i : item));
  if (s.maxItems !== undefined && s.maxItems < 64) out.push(['length', many(s.maxItems + 1)]);
  if (s.minItems !== undefined && s.minItems > 0) out.push(['length', many(s.minItems - 1)]);
  const entry = typeof s.additionalProperties === 'object' ? sampleValue(s.additionalProperties, 'v') : undefined;
  const props = (n: number): Record<string, unknown> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, entry ?? 'v']));
  if (s.maxProperties !== undefined && s.maxProperties < 64) out.push(['length', props(s.maxProperties + 1)]);
  if (s.minProperties !== undefined && s.minProperties > 0 && typeof s.additionalProperties === 'object') out.push(['length', props(s.minProperties - 1)]);
  return out;
}

/** A different valid-looking value for a transition: strings and numbers changed, booleans flipped, objects' first leaf changed. */
function changed(s: JSONSchemaProps, v: unknown): unknown {
  if (typeof v === 'string') return s.enum?.find((e) => e !== v) ?? (s.maxLength !== undefined && v.length >= s.maxLength ? `${v.slice(0, -1)}z` : `${v}z`);
  if (typeof v === 'number') return s.maximum !== undefined && v + 1 > s.maximum ? v - 1 : v + 1;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return v.length > 0 ? v.slice(1) : s.items ? [sampleValue(s.items, 'item')] : v;
  if (isObj(v)) {
    for (const [k, ps] of Object.entries(s.properties ?? {})) {
      if (k in v && typeof v[k] !== 'object') return { ...v, [k]: changed(ps, v[k]) };
    }
    const extra = Object.entries(s.properties ?? {}).find(([k]) => !(k in v));
    if (extra) return { ...v, [extra[0]]: sampleValue(extra[1], extra[0]) };
    if (typeof s.additionalProperties === 'object') return { ...v, changed: sampleValue(s.additionalProperties, 'changed') };
  }
  return v;
}

/** The nodes with a transition rule (over `oldSelf`), reached through properties and first list items. */
function transitionSites(root: JSONSchemaProps): { path: Token[]; schema: JSONSchemaProps; ancestors: JSONSchemaProps[]; required: boolean }[] {
  const out: { path: Token[]; schema: JSONSchemaProps; ancestors: JSONSchemaProps[]; required: boolean }[] = [];
  const visit = (s: JSONSchemaProps, path: Token[], ancestors: JSONSchemaProps[], required: boolean): void => {
    if (path.length > MAX_DEPTH || out.length >= 12) return;
    if (path.length > 0 && (s['x-kubernetes-validations'] ?? []).some((r) => /\boldSelf\b/.test(r.rule))) out.push({ path, schema: s, ancestors, required });
    const req = new Set(s.required ?? []);
    for (const [k, ps] of Object.entries(s.properties ?? {})) {
      if (path.length === 0 && (k === 'metadata' || k === 'status')) continue;
      visit(ps, [...path, k], [...ancestors, s], req.has(k));
    }
    if (s.items) visit(s.items, [...path, 0], [...ancestors, s], true);
  };
  visit(root, [], [], true);
  // `ancestors[0]` is the root: drop it, so `ancestors[i]` is the schema at `path.slice(0, i + 1)`.
  return out.map((t) => ({ ...t, ancestors: t.ancestors.slice(1) }));
}

function valueAt(obj: unknown, path: Token[]): unknown {
  let v = obj;
  for (const t of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[t] : undefined;
  return v;
}

/** Sets the node at `path` to a generated value of `s` when it is absent (a list gets one item). */
function fill(obj: Record<string, unknown>, path: Token[], s: JSONSchemaProps): void {
  if (valueAt(obj, path) !== undefined) return;
  const v = sampleValue(s, String(path[path.length - 1]));
  applyEdit(obj, { path, value: Array.isArray(v) && v.length === 0 && s.items ? [sampleValue(s.items, 'item')] : v });
}

const withEdit = (obj: Record<string, unknown>, e: Edit): Record<string, unknown> => {
  const out = structuredClone(obj);
  applyEdit(out, e);
  return out;
};

/**
 * At least `min` (when the schema has room for them) and at most `max` mutations of `sample`, chosen round-robin
 * over the families in an order `seed` fixes; transitions come on top (at most `maxTransitions`).
 */
export function mutations(kv: KindVersion, sample: Record<string, unknown>, opts: { seed: number; max?: number; maxTransitions?: number }): MutationCase[] {
  const rnd = new Seeded(opts.seed);
  const schema = kv.version.schema;
  const sites = sitesOf(schema, sample);
  const families = new Map<string, MutationCase[]>();
  const add = (family: string, what: string, object: Record<string, unknown>): void => {
    const list = families.get(family) ?? [];
    list.push({ name: `${family}: ${what}`, family, object });
    families.set(family, list);
  };
  const set = (family: string, path: Token[], value: unknown): void => add(family, `${show(path)} = ${JSON.stringify(value)?.slice(0, 60)}`, withEdit(sample, { path, value }));
  const transitions: MutationCase[] = [];

  add('valid', 'the sample', structuredClone(sample));
  for (const site of sites) {
    const { path, schema: s } = site;
    const valid = site.present ? site.value : sampleValue(s, String(path[path.length - 1]));
    if (!site.present) set('valid', path, valid);
    for (const w of wrongTypes(s)) set('type', path, w);
    for (const [family, v] of constraintBreakers(s, valid)) set(family, path, v);
    if (site.present && site.required) add('required', `${show(path)} removed`, withEdit(sample, { path, remove: true }));
    if (site.present && typeof path[path.length - 1] === 'string') set('null', path, null);
    if (s['x-kubernetes-preserve-unknown-fields'] && (site.present ? isObj(site.value) : typeOf(s) === 'object')) {
      set('preserved', [...path, 'kubegenPreservedField'], { any: ['thing'] });
      set('preserved', [...path, 'kubegenPreservedNumber'], 1.25);
    } else if ((typeOf(s) === 'object' || s.properties) && s.properties) {
      set('unknown', [...path, 'kubegenUnknownField'], 'x');
      if (!site.present) add('unknown', `${show(path)} with an unknown field`, withEdit(sample, { path, value: { ...(isObj(valid) ? valid : {}), kubegenUnknownField: 1 } }));
    }
    if (s['x-kubernetes-list-type'] === 'map' || s['x-kubernetes-list-type'] === 'set') {
      const item = Array.isArray(valid) && valid.length > 0 ? valid[0] : s.items ? sampleValue(s.items, 'item') : 'x';
      set('list-type', path, [item, structuredClone(item)]);
    }
    for (const rule of s['x-kubernetes-validations'] ?? []) {
      if (/\boldSelf\b/.test(rule.rule)) continue; // transitions: below
      const base = site.present ? sample : withEdit(sample, { path, value: valid });
      if (!site.present) set('cel', path, valid);
      for (const e of candidateEdits({ path, schema: s, self: valid, rule }, sampleValue)) {
        add('cel', `${show(e.path)} ${e.remove ? 'removed' : `= ${JSON.stringify(e.value)?.slice(0, 60)}`} (${rule.rule.slice(0, 60)})`, withEdit(base, e));
      }
    }
  }
  for (const [what, edit] of [
    ['uppercase name', { name: 'Bad-Name' }], ['underscore in name', { name: 'bad_name' }], ['name of 254 characters', { name: 'a'.repeat(254) }],
    ['name ending in a dash', { name: 'bad-' }], ['dotted name', { name: 'dotted.name.ok' }], ['bad label key', { labels: { 'bad key!': 'v' } }],
    ['bad label value', { labels: { k: 'bad value!' } }], ['bad annotation key', { annotations: { 'Bad Key': 'v' } }],
    ['unknown metadata field', { kubegenUnknownField: 'x' }], ['wrong type of labels', { labels: 'text' }],
    ['no name', { name: undefined }], ['generateName only', { name: undefined, generateName: 'gen-' }],
    ['label value of 64 characters', { labels: { k: 'v'.repeat(64) } }], ['bad finalizer', { finalizers: ['bad finalizer'] }],
    ['ownerReference without uid', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner' }] }],
    ['name of 253 characters', { name: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}` }],
    ['prefixed label key', { labels: { 'example.com/k': 'v' } }], ['label key prefix too long', { labels: { [`${'a'.repeat(254)}/k`]: 'v' } }],
    ['resourceVersion on create', { resourceVersion: '5' }], ['wrong type of annotations', { annotations: ['x'] }],
    ['empty name', { name: '' }], ['bad generateName', { name: undefined, generateName: 'Bad_' }], ['null labels', { labels: null }],
  ] as const) {
    const metadata: Record<string, unknown> = { ...(sample['metadata'] as object), ...edit };
    for (const [k, v] of Object.entries(metadata)) if (v === undefined) delete metadata[k];
    add('metadata', what, { ...structuredClone(sample), metadata });
  }
  for (const t of transitionSites(schema)) {
    const base = structuredClone(sample);
    for (let i = 1; i < t.path.length; i++) fill(base, t.path.slice(0, i), t.ancestors[i - 1]!);
    fill(base, t.path, t.schema);
    const rule = (t.schema['x-kubernetes-validations'] ?? []).find((r) => /\boldSelf\b/.test(r.rule))!.rule.slice(0, 60);
    const edits: [string, Edit][] = [['changed', { path: t.path, value: changed(t.schema, valueAt(base, t.path)) }]];
    if (!t.required) edits.push(['removed', { path: t.path, remove: true }]);
    for (const [what, edit] of edits) transitions.push({ name: `transition: ${show(t.path)} ${what} (${rule})`, family: 'transition', object: withEdit(base, edit), base, edit });
    transitions.push({ name: `transition: ${show(t.path)} unchanged, a label added (${rule})`, family: 'transition', object: base, base, edit: { path: ['metadata', 'labels'], value: { changed: 'yes' } } });
  }
  add('type', 'status = "text"', { ...structuredClone(sample), status: 'text' });
  add('unknown', 'status with an unknown field', { ...structuredClone(sample), status: { kubegenUnknownField: 1 } });
  add('unknown', 'an unknown top-level field', { ...structuredClone(sample), kubegenUnknownField: 'x' });

  // Round-robin over the families in a seeded order, each family's cases in a seeded order, the sample first.
  const max = opts.max ?? 40;
  const queues = rnd.shuffle([...families.keys()].filter((f) => f !== 'valid')).map((f) => rnd.shuffle(families.get(f)!));
  const out: MutationCase[] = [families.get('valid')![0]!, ...rnd.shuffle(families.get('valid')!.slice(1)).slice(0, 3)];
  while (out.length < max && queues.some((q) => q.length > 0)) {
    for (const q of queues) if (q.length > 0 && out.length < max) out.push(q.shift()!);
  }
  return [...out, ...rnd.shuffle(transitions).slice(0, opts.maxTransitions ?? 10)];
}
