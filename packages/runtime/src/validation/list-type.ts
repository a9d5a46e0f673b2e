/**
 * `x-kubernetes-list-type` checks as the apiserver makes them (`schema/listtype/validation.go`): a `set` holds no
 * value twice, a `map` list holds objects with distinct key tuples. Each repeat is a `Duplicate value` at its index
 * (only the second occurrence of a value is reported); a map list's non-object item is Invalid.
 */
import type { StructuralSchema } from './types.js';
import { canonicalJson, fieldDuplicate, fieldInvalid, OMIT_VALUE, type FieldError } from './field-error.js';
import { isObject } from './json-value.js';
import { schemaFacts } from './schema-index.js';

/** Checks every list under the object `obj` (the resource root or the status). Paths hang from `base`. */
export function validateListTypes(obj: unknown, s: StructuralSchema | undefined, base: string, errors: FieldError[]): void {
  if (!s || !isObject(obj) || !schemaFacts(s).hasListTypes) return;
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k of Object.keys(obj)) {
    const prop = s.properties?.[k];
    if (prop) walk(obj[k], prop, base ? `${base}.${k}` : k, errors);
    else if (additional) walk(obj[k], additional, `${base}[${k}]`, errors);
  }
}

function walk(x: unknown, s: StructuralSchema, path: string, errors: FieldError[]): void {
  if (!schemaFacts(s).hasListTypes) return;
  if (isObject(x)) validateListTypes(x, s, path, errors);
  else if (Array.isArray(x)) {
    const type = s['x-kubernetes-list-type'];
    if (type === 'set') for (const i of repeats(x)) errors.push(fieldDuplicate(`${path}[${i}]`, x[i]));
    else if (type === 'map') errors.push(...mapErrors(x, s['x-kubernetes-list-map-keys'] ?? [], path));
    if (s.items) for (let i = 0; i < x.length; i++) walk(x[i], s.items, `${path}[${i}]`, errors);
  }
}

/** Indices of the second occurrence of each repeated value. */
function repeats(values: readonly unknown[]): number[] {
  if (values.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((v, i) => {
    const key = typeof v === 'object' && v !== null ? `j${canonicalJson(v)}` : `s${typeof v}:${String(v)}`;
    const n = seen.get(key) ?? 0;
    if (n === 1) out.push(i);
    seen.set(key, n + 1);
  });
  return out;
}

function mapErrors(items: unknown[], keys: readonly string[], path: string): FieldError[] {
  for (let i = 0; i < items.length; i++) {
    if (items[i] !== null && !isObject(items[i])) return [fieldInvalid(`${path}[${i}]`, items[i], 'must be an object for an array of list-type map')];
  }
  if (items.length <= 1) return [];
  const UNSPECIFIED = { unspecified: true };
  if (keys.length === 1) {
    const k = keys[0]!;
    const values = items.map((x) => (isObject(x) && k in x ? x[k] : UNSPECIFIED));
    return repeats(values.map((v) => (v === UNSPECIFIED ? '\u0000unspecified' : v))).map((i) =>
      fieldDuplicate(`${path}[${i}]`, values[i] === UNSPECIFIED ? {} : { [k]: values[i] }));
  }
  const tuples = items.map((x) => {
    const t: Record<string, unknown> = {};
    if (isObject(x)) for (const k of keys) if (k in x) t[k] = x[k];
    return t;
  });
  return repeats(tuples).map((i) => fieldDuplicate(`${path}[${i}]`, tuples[i] ?? OMIT_VALUE));
}
