import { SCHEMA_KEYS } from '../../model/index.js';
import type { JSONSchemaProps } from '../../model/index.js';
import type { JsonPath, SourceDoc } from './yaml-source.js';

/** Schemas nested deeper than this are rejected (real CRDs stay under 30; this guards the emitters' recursion). */
export const MAX_SCHEMA_DEPTH = 200;

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const NUMBER_KEYS = ['minProperties', 'maxProperties', 'minItems', 'maxItems', 'minimum', 'maximum', 'multipleOf', 'minLength', 'maxLength'];
const BOOL_KEYS = ['nullable', 'uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum', 'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource'];
const STRING_KEYS = ['format', 'title', 'description', 'pattern'];

/**
 * Checks that `value` (found at `path` in `doc`) is a structural schema this tool understands and returns it typed.
 * Unknown keys and wrongly typed keywords are errors naming the JSON path; the data itself is returned as is
 * (every `x-kubernetes-*` extension kept).
 */
export function checkSchema(doc: SourceDoc, value: unknown, path: JsonPath): JSONSchemaProps {
  walk(doc, value, path, 0);
  return value as JSONSchemaProps;
}

function walk(doc: SourceDoc, value: unknown, path: JsonPath, depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH) throw doc.error(path, `schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (!isObject(value)) throw doc.error(path, 'a schema must be a mapping');
  for (const key of Object.keys(value)) {
    if (!SCHEMA_KEYS.has(key)) throw doc.error([...path, key], `unknown schema keyword ${JSON.stringify(key)}`);
  }
  const s = value;
  if (s['type'] !== undefined && !TYPES.has(s['type'] as string)) {
    throw doc.error([...path, 'type'], `unsupported type ${JSON.stringify(s['type'])} (expected one of ${[...TYPES].join(', ')})`);
  }
  for (const k of NUMBER_KEYS) if (s[k] !== undefined && typeof s[k] !== 'number') throw doc.error([...path, k], `${k} must be a number`);
  for (const k of BOOL_KEYS) if (s[k] !== undefined && typeof s[k] !== 'boolean') throw doc.error([...path, k], `${k} must be a boolean`);
  for (const k of STRING_KEYS) if (s[k] !== undefined && typeof s[k] !== 'string') throw doc.error([...path, k], `${k} must be a string`);

  if (s['required'] !== undefined && !isStringArray(s['required'])) throw doc.error([...path, 'required'], 'required must be a list of strings');
  if (s['x-kubernetes-list-map-keys'] !== undefined && !isStringArray(s['x-kubernetes-list-map-keys'])) {
    throw doc.error([...path, 'x-kubernetes-list-map-keys'], 'x-kubernetes-list-map-keys must be a list of strings');
  }
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    throw doc.error([...path, 'x-kubernetes-list-type'], 'x-kubernetes-list-type must be atomic, set or map');
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    throw doc.error([...path, 'x-kubernetes-map-type'], 'x-kubernetes-map-type must be atomic or granular');
  }
  checkEnum(doc, s, path);
  checkValidations(doc, s['x-kubernetes-validations'], [...path, 'x-kubernetes-validations']);
  if (s['externalDocs'] !== undefined && !isObject(s['externalDocs'])) throw doc.error([...path, 'externalDocs'], 'externalDocs must be a mapping');

  if (s['properties'] !== undefined) {
    const props = s['properties'];
    if (!isObject(props)) throw doc.error([...path, 'properties'], 'properties must be a mapping');
    for (const name of Object.keys(props)) walk(doc, props[name], [...path, 'properties', name], depth + 1);
  }
  if (s['items'] !== undefined) {
    if (Array.isArray(s['items'])) throw doc.error([...path, 'items'], 'items must be a single schema (tuples are not structural)');
    walk(doc, s['items'], [...path, 'items'], depth + 1);
  }
  const ap = s['additionalProperties'];
  if (ap !== undefined && typeof ap !== 'boolean') walk(doc, ap, [...path, 'additionalProperties'], depth + 1);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[k];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw doc.error([...path, k], `${k} must be a list of schemas`);
    list.forEach((sub, i) => walk(doc, sub, [...path, k, i], depth + 1));
  }
  if (s['not'] !== undefined) walk(doc, s['not'], [...path, 'not'], depth + 1);
}

function checkEnum(doc: SourceDoc, s: Record<string, unknown>, path: JsonPath): void {
  const values = s['enum'];
  if (values === undefined) return;
  if (!Array.isArray(values)) throw doc.error([...path, 'enum'], 'enum must be a list');
  const type = s['type'];
  values.forEach((v, i) => {
    if (v === null) return;
    const at = [...path, 'enum', i];
    if (type === 'integer' && !(typeof v === 'number' && Number.isInteger(v))) {
      throw doc.error(at, `enum value ${JSON.stringify(v)} of an integer schema must be an integer`);
    }
    if (type === 'number' && typeof v !== 'number') throw doc.error(at, `enum value ${JSON.stringify(v)} of a number schema must be a number`);
    if (type === 'string' && typeof v !== 'string') throw doc.error(at, `enum value ${JSON.stringify(v)} of a string schema must be a string`);
    if (type === 'boolean' && typeof v !== 'boolean') throw doc.error(at, `enum value ${JSON.stringify(v)} of a boolean schema must be a boolean`);
  });
}

function checkValidations(doc: SourceDoc, rules: unknown, path: JsonPath): void {
  if (rules === undefined) return;
  if (!Array.isArray(rules)) throw doc.error(path, 'x-kubernetes-validations must be a list');
  rules.forEach((r, i) => {
    if (!isObject(r) || typeof r['rule'] !== 'string') throw doc.error([...path, i], 'each validation needs a string rule');
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}
