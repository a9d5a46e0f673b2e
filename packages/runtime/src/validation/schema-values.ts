/**
 * The OpenAPI value checks of one schema node, as kube-openapi's validator makes them for the apiserver (`type`,
 * `format`, `enum`, numeric bounds and `multipleOf`, string lengths and `pattern`), with its message texts and the
 * field errors `kubeOpenAPIResultToFieldErrors` turns them into. Numbers follow Go's decoding: a whole number is an
 * int64 (bounds truncated to integers, printed as such), anything else a float64 (bounds printed with `%v`).
 */
import type { StructuralSchema } from './types.js';
import {
  canonicalJson, fieldInvalid, fieldNotSupported, fieldTooLong, fieldTypeInvalid, goFloat, goNumber, goQuote, type FieldError,
} from './field-error.js';
import { effectiveFormat, stringFormatCheck } from './formats.js';
import { deepEqual } from './json-value.js';
import { compilePattern } from './regex.js';

/** Where a node's errors go: the list, and the field path the kube-openapi names hang from (`undefined`: none). */
export interface ErrorSink {
  readonly errors: FieldError[];
  /** The apiserver's `fldPath` of this validation: undefined for an object (paths are the names), `status` for status. */
  readonly base: string | undefined;
}

/** The field path of an error about kube-openapi's `name` (`.spec` and `spec` alike; the base alone for the root). */
export function errPath(sink: ErrorSink, name: string): string {
  const n = name.startsWith('.') ? name.slice(1) : name;
  if (n === '') return sink.base ?? '';
  return sink.base === undefined ? n : `${sink.base}.${n}`;
}

/** An error that is not a kube-openapi `Validation` (composition and range failures): Invalid on the base path. */
export const baseInvalid = (sink: ErrorSink, message: string): FieldError => fieldInvalid(sink.base ?? '', '', message);

/** The JSON type kube-openapi sees for a decoded value. */
export function jsonTypeOf(v: unknown): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean': return 'boolean';
    case 'number': return isInt64(v as number) ? 'integer' : 'number';
    case 'string': return 'string';
    default: return Array.isArray(v) ? 'array' : 'object';
  }
}

/** Whether Go's JSON decoding makes `n` an int64 (a whole number within int64) rather than a float64. */
export const isInt64 = (n: number): boolean => Number.isInteger(n) && Math.abs(n) < 2 ** 63;

/** The schema's types as kube-openapi holds them (`x-kubernetes-int-or-string` is `integer,string`). */
export function schemaTypes(s: StructuralSchema): readonly string[] {
  if (s['x-kubernetes-int-or-string']) return INT_OR_STRING;
  return s.type ? [s.type] : NO_TYPES;
}
const INT_OR_STRING = ['integer', 'string'];
const NO_TYPES: string[] = [];

/** swag's `IsFloat64AJSONInteger`. */
function isJsonInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  return Math.abs(f - Math.round(f)) < 1e-9 * Math.abs(f);
}

/** The type check (`typeValidator`); true when the value has an acceptable type. */
export function checkType(v: unknown, s: StructuralSchema, name: string, sink: ErrorSink): boolean {
  const types = schemaTypes(s);
  const format = effectiveFormat(s);
  if (types.length === 0 && !format) return true;
  const t = jsonTypeOf(v);
  const fail = (expected: string, got: string) => {
    sink.errors.push(fieldTypeInvalid(errPath(sink, name), got, `${name} in body must be of type ${expected}: ${goQuote(got)}`));
    return false;
  };
  if (t === 'null') return types.length === 0 || s.nullable === true ? true : fail(types.join(','), 'null');
  const has = (x: string) => types.includes(x);
  const isFloatInt = t === 'number' && has('integer') && isJsonInteger(v as number);
  const isIntFloat = t === 'integer' && has('number');
  if (t !== 'string' && t !== 'array' && format) {
    // decoded JSON numbers are int64 or float64, never the narrower int32/float32 kube-openapi also accepts
    const valueFormat = t === 'integer' ? 'int64' : t === 'number' ? 'float64' : '';
    if (!(has(t) || valueFormat === format || isFloatInt || isIntFloat)) return fail(format, valueFormat);
  }
  if (!(has('number') || has('integer')) && format && (t === 'string' || t === 'array')) return true;
  if (types.length === 0) return true;
  if (!(has(t) || isFloatInt || isIntFloat)) return fail(types.join(','), t);
  return true;
}

/** `minLength`, `maxLength` and `pattern` (the first failure only, as kube-openapi stops there), then `format`. */
export function checkString(v: string, s: StructuralSchema, name: string, sink: ErrorSink): void {
  const path = errPath(sink, name);
  const failed = stringBoundsError(v, s, name, path);
  if (failed) sink.errors.push(failed);
  const format = stringFormatCheck(s.format, s['x-kubernetes-int-or-string'] ? undefined : s.type);
  if (format && !format(v)) sink.errors.push(fieldTypeInvalid(path, v, `${name} in body must be of type ${s.format}: ${goQuote(v)}`));
}

