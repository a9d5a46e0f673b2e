import type { SourceLocation } from './source-location.js';
import type { JSONSchemaProps } from './schema.js';

/**
 * Named schemas: the types of the built-in Kubernetes API (`k8s.io/api`, apimachinery's `meta/v1`), which the
 * built-in API front end (`parse/kube-api`) reads from the Go sources. A schema refers to one by `$ref` (its id);
 * everything else about a `JSONSchemaProps` stays as on the wire. A CRD never holds a `$ref`: the CRD front end
 * refuses the key and the CRD emitter writes references out in full (`expandRefs`), as controller-gen inlines the
 * Go structs a CRD embeds.
 */

/** Where a definition is declared: one Go package, `k8s.io/api/<dir>` or an apimachinery package. */
export interface ApiPackage {
  /** The API group (`''` for core; `meta.k8s.io` style groups for apimachinery's). */
  group: string;
  version: string;
  /** The package's folder, generated code's layout and the runtime's entry point: `core/v1`, `meta/v1`. */
  dir: string;
  /** The Go import path (`k8s.io/api/core/v1`). */
  goPath: string;
}

/**
 * One named type. `id` is the OpenAPI definition name (`io.k8s.api.core.v1.PodSpec`), the key of `$ref`s and of
 * client-go's structured-merge-diff schema; `name` is the Go (and TypeScript) name.
 */
export interface DefinitionModel {
  id: string;
  name: string;
  pkg: ApiPackage;
  /**
   * The schema; objects are interfaces in generated code, anything else a type alias (`Time` = `string`, an enum
   * a literal union).
   */
  schema: JSONSchemaProps;
  /**
   * Set for a type generated code imports from the runtime under this name instead of declaring it
   * (`IntOrString`, `Quantity`, `RawExtension`: apimachinery types outside any API package).
   */
  runtimeName?: string;
  /**
   * The `x-kubernetes-map-type` an inline embedded struct's `+structType` gives this struct in controller-gen's
   * output only (controller-gen flattens the embedded schema into this one; openapi-gen does not): `ConfigMapEnvSource`
   * embeds the atomic `LocalObjectReference`. `builtinSchema` applies it, the built-in API's own schema does not.
   */
  embeddedMapType?: 'atomic' | 'granular';
  source: SourceLocation;
}

/**
 * `schema` with every `$ref` replaced by a copy of its definition's schema (recursively; the reference's own
 * description, when it has one, replaces the definition's), as controller-gen writes embedded Go structs into a CRD.
 * A definition that refers to itself (JSONSchemaProps) is an error naming the cycle.
 */
export function expandRefs(schema: JSONSchemaProps, definitions: ReadonlyMap<string, DefinitionModel>, seen: readonly string[] = []): JSONSchemaProps {
  const ref = schema.$ref;
  if (ref !== undefined) {
    const def = definitions.get(ref);
    if (!def) throw new Error(`no definition ${ref}`);
    if (seen.includes(ref)) throw new Error(`recursive definitions cannot be written out: ${[...seen, ref].join(' → ')}`);
    const { $ref: _r, ...own } = schema;
    const target = expandRefs(def.schema, definitions, [...seen, ref]);
    return { ...target, ...own };
  }
  const out: JSONSchemaProps = { ...schema };
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, expandRefs(v, definitions, seen)]));
  if (schema.items) out.items = expandRefs(schema.items, definitions, seen);
  if (typeof schema.additionalProperties === 'object') out.additionalProperties = expandRefs(schema.additionalProperties, definitions, seen);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (branches) out[key] = branches.map((b) => expandRefs(b, definitions, seen));
  }
  if (schema.not) out.not = expandRefs(schema.not, definitions, seen);
  return out;
}
