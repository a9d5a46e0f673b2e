/**
 * Applies field- and type-level markers to a schema (controller-gen semantics: markers on a field apply to that
 * field's schema, markers on a named type to every use of it, field markers win; `+kubebuilder:validation:items:<Name>`
 * applies `<Name>` to the array's items; the union markers become CEL rules after every `XValidation` rule).
 * Mutates and returns `schema`.
 */
import { InputError } from '../../model/index.js';
import type { JSONSchemaProps, ValidationRule } from '../../model/index.js';
import { ITEMS_PREFIX, MARKERS, UNION_MARKERS } from './markers.js';
import type { Marker } from './markers.js';

const V = 'kubebuilder:validation:';

/** Markers that may appear on a field or a type (besides optional/required, which only fields take). */
export const SCHEMA_MARKERS: ReadonlySet<string> = new Set([
  `${V}Minimum`, `${V}Maximum`, `${V}ExclusiveMinimum`, `${V}ExclusiveMaximum`, `${V}MultipleOf`, `${V}MinLength`,
  `${V}MaxLength`, `${V}Pattern`, `${V}Format`, `${V}Enum`, `${V}MinItems`, `${V}MaxItems`, `${V}UniqueItems`,
  `${V}MinProperties`, `${V}MaxProperties`, `${V}Type`, `${V}XPreserveUnknownFields`, `${V}XEmbeddedResource`,
  `${V}XIntOrString`, `${V}EmbeddedResource`, `${V}Schemaless`, `${V}XValidation`, 'kubebuilder:default', 'default',
  'kubebuilder:example', 'kubebuilder:title', 'kubebuilder:pruning:PreserveUnknownFields', 'nullable', 'listType',
  'listMapKey', 'mapType', 'structType', 'k8s:listType', 'k8s:listMapKey', 'kubegen:validation:OneOf',
  'kubegen:validation:AnyOf', 'kubegen:validation:AllOf', 'kubegen:validation:Not',
  ...Object.keys(MARKERS).filter((n) => n.startsWith(ITEMS_PREFIX)),
  // accepted on any declaration, meaningless to a schema
  'k8s:deepcopy-gen', 'k8s:deepcopy-gen:interfaces', 'k8s:openapi-gen', 'kubebuilder:object:generate',
]);

/** Field-only markers. */
export const FIELD_MARKERS: ReadonlySet<string> = new Set([
  ...SCHEMA_MARKERS, 'optional', 'required', 'k8s:optional', 'k8s:required', `${V}Optional`, `${V}Required`,
]);

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** Type-only markers (besides the kind markers). */
export const TYPE_ONLY_MARKERS: ReadonlySet<string> = new Set(UNION_MARKERS);

export function applySchemaMarkers(schema: JSONSchemaProps, markers: readonly Marker[]): JSONSchemaProps {
  const own = markers.filter((m) => !m.name.startsWith(ITEMS_PREFIX));
  applyOwnMarkers(schema, own);
  applyItemsMarkers(schema, markers.filter((m) => m.name.startsWith(ITEMS_PREFIX)));
  applyUnionMarkers(schema, own);
  return schema;
}

/** `+kubebuilder:validation:items:<Name>` markers, applied as `<Name>` to `schema.items` (which must exist). */
function applyItemsMarkers(schema: JSONSchemaProps, markers: readonly Marker[]): void {
  if (markers.length === 0) return;
  if (schema.type !== 'array' || schema.items === undefined) {
    const m = markers[0]!;
    throw new InputError(m.loc, `marker +${m.name} applies to array items, but the type here is ${schema.type ?? 'untyped'}, not an array`);
  }
  applySchemaMarkers(schema.items, markers.map((m) => ({ ...m, name: `${V}${m.name.slice(ITEMS_PREFIX.length)}` })));
}

/**
 * The union markers as controller-gen writes them: `[has(self.a),has(self.b)].filter(x,x==true).size() <op> 1` with
 * the message `<quantifier> of the fields in [a b] <verb> set`, in the order AtMostOneOf, ExactlyOneOf, AtLeastOneOf.
 * Every named field must be a property of the object.
 */
function applyUnionMarkers(s: JSONSchemaProps, markers: readonly Marker[]): void {
  const forms: Record<string, [op: string, phrase: string]> = {
    [`${V}AtMostOneOf`]: ['<= 1', 'at most one of the fields in %s may be set'],
    [`${V}ExactlyOneOf`]: ['== 1', 'exactly one of the fields in %s must be set'],
    [`${V}AtLeastOneOf`]: ['>= 1', 'at least one of the fields in %s must be set'],
  };
  for (const name of UNION_MARKERS) {
    for (const m of markers.filter((mk) => mk.name === name)) {
      const fields = m.value as string[];
      if (fields.length === 0) throw new InputError(m.loc, `malformed marker +${m.text}: needs at least one field name (a;b;c)`);
      const known = Object.keys(s.properties ?? {});
      for (const f of fields) {
        if (!known.includes(f)) {
          throw new InputError(m.loc, `marker +${m.name} names field ${f}, which this type does not have (its fields: ${known.join(', ') || 'none'})`);
        }
      }
      const [op, phrase] = forms[name]!;
      const list = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
      (s['x-kubernetes-validations'] ??= []).push({ rule: `${list} ${op}`, message: phrase.replace('%s', `[${fields.join(' ')}]`) });
    }
  }
}