function stringBoundsError(v: string, s: StructuralSchema, name: string, path: string): FieldError | undefined {
  if (s.maxLength !== undefined || s.minLength !== undefined) {
    const runes = countRunes(v);
    if (s.maxLength !== undefined && runes > s.maxLength) return fieldTooLong(path, s.maxLength);
    if (s.minLength !== undefined && runes < s.minLength) return fieldInvalid(path, v, `${name} in body should be at least ${s.minLength} chars long`);
  }
  if (s.pattern) {
    const re = compilePattern(s.pattern);
    if (re.error !== undefined) return fieldInvalid(path, v, `${name} in body should match '${s.pattern}, but pattern is invalid: ${re.error}'`);
    if (!re.test(v)) return fieldInvalid(path, v, `${name} in body should match '${s.pattern}'`);
  }
  return undefined;
}

function countRunes(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

type NumType = 'integer' | 'number' | '';

/** kube-openapi's `IsValueValidAgainstRange`: whether `n` fits the schema's type and format. */
function fitsRange(n: number, type: NumType, format: string): boolean {
  if (type === 'integer') {
    if (!Number.isInteger(n)) return false;
    if (format === 'int32') return n >= -(2 ** 31) && n <= 2 ** 31 - 1;
    return Math.abs(n) <= 2 ** 63;
  }
  if (format === 'float') return Math.abs(n) <= 3.4028234663852886e38;
  return true;
}

/** `minimum`, `maximum` (and their exclusive forms) and `multipleOf`. */
export function checkNumber(v: number, s: StructuralSchema, name: string, sink: ErrorSink): void {
  const type: NumType = s.type === 'integer' || s.type === 'number' ? s.type : '';
  const format = (type === 'integer' && (s.format === 'int32' || s.format === 'int64')) || (type === 'number' && (s.format === 'float' || s.format === 'double')) ? s.format! : '';
  const path = errPath(sink, name);
  const isInt = isInt64(v);
  if (!fitsRange(v, type, format)) sink.errors.push(baseInvalid(sink, rangeMessage('Checked', type, format, name)));
  if (s.multipleOf !== undefined) {
    const f = s.multipleOf;
    const nativeOk = fitsRange(f, type, format);
    if (!nativeOk) sink.errors.push(baseInvalid(sink, rangeMessage('MultipleOf', type, format, name)));
    if (nativeOk && isInt) {
      const fi = Math.trunc(f);
      if (fi <= 0) sink.errors.push(fieldInvalid(path, fi, `factor MultipleOf declared for ${name} must be positive: ${goNumber(fi)}`));
      else if (v % fi !== 0) sink.errors.push(fieldInvalid(path, v, `${name} in body should be a multiple of ${goNumber(fi)}`));
    } else if (f <= 0) {
      sink.errors.push(fieldInvalid(path, f, `factor MultipleOf declared for ${name} must be positive: ${goFloat(f)}`));
    } else if (!isJsonInteger(f < 1 ? (1 / f) * v : v / f)) {
      sink.errors.push(fieldInvalid(path, v, `${name} in body should be a multiple of ${goFloat(f)}`));
    }
  }
  if (s.minimum !== undefined) {
    checkBound(v, s.minimum, !!s.exclusiveMinimum, 'min', type, format, name, path, sink);
  }
  if (s.maximum !== undefined) {
    checkBound(v, s.maximum, !!s.exclusiveMaximum, 'max', type, format, name, path, sink);
  }
}

function checkBound(v: number, bound: number, exclusive: boolean, kind: 'min' | 'max', type: NumType, format: string, name: string, path: string, sink: ErrorSink): void {
  const nativeOk = fitsRange(bound, type, format);
  if (!nativeOk) sink.errors.push(baseInvalid(sink, rangeMessage(kind === 'min' ? 'Minimum boundary' : 'Maximum boundary', type, format, name)));
  const asInt = nativeOk && isInt64(v);
  const b = asInt ? Math.trunc(bound) : bound;
  const violated = kind === 'max' ? (exclusive ? v >= b : v > b) : exclusive ? v <= b : v < b;
  if (!violated) return;
  const shown = asInt ? goNumber(b) : goFloat(b);
  const relation = kind === 'max' ? (exclusive ? 'less than' : 'less than or equal to') : exclusive ? 'greater than' : 'greater than or equal to';
  sink.errors.push(fieldInvalid(path, v, `${name} in body should be ${relation} ${shown}`));
}

function rangeMessage(prefix: string, type: NumType, format: string, name: string): string {
  const t = type || 'number';
  return format ? `${prefix} value must be of type ${t} with format ${format} in ${name}` : `${prefix} value must be of type ${t} (default format) in ${name}`;
}

/** `enum`: Go compares after converting the value to each enum value's type (so an integer matches the string of its rune). */
export function checkEnum(v: unknown, s: StructuralSchema, name: string, sink: ErrorSink): void {
  const values = s.enum;
  if (!values || values.length === 0) return;
  if (v !== null && v !== undefined) {
    for (const e of values) {
      if (e === null || e === undefined) continue;
      if (deepEqual(v, e)) return;
      if (typeof v === 'number' && Number.isInteger(v) && typeof e === 'string' && v >= 0 && v <= 0x10ffff && String.fromCodePoint(v) === e) return;
    }
  }
  sink.errors.push(fieldNotSupported(errPath(sink, name), v ?? null, values));
}

/** `uniqueItems`: kube-openapi's DuplicateItems (an Invalid with an empty value). */
export function checkUnique(v: unknown[], name: string, sink: ErrorSink): void {
  const seen = new Set<string>();
  for (const x of v) {
    const key = canonicalJson(x);
    if (seen.has(key)) {
      sink.errors.push(fieldInvalid(errPath(sink, name), '', `${name} in body shouldn't contain duplicates`));
      return;
    }
    seen.add(key);
  }
}
