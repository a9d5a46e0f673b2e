/**
 * Reading and writing fields deep inside an object of a kind known only at run time (apimachinery's
 * `unstructured.NestedString` and friends). A path is a list of map keys, `('spec', 'template', 'metadata')`; arrays
 * are values, never stepped into (as apimachinery: read a slice with `nestedSlice` and index it).
 *
 * Getters answer `{ found, value, error }` (Go's `val, found, err`):
 * - the path exists and the value has the asked type: `found: true` and the value;
 * - some key on the path is missing, or a map on the way is `null`: `found: false`, no error;
 * - a value on the path is not a map, or the value is not of the asked type: `found: false` and a
 *   {@link NestedFieldError} naming the path (`.spec.replicas`), the type found and the type expected.
 *
 * `nestedField` returns the value itself (change it and the object changes); `nestedMap`, `nestedSlice`,
 * `nestedStringMap` and `nestedStringSlice` return copies. Only own properties count: `constructor` or `__proto__`
 * is found only when the object really has such a key, and setting one never touches a prototype.
 */
import type { Condition } from '../api-types.js';
import { deepCopyJSON, setOwnKey } from '../deepcopy.js';

/** The result of a nested getter (see the module comment). */
export type Nested<T> = { found: true; value: T; error?: undefined } | { found: false; value?: undefined; error?: NestedFieldError };

