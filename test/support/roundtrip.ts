/**
 * The comparison of the CRD → marked TypeScript → CRD round trip (`test/unit/roundtrip.test.ts`): what a schema must
 * keep, and what it comes back as where the marked types use the runtime's core types.
 */
import type { JSONSchemaProps, ResourceModel } from 'kubegen/internal/model/index.js';
import type { CoreTypeUse } from 'kubegen/internal/generate/types/index.js';
import { runtimeSchemaOf } from 'kubegen/internal/parse/typescript/type-schema.js';

const KEEP = new Set([
  'type', 'format', 'enum', 'default', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'nullable',
  'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
  'oneOf', 'anyOf', 'allOf', 'not',
]);

/** The semantic content of a schema: what the round trip must keep. */
export function semantic(s: JSONSchemaProps, root = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (KEEP.has(k) && v !== undefined) out[k] = v;
  if (s.description?.trim()) out['description'] = s.description.trim().split('\n').map((l) => l.trimEnd()).join('\n');
  if (s.properties) {
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.properties)) {
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      props[k] = semantic(v);
    }
    if (Object.keys(props).length) out['properties'] = props;
  }
  const required = (s.required ?? []).filter((r) => !(root && (r === 'apiVersion' || r === 'kind' || r === 'metadata')));
  if (required.length) out['required'] = [...required].sort();
  if (s.items) out['items'] = semantic(s.items);
  if (s.additionalProperties !== undefined) out['additionalProperties'] = typeof s.additionalProperties === 'boolean' ? s.additionalProperties : semantic(s.additionalProperties);
  if (root && out['type'] === undefined) out['type'] = 'object';
  return out;
}

export function kindFacts(r: ResourceModel): unknown {
  return {
    group: r.group,
    names: r.names,
    scope: r.scope,
    labels: r.labels,
    annotations: r.annotations,
    // Version order is not semantic (kubegen writes versions sorted by name).
    versions: r.versions.filter((v) => v.served).sort((a, b) => (a.name < b.name ? -1 : 1)).map((v) => ({
      name: v.name, storage: v.storage, deprecated: v.deprecated, deprecationWarning: v.deprecationWarning,
      subresources: v.subresources, printerColumns: v.printerColumns, selectableFields: v.selectableFields,
    })),
  };
}

/** Keywords of a sub-schema typed as a core type that the marked types carry as markers (not its structure). */
const STRUCTURE = new Set(['type', 'properties', 'items', 'additionalProperties', 'required', 'description']);

/**
 * What the round trip gives back for `schema` (a kind's root) when the marked types use `uses` (core types): each
 * such sub-schema is the runtime's schema of its type, plus its own extra properties (`extends`), the keywords its
 * markers carry, and its description.
 */
export function expectedBack(schema: JSONSchemaProps, kind: string, uses: readonly CoreTypeUse[]): JSONSchemaProps {
  const out = structuredClone(schema);
  const at = new Map(uses.filter((u) => u.kind === kind).map((u) => [u.where, u]));
  const walk = (s: JSONSchemaProps, where: string): JSONSchemaProps => {
    const use = at.get(where);
    if (use) {
      const back = structuredClone(runtimeSchemaOf(use.type.name)!);
      // An interface extending a core type is not that type: it does not inherit its description.
      if (use.extras.length > 0) delete back.description;
      for (const [k, v] of Object.entries(s)) if (!STRUCTURE.has(k)) (back as Record<string, unknown>)[k] = v;
      if (s.description !== undefined) back.description = s.description;
      if (use.extras.length > 0) {
        back.properties = { ...back.properties };
        for (const e of use.extras) back.properties[e] = walk(s.properties![e]!, `${where}.${e}`);
        const required = [...(back.required ?? []), ...(s.required ?? []).filter((r) => use.extras.includes(r))];
        if (required.length > 0) back.required = required;
      }
      return back;
    }
    if (s.properties) for (const [k, v] of Object.entries(s.properties)) s.properties[k] = walk(v, where === '' ? k : `${where}.${k}`);
    if (s.items) s.items = walk(s.items, `${where}[]`);
    if (typeof s.additionalProperties === 'object') s.additionalProperties = walk(s.additionalProperties, `${where}{}`);
    return s;
  };
  return walk(out, '');
}

