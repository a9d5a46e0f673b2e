import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StructuralSchema } from '@kubegen/runtime/validation';
import { fieldErrorText, type FieldError } from '@kubegen/runtime/internal/validation/field-error.js';
import { validateAgainstSchema } from '@kubegen/runtime/internal/validation/schema-walk.js';
import { validateListTypes } from '@kubegen/runtime/internal/validation/list-type.js';
import { validateEmbeddedResources } from '@kubegen/runtime/internal/validation/object-meta.js';
import { pruneUnknownFields } from '@kubegen/runtime/internal/validation/prune.js';
import { applyDefaults } from '@kubegen/runtime/internal/validation/defaults.js';

/**
 * The apiserver's own expectations, ported from apiextensions-apiserver's `TestValidateCustomResource`
 * (pkg/apiserver/validation/validation_test.go, Kubernetes 1.36): the same schemas and objects, and the same error
 * strings (`field.Error.Error()`), compared as sets as the Go test does.
 */
interface Case {
  name: string;
  schema: StructuralSchema;
  objects?: unknown[];
  failing: { object: unknown; errors: string[] }[];
}

const field = (s: StructuralSchema): StructuralSchema => ({ type: 'object', properties: { field: s } });
const typeErrors = (expected: string, kinds: [unknown, string][]) =>
  kinds.map(([object, got]) => ({ object: { field: object }, errors: [`field: Invalid value: "${got}": field in body must be of type ${expected}: "${got}"`] }));

