/**
 * Unstructured JSON → CEL values, as the apiserver's `UnstructuredToVal` does for a schema node: integers become CEL
 * `int` (bigint), numbers `double`, `format: date-time`/`date` strings timestamps, `duration` strings durations,
 * `byte` strings bytes; objects with properties become maps keyed by the escaped property names (so `has()` and field
 * selection see `__namespace__`, `x__dash__y`), maps (`additionalProperties`) keep their keys.
 */
import type { CelInput } from '@bufbuild/cel';
import type { StructuralSchema } from '../types.js';
import { escapeName } from './escape.js';
import { withTypeAndObjectMeta } from './resource-root.js';
import { parseDate, parseDateTime, parseStrfmtDuration, durationOfNanos } from './time.js';

/** A value the schema does not allow (the structural validator reports it; CEL sees an error value). */
export class InvalidDataError extends Error {}

/** Converts `value` for a node of `schema` (`isResourceRoot` for the CR root and embedded resources). */
export function toCel(value: unknown, schema: StructuralSchema, isResourceRoot = false): CelInput {
  if (value === null || value === undefined) {
    if (schema.nullable) return null;
    throw new InvalidDataError('invalid data, got null for schema with nullable=false');
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
    if (typeof value === 'bigint') return value;
    throw new InvalidDataError('invalid data, expected XIntOrString value to be either a string or integer');
  }
  switch (schema.type) {
    case 'object':
      return objectToCel(value, schema, isResourceRoot);
    case 'array': {
      if (!Array.isArray(value)) throw new InvalidDataError('invalid data, expected an array for the provided schema with type=array');
      const items = schema.items;
      if (!items) throw new InvalidDataError('invalid array type, expected Items with a non-empty Schema');
      return value.map((v) => toCel(v, items, items['x-kubernetes-embedded-resource'] === true));
    }
    case 'string':
      return stringToCel(value, schema);
    case 'number':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint') return Number(value);
      throw new InvalidDataError(`invalid data, expected float, got ${typeof value}`);
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      if (typeof value === 'bigint') return value;
      throw new InvalidDataError(`invalid data, expected int, got ${typeof value}`);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw new InvalidDataError(`invalid data, expected bool, got ${typeof value}`);
    default:
      return untypedToCel(value);
  }
}

function objectToCel(value: unknown, schema: StructuralSchema, isResourceRoot: boolean): CelInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidDataError('invalid data, expected a map for the provided schema with type=object');
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const out = new Map<string, CelInput>();
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (embedded || isResourceRoot || schema.properties) {
    const s = embedded || isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
    for (const [k, v] of entries) {
      const prop = s.properties?.[k];
      const name = prop && escapeName(k);
      if (prop && name !== undefined) out.set(name, toCel(v, prop, prop['x-kubernetes-embedded-resource'] === true));
    }
    return out;
  }
  const ap = schema.additionalProperties;
  if (ap && typeof ap === 'object') {
    for (const [k, v] of entries) out.set(k, toCel(v, ap, ap['x-kubernetes-embedded-resource'] === true));
    return out;
  }
  // No properties and no typed additionalProperties: the server treats it as an object no field of which CEL knows.
  return out;
}

function stringToCel(value: unknown, schema: StructuralSchema): CelInput {
  if (typeof value !== 'string') throw new InvalidDataError(`invalid data, expected string, got ${typeof value}`);
  switch (schema.format) {
    case 'duration': {
      const ns = parseStrfmtDuration(value);
      if (ns === undefined) throw new InvalidDataError(`Invalid duration ${value}: unable to parse ${value} as duration`);
      return durationOfNanos(ns);
    }
    case 'date': {
      const t = parseDate(value);
      if (!t) throw new InvalidDataError(`Invalid date formatted string ${value}`);
      return t;
    }
    case 'date-time': {
      const t = parseDateTime(value);
      if (!t) throw new InvalidDataError(`Invalid date-time formatted string ${value}`);
      return t;
    }
    case 'byte': {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
        throw new InvalidDataError(`Invalid byte formatted string ${value}`);
      }
      return new Uint8Array(Buffer.from(value, 'base64'));
    }
    default:
      return value;
  }
}

/** Values below a schema-less node (only reachable through dyn): JSON as CEL sees it. */
function untypedToCel(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(untypedToCel);
  if (typeof value === 'object' && value !== null) {
    return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, untypedToCel(v)]));
  }
  return value as CelInput;
}
