/**
 * The static CEL type of a schema node, as the apiserver's `SchemaDeclType` declares it for the type checker:
 * objects with properties are object types with one field per (escaped) property, `additionalProperties` maps are
 * `map(string, T)`, arrays are `list(T)`, int-or-string is `dyn`, formats `byte`/`duration`/`date`/`date-time` are
 * bytes/duration/timestamp. A node the server does not expose (an array without items, an untyped
 * preserve-unknown-fields node) has no type (`undefined`): rules cannot see it.
 */
import type { StructuralSchema } from '../types.js';
import { escapeName } from './escape.js';
import { withTypeAndObjectMeta } from './resource-root.js';

export type Scalar = 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null_type' | 'timestamp' | 'duration' | 'type';

/** A CEL type for checking: scalars, lists, maps, schema objects, optionals, and the library's opaque types. */
export type CelT =
  | { kind: 'dyn' }
  | { kind: 'scalar'; name: Scalar }
  | { kind: 'list'; elem: CelT; listType?: 'set' | 'map'; mapKeys?: readonly string[] }
  | { kind: 'map'; key: CelT; value: CelT }
  | { kind: 'object'; fields: ReadonlyMap<string, CelT> }
  | { kind: 'optional'; inner: CelT }
  | { kind: 'opaque'; name: string };

export const DYN: CelT = { kind: 'dyn' };
export const scalar = (name: Scalar): CelT => ({ kind: 'scalar', name });
export const BOOL = scalar('bool');
export const INT = scalar('int');
export const UINT = scalar('uint');
export const DOUBLE = scalar('double');
export const STRING = scalar('string');
export const BYTES = scalar('bytes');
export const NULL = scalar('null_type');
export const TIMESTAMP = scalar('timestamp');
export const DURATION = scalar('duration');
export const TYPE = scalar('type');
export const listOf = (elem: CelT): CelT => ({ kind: 'list', elem });
export const mapOf = (key: CelT, value: CelT): CelT => ({ kind: 'map', key, value });
export const opaque = (name: string): CelT => ({ kind: 'opaque', name });
export const optionalOf = (inner: CelT): CelT => ({ kind: 'optional', inner });

/** The declared type of a schema node; `isResourceRoot` for the root of a CR and of embedded resources. */
export function schemaDeclType(s: StructuralSchema | undefined, isResourceRoot = false): CelT | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) return DYN;
  const schema = isResourceRoot ? withTypeAndObjectMeta(s) : s;
  switch (schema.type) {
    case 'array': {
      if (!schema.items) return undefined;
      const elem = schemaDeclType(schema.items, schema.items['x-kubernetes-embedded-resource'] === true);
      if (!elem) return undefined;
      const lt = schema['x-kubernetes-list-type'];
      if (lt === 'set') return { kind: 'list', elem, listType: 'set' };
      if (lt === 'map') {
        const mapKeys = (schema['x-kubernetes-list-map-keys'] ?? []).map((k) => escapeName(k) ?? k);
        return { kind: 'list', elem, listType: 'map', mapKeys };
      }
      return listOf(elem);
    }
    case 'object': {
      const ap = schema.additionalProperties;
      if (ap && typeof ap === 'object') {
        const value = schemaDeclType(ap, ap['x-kubernetes-embedded-resource'] === true);
        return value && mapOf(STRING, value);
      }
      const fields = new Map<string, CelT>();
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        const t = schemaDeclType(prop, prop['x-kubernetes-embedded-resource'] === true);
        const escaped = escapeName(name);
        if (t && escaped !== undefined) fields.set(escaped, t);
      }
      return { kind: 'object', fields };
    }
    case 'string':
      switch (schema.format) {
        case 'byte':
          return BYTES;
        case 'duration':
          return DURATION;
        case 'date':
        case 'date-time':
          return TIMESTAMP;
        default:
          return STRING;
      }
    case 'boolean':
      return BOOL;
    case 'number':
      return DOUBLE;
    case 'integer':
      return INT;
    default:
      return undefined;
  }
}

/** The type's name as cel-go prints it in messages (`list(string)`, `map(string, int)`, `object`). */
export function typeName(t: CelT): string {
  switch (t.kind) {
    case 'dyn':
      return 'dyn';
    case 'scalar':
      return t.name === 'timestamp' ? 'google.protobuf.Timestamp' : t.name === 'duration' ? 'google.protobuf.Duration' : t.name;
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'object':
      return 'object';
    case 'optional':
      return `optional_type(${typeName(t.inner)})`;
    case 'opaque':
      return t.name;
  }
}

/** Whether a value of type `actual` may be passed where `expected` is declared (dyn matches anything). */
export function assignable(expected: CelT, actual: CelT): boolean {
  if (expected.kind === 'dyn' || actual.kind === 'dyn') return true;
  if (expected.kind !== actual.kind) return false;
  switch (expected.kind) {
    case 'scalar':
      return expected.name === (actual as { name: Scalar }).name;
    case 'list':
      return assignable(expected.elem, (actual as { elem: CelT }).elem);
    case 'map': {
      const a = actual as { key: CelT; value: CelT };
      return assignable(expected.key, a.key) && assignable(expected.value, a.value);
    }
    case 'optional':
      return assignable(expected.inner, (actual as { inner: CelT }).inner);
    case 'opaque':
      return expected.name === (actual as { name: string }).name;
    case 'object':
      return true;
  }
}
