import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';

/**
 * A minimal apiextensions.k8s.io/v1 CRD as YAML text for schema tests: group `x.io`, namespaced kind `Thing`
 * (`things`), one served storage version `v1`, whose `spec` object has the given properties — each entry
 * `name: <YAML flow schema>`, e.g. `{ f: '{type: string}' }`.
 */
export function thingCrd(specProperties: Record<string, string>): string {
  const props = Object.entries(specProperties)
    .map(([name, schema]) => `              ${name}: ${schema}\n`)
    .join('');
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.x.io}
spec:
  group: x.io
  scope: Namespaced
  names: {kind: Thing, plural: things, singular: thing, listKind: ThingList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
${props}`;
}

/** An object schema with `properties`. */
export const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });

/** A namespaced CRD object for `kind` in `group` (plural `<kind>s`, one served storage version `v1`) with the given root properties. */
export function kindCrdObject(group: string, kind: string, props: Record<string, JSONSchemaProps>) {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: obj(props) } }],
    },
  };
}

/** A CRD (JSON is YAML) for `kind` in `group` with the given root properties. */
export function kindCrd(group: string, kind: string, props: Record<string, JSONSchemaProps>): string {
  return JSON.stringify(kindCrdObject(group, kind, props));
}