const CASES: Case[] = [
  {
    name: '!nullable',
    schema: field({ type: 'object', nullable: false }),
    objects: [{}, { field: {} }],
    failing: typeErrors('object', [['foo', 'string'], [42, 'integer'], [true, 'boolean'], [1.2, 'number'], [[], 'array'], [null, 'null']]),
  },
  {
    name: 'nullable',
    schema: field({ type: 'object', nullable: true }),
    objects: [{}, { field: null }, { field: {} }],
    failing: typeErrors('object', [['foo', 'string'], [42, 'integer'], [true, 'boolean'], [1.2, 'number'], [[], 'array']]),
  },
  {
    name: 'x-kubernetes-int-or-string',
    schema: field({ 'x-kubernetes-int-or-string': true }),
    objects: [{}, { field: 42 }, { field: 'foo' }],
    failing: typeErrors('integer,string', [[null, 'null'], [true, 'boolean'], [1.2, 'number'], [{}, 'object'], [[], 'array']]),
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided anyOf',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
    objects: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
    failing: [
      { object: { field: true }, errors: ['<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)', 'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"', 'field: Invalid value: "boolean": field in body must be of type integer: "boolean"'] },
      { object: { field: 1.2 }, errors: ['<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)', 'field: Invalid value: "number": field in body must be of type integer,string: "number"', 'field: Invalid value: "number": field in body must be of type integer: "number"', '<nil>: Invalid value: "": Checked value must be of type integer (default format) in field'] },
      { object: { field: [] }, errors: ['<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)', 'field: Invalid value: "array": field in body must be of type integer,string: "array"', 'field: Invalid value: "array": field in body must be of type integer: "array"'] },
    ],
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided allOf',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] }),
    objects: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
    failing: [
      { object: { field: {} }, errors: ['<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated', '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)', 'field: Invalid value: "object": field in body must be of type integer,string: "object"', 'field: Invalid value: "object": field in body must be of type integer: "object"'] },
    ],
  },
  {
    name: 'invalid regex',
    schema: field({ type: 'string', pattern: '+' }),
    failing: [{ object: { field: 'foo' }, errors: ["field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'"] }],
  },
  {
    name: 'required field',
    schema: { type: 'object', required: ['field'], properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } } },
    failing: [{ object: { test: 'a' }, errors: ['field: Required value'] }, { object: { field: {} }, errors: ['field.nested: Required value'] }],
  },
  {
    name: 'enum',
    schema: field({ type: 'object', required: ['nestedint', 'nestedstring'], properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } } }),
    failing: [
      { object: { field: {} }, errors: ['field.nestedint: Required value', 'field.nestedstring: Required value'] },
      { object: { field: { nestedint: 'x', nestedstring: true } }, errors: ['field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"', 'field.nestedint: Unsupported value: "x": supported values: "1", "2"', 'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"', 'field.nestedstring: Unsupported value: true: supported values: "a", "b"'] },
    ],
  },
  { name: 'maxProperties', schema: { type: 'object', properties: { fieldX: { type: 'object', maxProperties: 2 } } }, failing: [{ object: { fieldX: { a: true, b: true, c: true } }, errors: ['fieldX: Too many: 3: must have at most 2 items'] }] },
  { name: 'maxItems', schema: { type: 'object', properties: { fieldX: { type: 'array', maxItems: 2 } } }, failing: [{ object: { fieldX: ['a', 'b', 'c'] }, errors: ['fieldX: Too many: 3: must have at most 2 items'] }] },
  { name: 'maxLength', schema: { type: 'object', properties: { fieldX: { type: 'string', maxLength: 2 } } }, failing: [{ object: { fieldX: 'abc' }, errors: ['fieldX: Too long: may not be more than 2 bytes'] }] },
  { name: 'k8sLongName', schema: { type: 'object', properties: { fieldX: { type: 'string', format: 'k8s-long-name' } } }, objects: [{ fieldX: 'a.b' }], failing: [{ object: { fieldX: 'a.-' }, errors: ['fieldX: Invalid value: "a.-": fieldX in body must be of type k8s-long-name: "a.-"'] }] },
  { name: 'k8sShortName', schema: { type: 'object', properties: { fieldX: { type: 'string', format: 'k8s-short-name' } } }, objects: [{ fieldX: 'a-b' }], failing: [{ object: { fieldX: 'a-' }, errors: ['fieldX: Invalid value: "a-": fieldX in body must be of type k8s-short-name: "a-"'] }] },
  {
    name: 'numeric formats invalid',
    schema: { type: 'object', properties: { intThirtyTwo: { type: 'integer', format: 'int32' }, intSixtyFour: { type: 'integer', format: 'int64' }, floatThreeTwo: { type: 'number', format: 'float' }, floatSixFour: { type: 'number', format: 'double' } } },
    objects: [{ intThirtyTwo: 2 ** 31 - 1, intSixtyFour: 2 ** 53, floatThreeTwo: 3.4e38, floatSixFour: 1e300 }],
    failing: [
      { object: { intThirtyTwo: 2 ** 31 }, errors: ['<nil>: Invalid value: "": Checked value must be of type integer with format int32 in intThirtyTwo'] },
      { object: { intThirtyTwo: -(2 ** 31) - 1 }, errors: ['<nil>: Invalid value: "": Checked value must be of type integer with format int32 in intThirtyTwo'] },
      { object: { intSixtyFour: 9223372036854775807 * 1.1 }, errors: ['intSixtyFour: Invalid value: "float64": intSixtyFour in body must be of type int64: "float64"', '<nil>: Invalid value: "": Checked value must be of type integer with format int64 in intSixtyFour'] },
      { object: { floatThreeTwo: 3.4028234663852886e38 * 1.1 }, errors: ['<nil>: Invalid value: "": Checked value must be of type number with format float in floatThreeTwo'] },
    ],
  },
];

function errorsOf(schema: StructuralSchema, object: unknown): string[] {
  const errors: FieldError[] = [];
  validateAgainstSchema(object, schema, { errors, base: undefined });
  return [...new Set(errors.map(fieldErrorText))].sort();
}

describe("validation: the apiserver's TestValidateCustomResource table", () => {
  for (const c of CASES) {
    it(c.name, () => {
      for (const o of c.objects ?? []) assert.deepEqual(errorsOf(c.schema, o), [], JSON.stringify(o));
      for (const f of c.failing) assert.deepEqual(errorsOf(c.schema, f.object), [...new Set(f.errors)].sort(), JSON.stringify(f.object));
    });
  }
});