/** A value on a nested path is not of the type needed: `.spec.replicas accessor error: "2" is of the type string, expected int64`. */
export class NestedFieldError extends Error {
  override readonly name = 'NestedFieldError';
  constructor(
    /** The path as apimachinery prints it: `.spec.replicas`. */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type JsonMap = Record<string, unknown>;

/** `.spec.replicas` for `['spec', 'replicas']`. */
function jsonPath(fields: readonly string[]): string {
  return `.${fields.join('.')}`;
}

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON type of a value as messages name it: `string`, `number`, `boolean`, `null`, `array`, `map`. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

/** A short rendering of a value for messages. */
function show(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function wrongType(fields: readonly string[], v: unknown, expected: string): Nested<never> {
  const path = jsonPath(fields);
  return { found: false, error: new NestedFieldError(path, `${path} accessor error: ${show(v)} is of the type ${typeName(v)}, expected ${expected}`) };
}

/**
 * The value at `fields` (the value itself, not a copy), or not found. A present `null` is found (its value `null`);
 * a `null` map on the way means not found; any other non-map on the way is an error.
 */
export function nestedField(obj: object, ...fields: string[]): Nested<unknown> {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { found: false };
    if (!isMap(val)) return wrongType(fields.slice(0, i + 1), val, 'map');
    const field = fields[i]!;
    if (!Object.hasOwn(val, field)) return { found: false };
    val = val[field];
  }
  return { found: true, value: val };
}

/** The value at `fields` when `guard` accepts it, else not found with an error naming `expected`. */
function typed<T>(obj: object, fields: string[], expected: string, guard: (v: unknown) => v is T): Nested<T> {
  const got = nestedField(obj, ...fields);
  if (!got.found) return got;
  return guard(got.value) ? { found: true, value: got.value } : wrongType(fields, got.value, expected);
}

/** The string at `fields`. */
export function nestedString(obj: object, ...fields: string[]): Nested<string> {
  return typed(obj, fields, 'string', (v): v is string => typeof v === 'string');
}

/** The boolean at `fields`. */
export function nestedBool(obj: object, ...fields: string[]): Nested<boolean> {
  return typed(obj, fields, 'bool', (v): v is boolean => typeof v === 'boolean');
}

/** The number at `fields` (any JSON number: apimachinery's `NestedFloat64` and `NestedInt64` together). */
export function nestedNumber(obj: object, ...fields: string[]): Nested<number> {
  return typed(obj, fields, 'number', (v): v is number => typeof v === 'number' && Number.isFinite(v));
}

/**
 * The integer at `fields` (`1.5` is an error; `2.0` is `2`, JSON does not tell them apart). Integers beyond 2^53 lose
 * precision when the response is parsed, before this reads them.
 */
export function nestedInt64(obj: object, ...fields: string[]): Nested<number> {
  return typed(obj, fields, 'int64', (v): v is number => typeof v === 'number' && Number.isInteger(v));
}

/** A copy of the map at `fields` (`{}` objects; arrays and `null` are errors). */
export function nestedMap(obj: object, ...fields: string[]): Nested<Record<string, unknown>> {
  const got = typed(obj, fields, 'map', isMap);
  return got.found ? { found: true, value: deepCopyJSON(got.value) } : got;
}

/** A copy of the array at `fields`. */
export function nestedSlice(obj: object, ...fields: string[]): Nested<unknown[]> {
  const got = typed(obj, fields, 'array', (v): v is unknown[] => Array.isArray(v));
  return got.found ? { found: true, value: deepCopyJSON(got.value) } : got;
}

/** A copy of the map of strings at `fields` (labels, annotations, a selector); a non-string value is an error. */
export function nestedStringMap(obj: object, ...fields: string[]): Nested<Record<string, string>> {
  const got = typed(obj, fields, 'map', isMap);
  if (!got.found) return got;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(got.value)) {
    if (typeof v !== 'string') {
      const path = jsonPath(fields);
      return { found: false, error: new NestedFieldError(path, `${path} accessor error: contains non-string value in the map under key ${JSON.stringify(k)}: ${show(v)} is of the type ${typeName(v)}, expected string`) };
    }
    setOwnKey(out, k, v);
  }
  return { found: true, value: out };
}

/** A copy of the array of strings at `fields` (finalizers, a list of names); a non-string item is an error. */
export function nestedStringSlice(obj: object, ...fields: string[]): Nested<string[]> {
  const got = typed(obj, fields, 'array', (v): v is unknown[] => Array.isArray(v));
  if (!got.found) return got;
  const bad = got.value.findIndex((v) => typeof v !== 'string');
  if (bad >= 0) {
    const path = jsonPath(fields);
    const v = got.value[bad];
    return { found: false, error: new NestedFieldError(path, `${path} accessor error: contains non-string value in the slice at index ${bad}: ${show(v)} is of the type ${typeName(v)}, expected string`) };
  }
  return { found: true, value: [...(got.value as string[])] };
}

/**
 * Sets a copy of `value` at `fields`, creating the maps on the way that are missing. Throws a
 * {@link NestedFieldError} when a value on the way is there but not a map (`null` included), and a `TypeError` for
 * an empty path. Mutates `obj`.
 */
export function setNestedField(obj: object, value: unknown, ...fields: string[]): void {
  if (fields.length === 0) throw new TypeError('setNestedField needs at least one field');
  let m = obj as JsonMap;
  for (let i = 0; i < fields.length - 1; i++) {
    const field = fields[i]!;
    if (Object.hasOwn(m, field)) {
      const next = m[field];
      if (!isMap(next)) {
        const path = jsonPath(fields.slice(0, i + 1));
        throw new NestedFieldError(path, `value cannot be set because ${path} is not a map (it is of the type ${typeName(next)})`);
      }
      m = next;
    } else {
      const next: JsonMap = {};
      setOwnKey(m, field, next);
      m = next;
    }
  }
  setOwnKey(m, fields[fields.length - 1]!, deepCopyJSON(value));
}

/**
 * Removes the field at `fields`. Returns whether there was one; a missing path, or a non-map on the way, removes
 * nothing (apimachinery's `RemoveNestedField`). Mutates `obj`.
 */
export function removeNestedField(obj: object, ...fields: string[]): boolean {
  if (fields.length === 0) return false;
  const parent = nestedField(obj, ...fields.slice(0, -1));
  const last = fields[fields.length - 1]!;
  if (!parent.found || !isMap(parent.value) || !Object.hasOwn(parent.value, last)) return false;
  delete parent.value[last];
  return true;
}

/**
 * The live `status.conditions` array of an unstructured object, made (with `status`) when missing, so the condition
 * helpers work on it as on a typed object: `setStatusCondition(statusConditionsOf(obj), { type: 'Ready', … })`.
 * Throws a {@link NestedFieldError} when `status` or `status.conditions` holds something else.
 */
export function statusConditionsOf(obj: object): Condition[] {
  const found = nestedField(obj, 'status', 'conditions');
  if (found.error) throw found.error;
  if (found.found && found.value !== null) {
    if (!Array.isArray(found.value)) throw wrongType(['status', 'conditions'], found.value, 'array').error!;
    return found.value as Condition[];
  }
  setNestedField(obj, [], 'status', 'conditions');
  return nestedField(obj, 'status', 'conditions').value as Condition[];
}
