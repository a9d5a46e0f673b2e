import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrdValidator, type CompileRules, type RuleViolation, type StructuralSchema, type ValidatedCrd } from '@kubegen/runtime/validation';
import { normalizeRuleFieldPath } from '@kubegen/runtime/internal/validation/rule-walk.js';

/**
 * The walk that hands `x-kubernetes-validations` to the CEL layer: which nodes, with which self and oldSelf, and how
 * violations become field errors. A stub CompileRules stands in for CEL: each rule's text names a JS predicate.
 */
type Predicate = (self: any, old: any) => boolean;
const PREDICATES: Record<string, Predicate> = {
  'self.min <= self.max': (s) => s.min <= s.max,
  'self == oldSelf': (s, o) => s === o,
  'self.size() > 0': (s) => s.length > 0,
  'self.startsWith("x")': (s) => s.startsWith('x'),
  'has(self.name)': (s) => 'name' in s,
};

const compiled: StructuralSchema[] = [];
const stubCel: CompileRules = (node) => {
  compiled.push(node);
  const rules = node['x-kubernetes-validations'] ?? [];
  return {
    compileErrors: [],
    evaluate(self, old) {
      const out: RuleViolation[] = [];
      for (const r of rules) {
        const usesOld = r.rule.includes('oldSelf');
        if (usesOld && !old) continue;
        if (!PREDICATES[r.rule]!(self, old?.value)) out.push({ fieldPath: r.fieldPath ?? '', reason: r.reason ?? 'FieldValueInvalid', message: r.message ?? `failed rule: ${r.rule}`, rule: r.rule });
      }
      return out;
    },
  };
};

function crd(spec: StructuralSchema): ValidatedCrd {
  return {
    spec: {
      group: 'example.com', names: { kind: 'Foo' }, scope: 'Cluster',
      versions: [{ name: 'v1', served: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}
const foo = (spec: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', resourceVersion: '1' }, spec });
const brief = (v: CrdValidator, obj: unknown, old?: unknown) =>
  v.validate(obj, old ? { operation: 'update', old } : {}).errors.map((e) => `${e.path} ${e.reason} ${e.message}`);

describe('validation rules: walk and errors', () => {
  const range: StructuralSchema = {
    type: 'object',
    properties: { min: { type: 'integer' }, max: { type: 'integer' } },
    'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min', reason: 'FieldValueForbidden' }],
  };

  it('reports a failed rule at node path + fieldPath with its reason and message', () => {
    const v = new CrdValidator(crd(range), { compileRules: stubCel });
    assert.deepEqual(brief(v, foo({ min: 3, max: 1 })), ['spec.min FieldValueForbidden Forbidden: min must not exceed max']);
    assert.deepEqual(brief(v, foo({ min: 1, max: 3 })), []);
  });

  it('prints a scalar self as the bad value, an object or list as none, and defaults the message to failed rule', () => {
    const v = new CrdValidator(crd({ type: 'object', properties: {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.startsWith("x")' }] },
      list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.size() > 0' }] },
    } }), { compileRules: stubCel });
    assert.deepEqual(brief(v, foo({ name: 'abc', list: [] })), [
      'spec.name FieldValueInvalid Invalid value: "abc": failed rule: self.startsWith("x")',
      'spec.list FieldValueInvalid Invalid value: failed rule: self.size() > 0',
    ]);
  });

  it('transition rules run on update only, with the correlated old value through list-map keys', () => {
    const v = new CrdValidator(crd({ type: 'object', properties: { ports: {
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] } } },
    } } }), { compileRules: stubCel });
    const old = foo({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] });
    assert.deepEqual(brief(v, foo({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 9 }] })), [], 'create: no oldSelf');
    assert.deepEqual(brief(v, foo({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 9 }, { name: 'c', port: 5 }] }), old), ['spec.ports[1].port FieldValueInvalid Invalid value: 9: immutable']);
  });

  it('ratchets a rule without oldSelf on an unchanged value, but not on a changed one', () => {
    const v = new CrdValidator(crd(range), { compileRules: stubCel });
    const old = foo({ min: 5, max: 1 });
    assert.deepEqual(brief(v, foo({ min: 5, max: 1 }), old), []);
    assert.equal(brief(v, foo({ min: 6, max: 1 }), old).length, 1);
  });

  it('skips the rules after a blocking error, saying so', () => {
    const v = new CrdValidator(crd({ ...range, required: ['max'] }), { compileRules: stubCel });
    assert.deepEqual(brief(v, foo({ min: 3 })), [
      'spec.max FieldValueRequired Required value',
      '<nil> FieldValueInvalid Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('says rules were not checked only for a version that has rules', () => {
    const one = crd({ ...range, required: ['max'] });
    const two: ValidatedCrd = { spec: { ...one.spec, versions: [...one.spec.versions, { name: 'v2', served: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', required: ['max'], properties: { max: { type: 'integer' } } } } } } }] } };
    const v = new CrdValidator(two, { compileRules: stubCel });
    assert.deepEqual(brief(v, { ...foo({}), apiVersion: 'example.com/v2' }), ['spec.max FieldValueRequired Required value']);
    assert.equal(brief(v, foo({})).length, 2, 'v1 has rules: they were not checked');
  });

  it('gives the root node CEL its apiVersion, kind and metadata.name types', () => {
    compiled.length = 0;
    const withRootRule: ValidatedCrd = crd({ type: 'object' });
    (withRootRule.spec.versions[0]!.schema!.openAPIV3Schema as StructuralSchema)['x-kubernetes-validations'] = [{ rule: 'has(self.name)' }];
    const v = new CrdValidator(withRootRule, { compileRules: stubCel });
    v.validate(foo({}));
    const root = compiled.find((n) => n.properties?.['metadata']);
    assert.deepEqual(root?.properties?.['metadata'], { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } });
    assert.deepEqual(root?.properties?.['kind'], { type: 'string' });
  });

  it('a CRD with rules needs a CEL layer', () => {
    assert.throws(() => new CrdValidator(crd(range)), /x-kubernetes-validations; pass compileRules/);
  });

  it('normalizes a rule fieldPath as the apiserver prints it', () => {
    const s: StructuralSchema = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } } };
    assert.equal(normalizeRuleFieldPath('.a.b', s), 'a.b');
    assert.equal(normalizeRuleFieldPath(".m['x.y']", s), 'm[x.y]');
    assert.equal(normalizeRuleFieldPath("['a'].b", s), 'a.b');
  });
});