/** From schema/listtype's `TestValidateListSetsAndMaps`, "map list with compound map items" (paths under `root`). */
describe("validation: the apiserver's TestValidateListSetsAndMaps table", () => {
  const mapList = (keys: string[], items: StructuralSchema = { type: 'object' }): StructuralSchema => ({ type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
  it('map list with compound map items', () => {
    const obj = {
      strings: ['a'], integers: [1], booleans: [false], float64: [1.5], nil: [null], array: [['a']],
      'one key': [{ a: '0', c: '2' }, { a: '1', c: '1' }, { a: '1', c: '2' }, {}],
      'two keys': [{ a: '1', b: '1', c: '1' }, { a: '1', b: '2', c: '2' }, { a: '1', b: '2', c: '3' }, {}],
      'undefined key': [{ a: '1', b: '1', c: '1' }, { a: '1', c: '2' }, { a: '1', c: '3' }, {}],
      'compound key': [{ a: [], c: '1' }, { a: null, c: '1' }, { a: ['a'], c: '1' }, { a: ['a', 42], c: '2' }, { a: ['a', 42], c: ['3'] }],
      'nil key': [{ a: [], c: '1' }, { a: null, c: '1' }, { c: '1' }, { a: null }],
      'nil item': [null, { a: '0', c: '1' }, { a: null }, { c: '1' }],
      'nil item multiple keys': [null, { b: '0', c: '1' }, { a: null }, { c: '1' }],
      'multiple duplicates': [{ a: [], c: '1' }, { a: null, c: '1' }, { a: ['a'], c: '1' }, { a: ['a', 42], c: '2' }, { a: ['a', 42], c: ['3'] }, { a: ['a'], c: '1', d: '1' }, { a: ['a'], c: '1', d: '2' }],
    };
    const one = ['strings', 'integers', 'booleans', 'float64', 'nil', 'array', 'one key', 'compound key', 'nil key', 'nil item', 'multiple duplicates'];
    const two = ['two keys', 'undefined key', 'nil item multiple keys'];
    const schema: StructuralSchema = { type: 'object', properties: Object.fromEntries([...one.map((k) => [k, mapList(['a'])]), ...two.map((k) => [k, mapList(['a', 'b'])])]) };
    const errors: FieldError[] = [];
    validateListTypes(obj, schema, 'root', errors);
    assert.deepEqual(errors.map((e) => `${e.reason} ${e.path}`).sort(), [
      'FieldValueInvalid root.strings[0]', 'FieldValueInvalid root.integers[0]', 'FieldValueInvalid root.booleans[0]', 'FieldValueInvalid root.float64[0]', 'FieldValueInvalid root.array[0]',
      'FieldValueDuplicate root.one key[2]', 'FieldValueDuplicate root.two keys[2]', 'FieldValueDuplicate root.undefined key[2]', 'FieldValueDuplicate root.compound key[4]',
      'FieldValueDuplicate root.nil key[3]', 'FieldValueDuplicate root.nil item[3]', 'FieldValueDuplicate root.nil item multiple keys[3]',
      'FieldValueDuplicate root.multiple duplicates[4]', 'FieldValueDuplicate root.multiple duplicates[5]',
    ].sort());
  });
  it('set list with multiple duplicated items, and under additionalProperties', () => {
    const errors: FieldError[] = [];
    validateListTypes({ array: ['a', 'a', 'b', 'c', 'd', 'c'] }, { type: 'object', properties: { array: { type: 'array', 'x-kubernetes-list-type': 'set' } } }, 'root', errors);
    validateListTypes({ array: ['a', 'b', 'a'] }, { type: 'object', additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }, 'root', errors);
    assert.deepEqual(errors.map((e) => `${e.reason} ${e.path}`), ['FieldValueDuplicate root.array[1]', 'FieldValueDuplicate root.array[5]', 'FieldValueDuplicate root[array][2]']);
  });
});

/** From schema/objectmeta's `TestValidateEmbeddedResource`. */
describe("validation: the apiserver's TestValidateEmbeddedResource table", () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['empty', {}, ['FieldValueRequired apiVersion', 'FieldValueRequired kind']],
    ['version and kind', { apiVersion: 'foo/v1', kind: 'Foo' }, []],
    ['invalid kind', { apiVersion: 'foo/v1', kind: 'foo.bar-com' }, ['FieldValueInvalid kind']],
    ['no name', { apiVersion: 'foo/v1', kind: 'Foo', metadata: { namespace: 'kube-system' } }, []],
    ['no namespace', { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'foo' } }, []],
    ['invalid', { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: '..', namespace: '$$$', labels: { '#': '#' }, annotations: { '#': '#' } } },
      ['FieldValueInvalid metadata.name', 'FieldValueInvalid metadata.namespace', 'FieldValueInvalid metadata.labels', 'FieldValueInvalid metadata.labels', 'FieldValueInvalid metadata.annotations']],
  ];
  for (const [name, object, expected] of cases) {
    it(name, () => {
      const errors: FieldError[] = [];
      validateEmbeddedResources(object, { 'x-kubernetes-embedded-resource': true }, '', errors, false);
      assert.deepEqual(errors.map((e) => `${e.reason} ${e.path}`).sort(), [...expected].sort());
    });
  }
});

