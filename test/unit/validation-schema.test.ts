import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrdValidator, type FieldError, type StructuralSchema, type ValidatedCrd } from '@kubegen/runtime/validation';

/** A namespaced CRD example.com/v1 Foo whose spec has the given properties (and more top-level options). */
function crdWith(spec: StructuralSchema, extra: Partial<ValidatedCrd['spec']['versions'][number]> = {}, root: Partial<StructuralSchema> = {}): ValidatedCrd {
  return {
    metadata: { name: 'foos.example.com' },
    spec: {
      group: 'example.com', names: { kind: 'Foo', plural: 'foos' }, scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, ...root } }, ...extra }],
    },
  };
}

const foo = (spec: unknown, meta: Record<string, unknown> = {}) => ({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', namespace: 'ns', ...meta }, spec });
const brief = (errors: FieldError[]) => errors.map((e) => `${e.path} ${e.reason} ${e.message}`);

function check(spec: StructuralSchema, value: unknown): string[] {
  return brief(new CrdValidator(crdWith({ type: 'object', properties: { x: spec } })).validate(foo({ x: value })).errors);
}

describe('validation: types', () => {
  it('reports a wrong type with the path, FieldValueTypeInvalid and kube-openapi text', () => {
    assert.deepEqual(check({ type: 'integer' }, 'three'), ['spec.x FieldValueTypeInvalid Invalid value: "string": spec.x in body must be of type integer: "string"']);
    assert.deepEqual(check({ type: 'object' }, [1]), ['spec.x FieldValueTypeInvalid Invalid value: "array": spec.x in body must be of type object: "array"']);
  });
  it('accepts an integer where a number is expected and refuses a fraction where an integer is', () => {
    assert.deepEqual(check({ type: 'number' }, 3), []);
    assert.deepEqual(check({ type: 'integer' }, 1.5), [
      'spec.x FieldValueTypeInvalid Invalid value: "number": spec.x in body must be of type integer: "number"',
      '<nil> FieldValueInvalid Invalid value: "": Checked value must be of type integer (default format) in spec.x',
    ]);
  });
  it('int-or-string takes both and names both types when refusing', () => {
    assert.deepEqual(check({ 'x-kubernetes-int-or-string': true }, 8080), []);
    assert.deepEqual(check({ 'x-kubernetes-int-or-string': true }, 'http'), []);
    assert.deepEqual(check({ 'x-kubernetes-int-or-string': true }, true), ['spec.x FieldValueTypeInvalid Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean"']);
  });
  it('nullable allows null in a list; a non-nullable null item is refused, a non-nullable null field dropped', () => {
    assert.deepEqual(check({ type: 'array', items: { type: 'string', nullable: true } }, ['a', null]), []);
    assert.deepEqual(check({ type: 'array', items: { type: 'string' } }, ['a', null]), ['spec.x[1] FieldValueTypeInvalid Invalid value: "null": spec.x[1] in body must be of type string: "null"']);
    const r = new CrdValidator(crdWith({ type: 'object', properties: { x: { type: 'string' } } })).validate(foo({ x: null }));
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.object.spec, {});
  });
  it('int32 format bounds the value', () => {
    assert.deepEqual(check({ type: 'integer', format: 'int32' }, 2 ** 31), ['<nil> FieldValueInvalid Invalid value: "": Checked value must be of type integer with format int32 in spec.x']);
  });
});

describe('validation: enum, bounds, lengths, patterns', () => {
  it('enum is NotSupported with the quoted values', () => {
    assert.deepEqual(check({ type: 'string', enum: ['A', 'B'] }, 'C'), ['spec.x FieldValueNotSupported Unsupported value: "C": supported values: "A", "B"']);
    assert.deepEqual(check({ type: 'integer', enum: [1, 2] }, 3), ['spec.x FieldValueNotSupported Unsupported value: 3: supported values: "1", "2"']);
  });
  it('minimum and maximum print integer bounds for integer values and %v floats otherwise', () => {
    assert.deepEqual(check({ type: 'integer', minimum: 1 }, 0), ['spec.x FieldValueInvalid Invalid value: 0: spec.x in body should be greater than or equal to 1']);
    assert.deepEqual(check({ type: 'number', maximum: 1000000 }, 1000000.5), ['spec.x FieldValueInvalid Invalid value: 1.0000005e+06: spec.x in body should be less than or equal to 1e+06']);
    assert.deepEqual(check({ type: 'integer', maximum: 10, exclusiveMaximum: true }, 10), ['spec.x FieldValueInvalid Invalid value: 10: spec.x in body should be less than 10']);
    assert.deepEqual(check({ type: 'integer', multipleOf: 5 }, 12), ['spec.x FieldValueInvalid Invalid value: 12: spec.x in body should be a multiple of 5']);
  });
  it('maxLength counts characters and says bytes (TooLong); minLength is Invalid', () => {
    assert.deepEqual(check({ type: 'string', maxLength: 3 }, 'äöü'), []);
    assert.deepEqual(check({ type: 'string', maxLength: 3 }, 'abcd'), ['spec.x FieldValueTooLong Too long: may not be more than 3 bytes']);
    assert.deepEqual(check({ type: 'string', minLength: 2 }, 'a'), ['spec.x FieldValueInvalid Invalid value: "a": spec.x in body should be at least 2 chars long']);
  });
  it('patterns are RE2: unanchored, with RE2-only syntax', () => {
    assert.deepEqual(check({ type: 'string', pattern: '[0-9]' }, 'a1b'), []);
    assert.deepEqual(check({ type: 'string', pattern: '^\\pL+\\z' }, 'héllo'), []);
    assert.deepEqual(check({ type: 'string', pattern: '^[a-z]+$' }, 'AB'), ["spec.x FieldValueInvalid Invalid value: \"AB\": spec.x in body should match '^[a-z]+$'"]);
  });
  it('formats: date-time, k8s-short-name; unknown formats are ignored', () => {
    assert.deepEqual(check({ type: 'string', format: 'date-time' }, '2024-02-30T00:00:00Z'), ['spec.x FieldValueTypeInvalid Invalid value: "2024-02-30T00:00:00Z": spec.x in body must be of type date-time: "2024-02-30T00:00:00Z"']);
    assert.deepEqual(check({ type: 'string', format: 'date-time' }, '2024-02-29T10:00:00.5+02:00'), []);
    assert.deepEqual(check({ type: 'string', format: 'k8s-short-name' }, 'a.b').length, 1);
    assert.deepEqual(check({ type: 'string', format: 'not-a-format' }, 'anything'), []);
  });
  it('items: minItems Invalid, maxItems TooMany, uniqueItems Invalid', () => {
    assert.deepEqual(check({ type: 'array', minItems: 2, items: { type: 'string' } }, ['a']), ['spec.x FieldValueInvalid Invalid value: 1: spec.x in body should have at least 2 items']);
    assert.deepEqual(check({ type: 'array', maxItems: 1, items: { type: 'string' } }, ['a', 'b']), ['spec.x FieldValueTooMany Too many: 2: must have at most 1 item']);
    assert.deepEqual(check({ type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } }, { a: 'x', b: 'y' }), ['spec.x FieldValueTooMany Too many: 2: must have at most 1 item']);
  });
});