function applyOwnMarkers(schema: JSONSchemaProps, markers: readonly Marker[]): void {
  let s = schema;
  if (markers.some((m) => m.name === `${V}Schemaless`)) {
    s = {};
    for (const k of Object.keys(schema)) delete (schema as Record<string, unknown>)[k];
    if (schema.description !== undefined) s.description = schema.description;
    Object.assign(schema, s);
    s = schema;
  }
  const typeMarker = markers.filter((m) => m.name === `${V}Type`).pop();
  if (typeMarker) {
    const t = typeMarker.value as string;
    if (!TYPES.has(t)) throw new InputError(typeMarker.loc, `malformed marker +${typeMarker.text}: type must be one of ${[...TYPES].join(', ')}`);
    s.type = t as JSONSchemaProps['type'];
  }
  for (const m of markers) {
    const v = m.value;
    switch (m.name) {
      case `${V}Minimum`: s.minimum = v as number; break;
      case `${V}Maximum`: s.maximum = v as number; break;
      case `${V}ExclusiveMinimum`: s.exclusiveMinimum = v as boolean; break;
      case `${V}ExclusiveMaximum`: s.exclusiveMaximum = v as boolean; break;
      case `${V}MultipleOf`: s.multipleOf = v as number; break;
      case `${V}MinLength`: s.minLength = v as number; break;
      case `${V}MaxLength`: s.maxLength = v as number; break;
      case `${V}Pattern`: s.pattern = v as string; break;
      case `${V}Format`: s.format = v as string; break;
      case `${V}Enum`: s.enum = (v as unknown[]).map((e) => coerce(s, e)); break;
      case `${V}MinItems`: s.minItems = v as number; break;
      case `${V}MaxItems`: s.maxItems = v as number; break;
      case `${V}UniqueItems`: s.uniqueItems = v as boolean; break;
      case `${V}MinProperties`: s.minProperties = v as number; break;
      case `${V}MaxProperties`: s.maxProperties = v as number; break;
      case `${V}XPreserveUnknownFields`:
      case 'kubebuilder:pruning:PreserveUnknownFields':
        s['x-kubernetes-preserve-unknown-fields'] = true;
        break;
      case `${V}XEmbeddedResource`:
      case `${V}EmbeddedResource`:
        s['x-kubernetes-embedded-resource'] = true;
        s.type ??= 'object';
        break;
      case `${V}XIntOrString`:
        s['x-kubernetes-int-or-string'] = true;
        s.anyOf = [{ type: 'integer' }, { type: 'string' }];
        delete s.type;
        break;
      case `${V}XValidation`: {
        const rule: ValidationRule = { rule: m.args['rule'] as string };
        for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
          if (m.args[k] !== undefined) rule[k] = m.args[k] as string;
        }
        if (m.args['optionalOldSelf'] !== undefined) rule.optionalOldSelf = m.args['optionalOldSelf'] as boolean;
        (s['x-kubernetes-validations'] ??= []).push(rule);
        break;
      }
      case 'kubebuilder:default':
      case 'default':
        s.default = coerce(s, v);
        break;
      case 'kubebuilder:example': s.example = v; break;
      case 'kubegen:validation:OneOf':
      case 'kubegen:validation:AnyOf':
      case 'kubegen:validation:AllOf': {
        if (!Array.isArray(v) || !v.every((b) => b !== null && typeof b === 'object' && !Array.isArray(b))) {
          throw new InputError(m.loc, `malformed marker +${m.text}: the value is a JSON list of schemas`);
        }
        const key = m.name === 'kubegen:validation:OneOf' ? 'oneOf' : m.name === 'kubegen:validation:AnyOf' ? 'anyOf' : 'allOf';
        s[key] = v as JSONSchemaProps[];
        break;
      }
      case 'kubegen:validation:Not':
        if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InputError(m.loc, `malformed marker +${m.text}: the value is a JSON schema`);
        s.not = v as JSONSchemaProps;
        break;
      case 'kubebuilder:title': s.title = v as string; break;
      case 'nullable': s.nullable = true; break;
      case 'listType':
      case 'k8s:listType':
        if (v !== 'atomic' && v !== 'set' && v !== 'map') throw new InputError(m.loc, `malformed marker +${m.text}: listType must be atomic, set or map`);
        s['x-kubernetes-list-type'] = v;
        break;
      case 'listMapKey':
      case 'k8s:listMapKey':
        if (!(s['x-kubernetes-list-map-keys'] ??= []).includes(v as string)) s['x-kubernetes-list-map-keys'].push(v as string);
        break;
      case 'mapType':
        if (v !== 'atomic' && v !== 'granular') throw new InputError(m.loc, `malformed marker +${m.text}: mapType must be atomic or granular`);
        s['x-kubernetes-map-type'] = v;
        break;
      case 'structType':
        if (v !== 'atomic' && v !== 'granular') throw new InputError(m.loc, `malformed marker +${m.text}: structType must be atomic or granular`);
        s['x-kubernetes-map-type'] = v;
        break;
    }
  }
}

/** `+Enum=1` or `+default=true` on a string field mean the strings "1" and "true" (Go would not compile otherwise). */
function coerce(s: JSONSchemaProps, v: unknown): unknown {
  if (s.type === 'string' && (typeof v === 'number' || typeof v === 'boolean')) return String(v);
  return v;
}
