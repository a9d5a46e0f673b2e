/**
 * Unusual and hostile schemas, one class per test (issue 9): each names the class and pins what the generated
 * types say for it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { emitTypes } from 'kubegen/internal/generate/types/index.js';

/** A CRD whose spec has the single field `f` with the given schema (YAML flow mapping). */
function crdWithField(schema: string): string {
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
              f: ${schema}
`;
}

function fieldType(schema: string): string {
  const resources = parseCrdText(crdWithField(schema), 'thing.yaml');
  const [gv] = groupVersions({ resources });
  const types = emitTypes(gv!);
  const m = /^export interface ThingSpec \{[\s\S]*?^\s+f\?: (.*);$/m.exec(types);
  assert.ok(m, types);
  return m[1]!;
}

describe('hostile and unusual schemas', () => {
  it('a nullable enum that lists null gives null once', () => {
    assert.equal(fieldType('{type: string, nullable: true, enum: [a, null]}'), '"a" | null');
    assert.equal(fieldType('{type: string, nullable: true, enum: [a]}'), '"a" | null');
  });

  it('an integer enum beyond 2^53 widens to number instead of a rounded literal', () => {
    assert.equal(fieldType('{type: integer, enum: [9007199254740993, 1]}'), 'number');
    assert.equal(fieldType('{type: integer, enum: [9007199254740991, 1]}'), '9007199254740991 | 1');
  });

  it('an int-or-string enum is its values, not any IntOrString', () => {
    assert.equal(fieldType('{x-kubernetes-int-or-string: true, enum: [1, auto]}'), '1 | "auto"');
    assert.equal(fieldType('{x-kubernetes-int-or-string: true}'), 'IntOrString');
  });
});
