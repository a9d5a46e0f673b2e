/**
 * Walks a value against a structural schema the way kube-openapi's `SchemaValidator` does for the apiserver: the value
 * checks of each node (schema-values.ts), `allOf`/`anyOf`/`oneOf`/`not`, array items and item counts, object
 * properties, `additionalProperties`, property counts and `required`. On update it ratchets as the apiserver does
 * (CRDValidationRatcheting, on by default since 1.30): a node equal to its correlated old value reports nothing.
 * Old values correlate through object fields, map keys and list-map keys; set and atomic list items do not.
 */
import type { StructuralSchema } from './types.js';
import { fieldInvalid, fieldRequired, fieldTooMany, goQuote } from './field-error.js';
import { deepEqual, isObject } from './json-value.js';
import {
  baseInvalid, checkEnum, checkNumber, checkString, checkType, checkUnique, errPath, jsonTypeOf, type ErrorSink,
} from './schema-values.js';

/** The correlated old value of a node on update. */
export interface OldRef {
  readonly value: unknown;
}

/** Validates `value` against `schema`; errors go to `sink` (names relative to the schema's root, as the server's). */
export function validateAgainstSchema(value: unknown, schema: StructuralSchema, sink: ErrorSink, old?: OldRef): void {
  validateNode(value, schema, '', sink, old);
}

function validateNode(v: unknown, s: StructuralSchema, name: string, sink: ErrorSink, old: OldRef | undefined): void {
  if (old !== undefined && deepEqual(old.value, v)) return;
  const t = jsonTypeOf(v);
  if (t === 'null') {
    checkType(v, s, name, sink);
    checkEnum(v, s, name, sink);
    return;
  }
  checkType(v, s, name, sink);
  if (s.allOf || s.anyOf || s.oneOf || s.not) checkCompositions(v, s, name, sink);
  if (t === 'string') checkString(v as string, s, name, sink);
  else if (t === 'integer' || t === 'number') checkNumber(v as number, s, name, sink);
  else if (t === 'array') checkArray(v as unknown[], s, name, sink, old);
  checkEnum(v, s, name, sink);
  if (t === 'object') checkObject(v as Record<string, unknown>, s, name, sink, old);
}

function checkArray(v: unknown[], s: StructuralSchema, name: string, sink: ErrorSink, old: OldRef | undefined): void {
  if (s.items) {
    const correlate = old && Array.isArray(old.value) ? itemCorrelator(s, old.value) : undefined;
    for (let i = 0; i < v.length; i++) validateNode(v[i], s.items, `${name}[${i}]`, sink, correlate?.(v[i]));
  }
  if (s.minItems !== undefined && v.length < s.minItems) {
    sink.errors.push(fieldInvalid(errPath(sink, name), v.length, `${name} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) sink.errors.push(fieldTooMany(errPath(sink, name), v.length, s.maxItems));
  if (s.uniqueItems) checkUnique(v, name, sink);
}

/** How an item finds its old counterpart: by list-map keys; set and atomic list items have none (`CorrelatedObject`). */
export function itemCorrelator(s: StructuralSchema, oldItems: unknown[]): ((item: unknown) => OldRef | undefined) | undefined {
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] !== 'map' || !keys?.length) return undefined;
  const byKey = new Map<string, unknown>();
  for (const o of oldItems) if (isObject(o)) byKey.set(mapKeyOf(o, keys), o);
  return (item) => {
    if (!isObject(item)) return undefined;
    const k = mapKeyOf(item, keys);
    return byKey.has(k) ? { value: byKey.get(k) } : undefined;
  };
}

/** The identity of a list-map item: its key fields' values. */
export function mapKeyOf(item: Record<string, unknown>, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => (k in item ? item[k] : undefined) ?? null));
}

function checkObject(v: Record<string, unknown>, s: StructuralSchema, name: string, sink: ErrorSink, old: OldRef | undefined): void {
  const keys = Object.keys(v);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    sink.errors.push(fieldInvalid(errPath(sink, name), keys.length, `${name} in body should have at least ${s.minProperties} properties`));
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) sink.errors.push(fieldTooMany(errPath(sink, name), keys.length, s.maxProperties));
  const oldObj = old && isObject(old.value) ? old.value : undefined;
  const props = s.properties;
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  if (additional) {
    for (const k of keys) {
      if (props && Object.prototype.hasOwnProperty.call(props, k)) continue;
      validateNode(v[k], additional, `${name}.${k}`, sink, oldObj && k in oldObj ? { value: oldObj[k] } : undefined);
    }
  }
  if (props) {
    for (const p of keys) {
      const prop = Object.prototype.hasOwnProperty.call(props, p) ? props[p] : undefined;
      if (prop) validateNode(v[p], prop, name ? `${name}.${p}` : p, sink, oldObj && p in oldObj ? { value: oldObj[p] } : undefined);
    }
  }
  if (s.required) {
    for (const r of s.required) if (!Object.prototype.hasOwnProperty.call(v, r)) sink.errors.push(fieldRequired(errPath(sink, `${name}.${r}`)));
  }
}

/** `allOf`, `anyOf`, `oneOf` and `not`, with kube-openapi's summary errors (Invalid on the validation's base path). */
function checkCompositions(v: unknown, s: StructuralSchema, name: string, sink: ErrorSink): void {
  const run = (sub: StructuralSchema) => {
    const inner: ErrorSink = { errors: [], base: sink.base };
    validateNode(v, sub, name, inner, undefined);
    return inner.errors;
  };
  if (s.anyOf?.length) {
    let best: ReturnType<typeof run> | undefined;
    let ok = false;
    for (const sub of s.anyOf) {
      const errs = run(sub);
      if (errs.length === 0) { ok = true; break; }
      best ??= errs;
    }
    if (!ok) sink.errors.push(baseInvalid(sink, `${goQuote(name)} must validate at least one schema (anyOf)`), ...best!);
  }
  if (s.oneOf?.length) {
    let valid = 0;
    let best: ReturnType<typeof run> | undefined;
    for (const sub of s.oneOf) {
      const errs = run(sub);
      if (errs.length === 0) valid++;
      else if (valid === 0) best ??= errs;
    }
    if (valid !== 1) {
      const more = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      sink.errors.push(baseInvalid(sink, `${goQuote(name)} must validate one and only one schema (oneOf). ${more}`));
      if (valid === 0 && best) sink.errors.push(...best);
    }
  }
  if (s.allOf?.length) {
    let valid = 0;
    for (const sub of s.allOf) {
      const errs = run(sub);
      if (errs.length === 0) valid++;
      sink.errors.push(...errs);
    }
    if (valid !== s.allOf.length) {
      sink.errors.push(baseInvalid(sink, `${goQuote(name)} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
    }
  }
  if (s.not && run(s.not).length === 0) sink.errors.push(baseInvalid(sink, `${goQuote(name)} must not validate the schema (not)`));
}
