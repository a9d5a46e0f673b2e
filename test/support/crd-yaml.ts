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
