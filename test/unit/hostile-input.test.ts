/**
 * Unusual and hostile schemas, one class per test (issue 9): each names the class and pins what the generated
 * types say for it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { emitTypes } from 'kubegen/internal/generate/types/index.js';
import { InputError } from 'kubegen/internal/model/index.js';

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

describe('hostile YAML', () => {
  it('refuses nested aliases that would expand to billions of nodes, with a clear error', () => {
    // "Billion laughs": 10 aliases per level, 9 levels, about 2 KB of text.
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    const text = lines.join('\n') + '\n';
    assert.ok(text.length < 2500, `${text.length} bytes`);
    // Unbounded, this would take minutes and gigabytes; bounded, it is refused after counting about 5M nodes.
    assert.throws(
      () => parseCrdText(text, 'bomb.yaml'),
      (err: unknown) => err instanceof InputError && /^bomb\.yaml:1:1: excessive aliasing: document 1 expands to more than 5000000 nodes/.test(err.message),
    );
  });

  it('reads schemas nested close to 200 levels deep, the limit kube-apiserver also has', () => {
    let inner = '{type: string}';
    for (let i = 0; i < 195; i++) inner = `{type: object, properties: {n: ${inner}}}`;
    const resources = parseCrdText(crdWithField(inner), 'deep.yaml');
    const [gv] = groupVersions({ resources });
    const types = emitTypes(gv!);
    assert.match(types, /^export interface ThingSpecFN/m);
    assert.ok(types.split('\n').length > 195 * 3, 'one interface per level');
  });
});