describe('validation: objects, required, compositions', () => {
  it('required is FieldValueRequired at the missing field', () => {
    assert.deepEqual(check({ type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, {}), ['spec.x.a FieldValueRequired Required value']);
  });
  it('additionalProperties validate map values under name.key', () => {
    assert.deepEqual(check({ type: 'object', additionalProperties: { type: 'integer' } }, { k: 'v' }), ['spec.x.k FieldValueTypeInvalid Invalid value: "string": spec.x.k in body must be of type integer: "string"']);
  });
  it('anyOf failing every branch reports the summary on the root path', () => {
    const errs = check({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, anyOf: [{ required: ['a'] }, { required: ['b'] }] }, {});
    assert.ok(errs.includes('<nil> FieldValueInvalid Invalid value: "": "spec.x" must validate at least one schema (anyOf)'), errs.join('\n'));
  });
});

describe('validation: pruning, defaults, metadata', () => {
  it('prunes undeclared fields, reports their paths sorted, keeps preserve-unknown-fields subtrees', () => {
    const v = new CrdValidator(crdWith({ type: 'object', properties: { keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } } } }));
    const r = v.validate({ ...foo({ keep: { any: 1 }, list: [{ a: 'x', b: 1 }], zz: 1 }, { extra: 'x' }), top: 1 });
    assert.deepEqual(r.unknownFields, ['metadata.extra', 'spec.list[0].b', 'spec.zz', 'top']);
    assert.deepEqual(r.object.spec, { keep: { any: 1 }, list: [{ a: 'x' }] });
    assert.deepEqual(r.errors, []);
  });
  it('applies defaults to missing fields and nested objects, before validating them', () => {
    const v = new CrdValidator(crdWith({ type: 'object', properties: { mode: { type: 'string', default: 'Auto' }, inner: { type: 'object', default: {}, properties: { n: { type: 'integer', default: 3, maximum: 2 } } } } }));
    const r = v.validate(foo({}));
    assert.deepEqual(r.object.spec, { mode: 'Auto', inner: { n: 3 } });
    assert.deepEqual(brief(r.errors), ['spec.inner.n FieldValueInvalid Invalid value: 3: spec.inner.n in body should be less than or equal to 2']);
  });
  it('checks metadata.name as a DNS subdomain and requires a namespace for namespaced kinds', () => {
    const v = new CrdValidator(crdWith({ type: 'object' }));
    const r = v.validate({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'Not_Valid' }, spec: {} });
    assert.deepEqual(r.errors.map((e) => `${e.path} ${e.reason}`), ['metadata.name FieldValueInvalid', 'metadata.namespace FieldValueRequired']);
    assert.match(r.errors[0]!.message, /^Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/);
    const generated = v.validate({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { generateName: 'x-' }, spec: {} }, { namespace: 'ns' });
    assert.deepEqual(generated.errors, []);
    assert.match(String((generated.object.metadata as { name: string }).name), /^x-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(v.validate({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { generateName: 'X_' }, spec: {} }, { namespace: 'ns' }).errors.map((e) => e.path), ['metadata.generateName', 'metadata.name']);
  });
  it('refuses a version the CRD does not serve and a wrong kind', () => {
    const v = new CrdValidator(crdWith({ type: 'object' }));
    assert.deepEqual(brief(v.validate({ ...foo({}), apiVersion: 'example.com/v2' }).errors), ['apiVersion FieldValueNotSupported Unsupported value: "example.com/v2": supported values: "example.com/v1"']);
    assert.deepEqual(brief(v.validate({ ...foo({}), kind: 'Bar' }).errors), ['kind FieldValueInvalid Invalid value: "Bar": must be Foo']);
  });
  it('validates embedded resources: apiVersion and kind required, metadata names as path segments', () => {
    const v = new CrdValidator(crdWith({ type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } }));
    const r = v.validate(foo({ template: { metadata: { name: 'a/b', bogus: 1 } } }));
    assert.deepEqual(brief(r.errors), [
      'spec.template.apiVersion FieldValueRequired Required value',
      'spec.template.kind FieldValueRequired Required value',
      'spec.template.metadata.name FieldValueInvalid Invalid value: "a/b": may not contain \'/\'',
    ]);
    assert.deepEqual(r.unknownFields, ['spec.template.metadata.bogus']);
  });
});

