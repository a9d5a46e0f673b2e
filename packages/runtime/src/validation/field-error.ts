/**
 * Field errors as the apiserver reports them (`k8s.io/apimachinery/pkg/util/validation/field`): a path, a reason (the
 * `StatusCause` type) and the message text `ErrorBody()` renders — the `message` of a 422's `details.causes[]`, with
 * the bad value printed as Go prints it. Nothing here knows schemas; the validators build their errors with these.
 */

/** The reasons (`field.ErrorType`) the CRD validation produces. */
export type FieldErrorReason =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

/** One refused field, exactly as a 422 `StatusCause` carries it. */
export interface FieldError {
  /** The field path in the apiserver's spelling: `spec.replicas`, `spec.items[0].name`, `spec.labels[a.b]`, or `<nil>` for the object itself. */
  readonly path: string;
  /** The cause type, e.g. `FieldValueInvalid`. */
  readonly reason: FieldErrorReason;
  /** `field.Error.ErrorBody()`: what `details.causes[].message` says, e.g. `Invalid value: "x": spec.a in body should match '^[a-z]+$'`. */
  readonly message: string;
  /** The detail alone (`field.Error.Detail`), without the reason's text and the bad value. */
  readonly detail: string;
}

/** The path the apiserver prints for "no path" (a nil `*field.Path`). */
export const NIL_PATH = '<nil>';

const OMIT = Symbol('omit value');
/** Pass as the bad value to print the reason alone (the apiserver's `field.OmitValueType`). */
export const OMIT_VALUE: unknown = OMIT;

const REASON_TEXT: Record<FieldErrorReason, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  InternalError: 'Internal error',
};

/** Reasons whose text carries no bad value (Go's ErrorBody prints the type alone for them). */
const VALUELESS = new Set<FieldErrorReason>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

function makeError(path: string, reason: FieldErrorReason, value: unknown, detail: string): FieldError {
  let body = REASON_TEXT[reason];
  if (!VALUELESS.has(reason) && value !== OMIT) body += `: ${goValue(value)}`;
  if (detail) body += `: ${detail}`;
  return { path: path || NIL_PATH, reason, message: body, detail };
}

export const fieldInvalid = (path: string, value: unknown, detail: string): FieldError => makeError(path, 'FieldValueInvalid', value, detail);
export const fieldTypeInvalid = (path: string, value: unknown, detail: string): FieldError => makeError(path, 'FieldValueTypeInvalid', value, detail);
export const fieldRequired = (path: string, detail = ''): FieldError => makeError(path, 'FieldValueRequired', '', detail);
export const fieldForbidden = (path: string, detail: string): FieldError => makeError(path, 'FieldValueForbidden', '', detail);
export const fieldDuplicate = (path: string, value: unknown): FieldError => makeError(path, 'FieldValueDuplicate', value, '');

/** `field.NotSupported`: the allowed values, each quoted (non-strings as their JSON). */
export function fieldNotSupported(path: string, value: unknown, allowed: readonly unknown[]): FieldError {
  const quoted = allowed.map((v) => goQuote(typeof v === 'string' ? v : goJson(v)));
  return makeError(path, 'FieldValueNotSupported', value, quoted.length ? `supported values: ${quoted.join(', ')}` : '');
}

/** `field.TooLong(path, _, max)`: "may not be more than N bytes" (the apiserver says bytes even where it counts characters). */
export const fieldTooLong = (path: string, max: number): FieldError =>
  makeError(path, 'FieldValueTooLong', '', max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long');

/** `field.TooMany(path, actual, max)`. */
export const fieldTooMany = (path: string, actual: number, max: number): FieldError =>
  makeError(path, 'FieldValueTooMany', actual >= 0 ? actual : OMIT, max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items');

/** The text of one error as `field.Error.Error()` prints it: `path: body`. */
export const fieldErrorText = (e: FieldError): string => `${e.path}: ${e.message}`;

// ---- Go value printing ----------------------------------------------------------------------------------------

/** A bad value as `ErrorBody` prints it: numbers and booleans plain, strings `%q`, everything else as JSON. */
export function goValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  return goJson(value);
}

/** A number as Go's `%v` prints it: an integer (JSON decodes whole numbers to int64) plainly, a float as `%g` does. */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  return goFloat(n);
}

/** A float64 as Go's `%v` prints it (`%g`, shortest digits: an exponent from 1e+06 up and below 1e-04). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = n.toExponential().split('e');
    const ev = Number(e);
    return `${mant}e${ev < 0 ? '-' : '+'}${String(Math.abs(ev)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's `strconv.Quote`. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\n': out += '\\n'; continue;
      case '\t': out += '\\t'; continue;
      case '\r': out += '\\r'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0xfffd) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** Go's `json.Marshal` of a decoded JSON value: object keys sorted, `<`, `>` and `&` escaped. */
export function goJson(value: unknown): string {
  return canonicalJson(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON with object keys sorted (the identity of a value for set and map-key comparisons). */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