/** From schema/pruning's `TestPrune` (not at a resource root): the pruned object and the pruned paths. */
describe("validation: the apiserver's TestPrune table", () => {
  const ac: StructuralSchema = { properties: { a: {}, c: {} } };
  const cases: [string, string, StructuralSchema | undefined, string, string[]][] = [
    ['object array', '[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]', { items: ac }, '[{"a":1},{},{"a":1,"c":3}]', ['[1].b', '[2].b']],
    ['object array with nil schema', '[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]', undefined, '[{},{},{}]', ['[0].a', '[1].b', '[2].a', '[2].b', '[2].c']],
    ['object array object', '{"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3}}',
      { properties: { array: { items: ac }, specified: ac } }, '{"array":[{"a":1},{},{"a":1,"c":3}],"specified":{"a":1,"c":3}}', ['array[1].b', 'array[2].b', 'specified.b', 'unspecified']],
    ['additionalProperties with schema', '{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1}}}', { properties: { a: {}, c: { additionalProperties: { type: 'integer' } } } }, '{"a":1,"c":{"a":1,"b":2,"c":{}}}', ['b', 'c.c.a']],
    ['additionalProperties with bool', '{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1, "apiVersion": "unknown"}}}', { properties: { a: {}, c: { additionalProperties: false } } }, '{"a":1,"c":{"a":1,"b":2,"c":{}}}', ['b', 'c.c.a', 'c.c.apiVersion']],
  ];
  for (const [name, json, schema, expected, pruned] of cases) {
    it(name, () => {
      const x = JSON.parse(json) as unknown;
      assert.deepEqual(pruneUnknownFields(x, schema, false), pruned);
      assert.deepEqual(x, JSON.parse(expected));
    });
  }
});

/** From schema/defaulting's `TestDefault`. */
describe("validation: the apiserver's TestDefault table", () => {
  const A: StructuralSchema = { properties: { a: { default: 'A' } } };
  const cases: [string, string, StructuralSchema, string][] = [
    ['object array', '[{"a":1},{"b":1},{"c":1}]', { items: { properties: { a: { default: 'A' }, b: { default: 'B' }, c: { default: 'C' } } } }, '[{"a":1,"b":"B","c":"C"},{"a":"A","b":1,"c":"C"},{"a":"A","b":"B","c":1}]'],
    ['object array object', '{"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}}',
      { properties: { array: { items: { properties: { a: { default: 'A' }, b: { default: 'B' } } } }, object: { properties: { a: { default: 'N' }, b: { default: 'O' } } }, additionalProperties: { additionalProperties: { properties: { a: { default: 'alpha' }, b: { default: 'beta' } } } }, foo: { default: 'bar' } } },
      '{"array":[{"a":1,"b":"B"},{"a":"A","b":2}],"object":{"a":1,"b":"O"},"additionalProperties":{"x":{"a":1,"b":"beta"},"y":{"a":"alpha","b":2}},"foo":"bar"}'],
    ['empty and null', '[{},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":null},{"a":[]},{"a":{}}]', { items: A }, '[{"a":"A"},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":"A"},{"a":[]},{"a":{}}]'],
    ['null in nullable list', '[null]', { items: { nullable: true, properties: { a: { default: 'A' } } } }, '[null]'],
    ['null in non-nullable list', '[null]', { items: { nullable: false, default: 'A' } }, '["A"]'],
    ['null in nullable object', '{"a": null}', { properties: { a: { nullable: true, default: 'A' } } }, '{"a": null}'],
    ['null in non-nullable object', '{"a": null}', { properties: { a: { nullable: false, default: 'A' } } }, '{"a": "A"}'],
    ['null in nullable object with additionalProperties', '{"a": null}', { additionalProperties: { nullable: true, default: 'A' } }, '{"a": null}'],
    ['null in non-nullable object with additionalProperties', '{"a": null}', { additionalProperties: { nullable: false, default: 'A' } }, '{"a": "A"}'],
  ];
  for (const [name, json, schema, expected] of cases) {
    it(name, () => {
      const x = JSON.parse(json) as unknown;
      applyDefaults(x, schema);
      assert.deepEqual(x, JSON.parse(expected));
    });
  }
});