describe('validation: list types', () => {
  it('a set repeats are Duplicate at the second index', () => {
    assert.deepEqual(check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, ['a', 'b', 'a', 'a']), ['spec.x[2] FieldValueDuplicate Duplicate value: "a"']);
  });
  it('a map list repeats its key tuple', () => {
    const s: StructuralSchema = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } };
    assert.deepEqual(check(s, [{ name: 'a', port: 1 }, { name: 'a', port: 2 }, { name: 'a', port: 1 }]), ['spec.x[2] FieldValueDuplicate Duplicate value: {"name":"a","port":1}']);
  });
});

describe('validation: updates and status', () => {
  const statusCrd = crdWith({ type: 'object', properties: { n: { type: 'integer', maximum: 5 } } }, { subresources: { status: {} } });
  statusCrd.spec.versions[0]!.schema!.openAPIV3Schema = {
    type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer', maximum: 5 } } }, status: { type: 'object', properties: { ready: { type: 'boolean' } } } },
  };
  const v = new CrdValidator(statusCrd);
  const RV = { resourceVersion: '7' };
  it('ratchets: an unchanged invalid field passes an update, a changed one fails', () => {
    const old = foo({ n: 9 }, RV);
    assert.deepEqual(v.validate(foo({ n: 9 }, RV), { operation: 'update', old }).errors, []);
    assert.deepEqual(v.validate(foo({ n: 8 }, RV), { operation: 'update', old }).errors.map((e) => e.path), ['spec.n']);
  });
  it('a create drops status when the status subresource is on; a status write validates only status', () => {
    const created = v.validate({ ...foo({ n: 1 }), status: { ready: 'x' } });
    assert.deepEqual(created.errors, []);
    assert.equal('status' in created.object, false);
    const r = v.validate({ ...foo({ n: 9 }, RV), status: { ready: 'x' } }, { operation: 'status', old: foo({ n: 1 }, RV) });
    assert.deepEqual(brief(r.errors), ['status.ready FieldValueTypeInvalid Invalid value: "string": ready in body must be of type boolean: "string"']);
    assert.deepEqual(r.object.spec, { n: 1 });
  });
  it('an update names its resourceVersion and keeps the name', () => {
    assert.deepEqual(brief(v.validate(foo({ n: 1 }, { name: 'b' }), { operation: 'update', old: foo({ n: 1 }, RV) }).errors), [
      'metadata.resourceVersion FieldValueInvalid Invalid value: "": must be specified for an update',
      'metadata.name FieldValueInvalid Invalid value: "b": field is immutable',
    ]);
  });
});
