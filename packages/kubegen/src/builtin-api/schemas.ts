/**
 * Schemas of the built-in API's types as a CRD carries them — what controller-gen writes for a Go field of that
 * type: every `$ref` written out, properties and required fields sorted by name, `metadata` (ObjectMeta) as a bare `type: object`, `+enum` types as their plain
 * scalar (controller-gen does not read openapi-gen's `+enum`), an inline embedded struct's `+structType` on the
 * struct that embeds it, and a type met again inside itself as a
 * preserve-unknown object. Used where a custom resource embeds a built-in type: the TypeScript front end's schema of a
 * `PodTemplateSpec` field, and the reference a CRD's sub-schema is matched against (`generate/types/core-types.ts`).
 */
import type { DefinitionModel, JSONSchemaProps } from '../model/index.js';
import { loadBuiltinApi } from './index.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const expanded = new Map<string, JSONSchemaProps>();

/** The definition `id` of the shipped built-in API, if there is one. */
export function builtinDefinition(id: string): DefinitionModel | undefined {
  return loadBuiltinApi().model.definitions!.get(id);
}

/** The id of the definition named `name` in package folder `dir` (`core/v1`, `PodSpec`), if there is one. */
export function builtinDefinitionId(dir: string, name: string): string | undefined {
  for (const d of loadBuiltinApi().model.definitions!.values()) if (d.pkg.dir === dir && d.name === name && d.runtimeName === undefined) return d.id;
  return undefined;
}

/** The schema of definition `id` as a CRD holds it (see the module comment); a fresh copy. Undefined for an unknown id. */
export function builtinSchema(id: string): JSONSchemaProps | undefined {
  let s = expanded.get(id);
  if (!s) {
    const def = builtinDefinition(id);
    if (!def) return undefined;
    s = withEmbeddedMapType(expand(def.schema, [id]), def);
    expanded.set(id, s);
  }
  return structuredClone(s);
}

function expand(schema: JSONSchemaProps, within: readonly string[]): JSONSchemaProps {
  if (schema.$ref !== undefined) {
    const { $ref: ref, ...own } = schema;
    if (ref === OBJECT_META) return { type: 'object', ...own };
    if (within.includes(ref)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...own };
    const def = builtinDefinition(ref);
    if (!def) throw new Error(`the built-in API has no definition ${ref}`);
    const target = withEmbeddedMapType(expand(def.schema, [...within, ref]), def);
    // An `+enum` type is its plain scalar in a CRD; a definition's description yields to the field's own.
    delete target.enum;
    return { ...target, ...own };
  }
  const out: JSONSchemaProps = { ...schema };
  // controller-gen writes properties, and the required list, sorted by name.
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, expand(v, within)]));
  if (schema.required) out.required = [...schema.required].sort();
  if (schema.items) out.items = expand(schema.items, within);
  if (typeof schema.additionalProperties === 'object') out.additionalProperties = expand(schema.additionalProperties, within);
  return out;
}

/** controller-gen flattens an inline embedded struct into its parent, `+structType` included (`ConfigMapEnvSource`). */
function withEmbeddedMapType(s: JSONSchemaProps, def: DefinitionModel): JSONSchemaProps {
  if (def.embeddedMapType !== undefined && s['x-kubernetes-map-type'] === undefined) s['x-kubernetes-map-type'] = def.embeddedMapType;
  return s;
}

/** One field of a built-in struct: its JSON name, whether it is required, its description and the type it refers to. */
export interface BuiltinField {
  name: string;
  required: boolean;
  description?: string;
  /** The definition the field's value (or its list's items, or its map's values) is, if any. */
  ref?: string;
}

/** The fields of struct definition `id` (none for an unknown id or a non-struct). */
export function builtinFields(id: string): BuiltinField[] {
  const s = builtinDefinition(id)?.schema;
  if (!s?.properties) return [];
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties).map(([name, p]) => {
    const target = p.$ref ?? p.items?.$ref ?? (typeof p.additionalProperties === 'object' ? p.additionalProperties.$ref : undefined);
    const f: BuiltinField = { name, required: required.has(name) };
    if (p.description !== undefined) f.description = p.description;
    if (target !== undefined) f.ref = target;
    return f;
  });
}
