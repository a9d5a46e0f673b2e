import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules, compileRootRules } from '@kubegen/runtime/internal/validation/cel/index.js';
import { escapeName } from '@kubegen/runtime/internal/validation/cel/escape.js';
import type { StructuralSchema, ValidationRule } from '@kubegen/runtime/internal/validation/types.js';

const obj = (properties: Record<string, StructuralSchema>, rules: ValidationRule[]): StructuralSchema => ({
  type: 'object',
  properties,
  'x-kubernetes-validations': rules,
});

/** The messages of the violations of `rules` on `self` (and `old`, on update). */
function messages(node: StructuralSchema, self: unknown, old?: unknown): string[] {
  const c = compileRules(node);
  assert.deepEqual(c.compileErrors, []);
  return c.evaluate(self, old === undefined ? undefined : { value: old }).map((v) => v.message);
}

test('property names are escaped as the apiserver does', () => {
  assert.equal(escapeName('namespace'), '__namespace__');
  assert.equal(escapeName('x-y'), 'x__dash__y');
  assert.equal(escapeName('a.b/c'), 'a__dot__b__slash__c');
  assert.equal(escapeName('a__b'), 'a__underscores__b');
  assert.equal(escapeName('plain_name'), 'plain_name');
  assert.equal(escapeName('1st'), undefined);
  assert.equal(escapeName('a b'), undefined);
  const node = obj({ namespace: { type: 'string' }, 'x-y': { type: 'string' } }, [{ rule: "self.__namespace__ == self.x__dash__y" }]);
  assert.deepEqual(messages(node, { namespace: 'a', 'x-y': 'a' }), []);
  assert.deepEqual(messages(node, { namespace: 'a', 'x-y': 'b' }), ['failed rule: self.__namespace__ == self.x__dash__y']);
});

test('a reserved word names its field bare too (compatibility version 1.31+): has(), select, optional select', () => {
  const node = obj({ namespace: { type: 'string' }, return: { type: 'boolean' }, returnArg: { type: 'integer' }, in: { type: 'object', properties: { x: { type: 'string' } } } }, [
    { rule: "!has(self.namespace) || self.namespace != 'kube-system'", message: 'not kube-system' },
    { rule: '!has(self.return) || (!self.return || has(self.returnArg))', message: 'return needs returnArg' },
    { rule: "self.?in.x.orValue('') != 'bad'", message: 'no bad in' },
    { rule: '!has(self.namespace) || self.namespace == self.__namespace__' },
  ]);
  assert.deepEqual(messages(node, { namespace: 'default', return: true, returnArg: 1 }), []);
  assert.deepEqual(messages(node, { namespace: 'kube-system', return: true, in: { x: 'bad' } }), ['not kube-system', 'return needs returnArg', 'no bad in']);
  assert.deepEqual(messages(node, {}), [], 'absent fields: has() false, optional empty');
  assert.match(compileRules(obj({ s: { type: 'string' } }, [{ rule: 'self.namespace == "x"' }])).compileErrors[0]!.message, /undefined field 'namespace'/, 'a reserved word the schema lacks is still undefined');
});

test('integers are CEL ints, numbers doubles, and int-or-string either', () => {
  const node = obj(
    { i: { type: 'integer' }, n: { type: 'number' }, ios: { 'x-kubernetes-int-or-string': true } },
    [
      { rule: 'type(self.i) == int && type(self.n) == double' },
      { rule: "type(self.ios) == string ? self.ios.endsWith('%') : self.ios < 10" },
    ],
  );
  assert.deepEqual(messages(node, { i: 3, n: 3, ios: '50%' }), []);
  assert.deepEqual(messages(node, { i: 3, n: 2.5, ios: 5 }), []);
  assert.deepEqual(messages(node, { i: 3, n: 2.5, ios: 50 }), ["failed rule: type(self.ios) == string ? self.ios.endsWith('%') : self.ios < 10"]);
});

test('date-time, date and duration formats are timestamps and durations', () => {
  const node = obj(
    { t: { type: 'string', format: 'date-time' }, d: { type: 'string', format: 'date' }, dur: { type: 'string', format: 'duration' } },
    [{ rule: "self.t > self.d && self.dur >= duration('90m') && self.t.getFullYear() == 2024" }],
  );
  assert.deepEqual(messages(node, { t: '2024-05-01T10:00:00.5+02:00', d: '2024-05-01', dur: '1h30m' }), []);
  assert.equal(messages(node, { t: '2024-05-01T10:00:00Z', d: '2024-05-01', dur: '1h' }).length, 1);
});

test('message, messageExpression (with fallback), reason and fieldPath', () => {
  const node = obj({ n: { type: 'integer' } }, [
    { rule: 'self.n > 1', message: ' too small ' },
    { rule: 'self.n > 2', messageExpression: "'n is ' + string(self.n)", reason: 'FieldValueForbidden', fieldPath: '.n' },
    { rule: 'self.n > 3', messageExpression: "''", message: 'fallback' },
    { rule: 'self.n > 4', messageExpression: "string(self.n / 0)" },
  ]);
  const v = compileRules(node).evaluate({ n: 1 }, undefined);
  assert.deepEqual(
    v.map((x) => [x.message, x.reason, x.fieldPath]),
    [
      ['too small', 'FieldValueInvalid', ''],
      ['n is 1', 'FieldValueForbidden', '.n'],
      ['fallback', 'FieldValueInvalid', ''],
      ['failed rule: self.n > 4', 'FieldValueInvalid', ''],
    ],
  );
});

test('transition rules run only on update, unless optionalOldSelf', () => {
  const node = obj({ s: { type: 'string' } }, [
    { rule: 'self.s == oldSelf.s', message: 'immutable' },
    { rule: "!oldSelf.hasValue() || oldSelf.value().s == 'a'", message: 'was not a', optionalOldSelf: true },
    { rule: "oldSelf.hasValue() || self.s == 'new'", message: 'created not new', optionalOldSelf: true },
  ]);
  assert.deepEqual(messages(node, { s: 'b' }), ['created not new']);
  assert.deepEqual(messages(node, { s: 'b' }, { s: 'a' }), ['immutable']);
  assert.deepEqual(messages(node, { s: 'b' }, { s: 'b' }), ['was not a']);
  // The server evaluates messageExpression with the plain activation: oldSelf is the bare old value there.
  const quirk = obj({ s: { type: 'string' } }, [
    { rule: "oldSelf.hasValue() && oldSelf.value().s == 'a'", optionalOldSelf: true, message: 'fallback', messageExpression: "'was ' + oldSelf.value().s" },
    { rule: "oldSelf.hasValue() && oldSelf.value().s == 'a'", optionalOldSelf: true, message: 'fallback', messageExpression: "'self is ' + self.s" },
  ]);
  assert.deepEqual(messages(quirk, { s: 'b' }, { s: 'b' }), ['fallback', 'self is b']);
  assert.deepEqual(messages(quirk, { s: 'b' }), ['fallback', 'self is b']);
});

test('runtime errors are reported with the server wording and flagged', () => {
  const node = obj({ m: { type: 'object', additionalProperties: { type: 'string' } }, l: { type: 'array', items: { type: 'integer' } } }, [
    { rule: "self.m['k'] == 'v'" },
    { rule: 'self.l[2] == 1', message: 'third is one' },
  ]);
  const v = compileRules(node).evaluate({ m: {}, l: [] }, undefined);
  assert.deepEqual(v.map((x) => [x.message, x.runtimeError]), [
    ["no such key: k evaluating rule: self.m['k'] == 'v'", true],
    ['index out of bounds: 2 evaluating rule: third is one', true],
  ]);
});

test('rules that the apiserver refuses do not compile, with cel-go wording', () => {
  const node = obj({ a: { type: 'string' } }, [
    { rule: 'self.b == 1' },
    { rule: 'self.a' },
    { rule: 'nosuch(self.a)' },
    { rule: 'self.a.size() == "x"' },
    { rule: 'self.a ==' },
    { rule: 'self.a == oops' },
  ]);
  const errs = compileRules(node).compileErrors;
  assert.deepEqual(errs.map((e) => e.index), [0, 1, 2, 3, 4, 5]);
  assert.equal(errs[0]!.message, "compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b == 1\n | ....^");
  assert.equal(errs[1]!.message, 'cel expression must evaluate to a bool');
  assert.match(errs[2]!.message, /undeclared reference to 'nosuch'/);
  assert.match(errs[3]!.message, /found no matching overload for '_==_' applied to '\(int, string\)'/);
  assert.match(errs[5]!.message, /undeclared reference to 'oops'/);
  // An object list and a list of map literals do not concatenate (the 1.36 apiserver refuses this rule).
  const objs = obj({ l: { type: 'array', items: obj({ n: { type: 'string' } }, []) } }, [{ rule: "(self.l + [{'n': 'x'}]).size() > 0" }]);
  assert.match(compileRules(objs).compileErrors[0]?.message ?? '', /found no matching overload for '_\+_' applied to '\(list\(object\), list\(map\(string, string\)\)\)'/);
});

test('literal checks the apiserver enables: homogeneous aggregates, regex, duration and timestamp literals', () => {
  const node = obj({ a: { type: 'string' } }, [
    { rule: "[1, 'a'].size() == 2" },
    { rule: "{'a': 1, 'b': 'x'}.size() == 2" },
    { rule: "self.a.matches('(')" },
    { rule: "duration('1x') > duration('1s')" },
    { rule: "timestamp('yesterday') > timestamp('2020-01-01T00:00:00Z')" },
    { rule: "'%s is %d'.format(['a', 1]) == 'a is 1' && self.a.matches('^[a-z]+$') && duration('1h30m') > duration('1s')" },
  ]);
  const errs = compileRules(node).compileErrors;
  assert.deepEqual(errs.map((e) => e.index), [0, 1, 2, 3, 4]);
  assert.match(errs[0]!.message, /ERROR: <input>:1:5: expected type 'int' but found 'string'/);
  assert.match(errs[1]!.message, /expected type 'int' but found 'string'/);
  assert.match(errs[2]!.message, /invalid matches argument/);
  assert.match(errs[3]!.message, /invalid duration argument/);
  assert.match(errs[4]!.message, /invalid timestamp argument/);
});

test('the root of a resource and embedded resources see apiVersion, kind, metadata.name and generateName only', () => {
  const root = compileRootRules(obj({ spec: { type: 'object' } }, [{ rule: "self.metadata.name.startsWith('a') && self.kind == 'K'" }]));
  assert.deepEqual(root.compileErrors, []);
  assert.equal(root.evaluate({ kind: 'K', metadata: { name: 'b', labels: { x: 'y' } } }, undefined).length, 1);
  assert.equal(root.evaluate({ kind: 'K', metadata: { name: 'a' } }, undefined).length, 0);
  assert.equal(compileRootRules(obj({}, [{ rule: 'has(self.metadata.labels)' }])).compileErrors.length, 1);
  const viaOption = compileRules(obj({ metadata: { type: 'object' } }, [{ rule: "self.metadata.name != ''" }]), { resourceRoot: true });
  assert.deepEqual(viaOption.compileErrors, []);
  assert.equal(compileRules(obj({ metadata: { type: 'object' } }, [{ rule: "self.metadata.name != ''" }])).compileErrors.length, 1);
  const embedded = compileRules({
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-validations': [{ rule: "self.apiVersion == 'v1'" }],
  });
  assert.deepEqual(embedded.compileErrors, []);
  assert.equal(embedded.evaluate({ apiVersion: 'v2', kind: 'Pod' }, undefined).length, 1);
});

test('an old value that no longer fits the schema only fails the rules that read oldSelf', () => {
  const node = obj({ n: { type: 'integer' } }, [{ rule: 'self.n > 0', message: 'positive' }, { rule: 'self.n >= oldSelf.n', message: 'no decrease' }]);
  const v = compileRules(node).evaluate({ n: 1 }, { value: { n: 'one' } });
  assert.deepEqual(v.map((x) => [x.message.replace(/ evaluating rule.*/, ''), x.runtimeError ?? false]), [['invalid data, expected int, got string', true]]);
});

test('null values are not validated (a nullable node with null skips its rules)', () => {
  const node: StructuralSchema = { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: "self == 'x'" }] };
  assert.deepEqual(compileRules(node).evaluate(null, undefined), []);
});

test('two-variable comprehensions over schema lists and maps (enabled since 1.32)', () => {
  const node = obj(
    { l: { type: 'array', items: { type: 'integer' } }, m: { type: 'object', additionalProperties: { type: 'string' } } },
    [
      { rule: 'self.l.all(i, v, v > i)', message: 'each above its index' },
      { rule: "self.m.exists(k, v, k == v)", message: 'some key equals its value' },
      { rule: 'self.l.transformList(i, v, i < 2, v * 10) == [10, 20]', message: 'transformList' },
      { rule: "self.m.transformMap(k, v, v + '!') == {'a': 'a!', 'b': 'c!'}", message: 'transformMap' },
      { rule: 'self.l.existsOne(i, v, v == 3)', message: 'one three' },
    ],
  );
  assert.deepEqual(messages(node, { l: [1, 2, 3], m: { a: 'a', b: 'c' } }), []);
  assert.deepEqual(messages(node, { l: [0, 2], m: { a: 'b' } }), ['each above its index', 'some key equals its value', 'transformList', 'transformMap', 'one three']);
  assert.match(compileRules(obj({ l: { type: 'array', items: { type: 'integer' } } }, [{ rule: 'self.l.all(i, v, v.size() > 0)' }])).compileErrors[0]!.message, /found no matching overload for 'size' applied to 'int\.\(\)'/);
});

test('set and map lists compare ignoring order and concatenate as union and keyed merge, as on the server', () => {
  const node = obj(
    {
      s: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      m: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } },
      },
      a: { type: 'array', items: { type: 'string' } },
    },
    [
      { rule: 'self.s == oldSelf.s', message: 'set changed' },
      { rule: 'self.m == oldSelf.m', message: 'map changed' },
      { rule: 'self == oldSelf', message: 'object changed' },
      { rule: 'self.a == oldSelf.a', message: 'atomic changed' },
      { rule: "self.s + ['x', 'a'] == ['a', 'b', 'x']", message: 'union' },
      { rule: '(self.m + oldSelf.m).map(e, e.v) == [2, 1]', message: 'merge' },
    ],
  );
  const old = { s: ['a', 'b'], m: [{ name: 'p', v: 1 }, { name: 'q', v: 2 }], a: ['x', 'y'] };
  assert.deepEqual(messages(node, { s: ['b', 'a'], m: [{ name: 'q', v: 2 }, { name: 'p', v: 1 }], a: ['x', 'y'] }, old), []);
  assert.deepEqual(messages(node, { s: ['a', 'b'], m: [{ name: 'p', v: 1 }, { name: 'q', v: 2 }], a: ['y', 'x'] }, old), ['object changed', 'atomic changed', 'merge']);
  assert.deepEqual(messages(node, { s: ['a', 'c'], m: [{ name: 'p', v: 3 }, { name: 'q', v: 2 }], a: ['x', 'y'] }, old), ['set changed', 'map changed', 'object changed', 'union', 'merge']);
});

test('fieldPath is checked against the schema and normalized; the other fields are checked as the server does', () => {
  const node = obj(
    { a: obj({ b: { type: 'string' } }, []), m: { type: 'object', additionalProperties: { type: 'string' } }, 'x.y': { type: 'string' } },
    [
      { rule: 'false', fieldPath: '.a.b' },
      { rule: 'false', fieldPath: ".m['k.1']" },
      { rule: 'false', fieldPath: "['x.y']" },
    ],
  );
  assert.deepEqual(compileRules(node).evaluate({}, undefined).map((v) => v.fieldPath), ['.a.b', '.m[k.1]', '.x.y']);
  const bad = compileRules(
    obj({ a: { type: 'string' } }, [
      { rule: 'true', fieldPath: '.nope' },
      { rule: 'true', fieldPath: '.a.deeper' },
      { rule: 'true', fieldPath: '  ' },
      { rule: 'true', message: ' ' },
      { rule: 'true\n&& true' },
      { rule: 'true', messageExpression: ' ' },
      { rule: 'true', reason: 'Nope' as 'FieldValueInvalid' },
      { rule: '  ' },
      { rule: 'true', messageExpression: '1' },
    ]),
  ).compileErrors;
  assert.deepEqual(
    bad.map((e) => [e.index, e.field, e.message]),
    [
      [0, 'fieldPath', 'must be a valid path'],
      [1, 'fieldPath', 'must be a valid path'],
      [2, 'fieldPath', 'must be non-empty if specified'],
      [3, 'message', 'must be non-empty if specified'],
      [4, 'message', 'message must be specified if rule contains line breaks'],
      [5, 'messageExpression', 'messageExpression must be non-empty if specified'],
      [6, 'reason', 'Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"'],
      [7, 'rule', 'rule is not specified'],
      [8, 'messageExpression', 'messageExpression must evaluate to a string'],
    ],
  );
});

test('optional syntax: x.?field and x[?key], on optionalOldSelf and on plain values', () => {
  const node = obj(
    { s: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'integer' } }, l: { type: 'array', items: { type: 'string' } } },
    [
      { rule: "oldSelf.?s.orValue('') == '' || self.s == oldSelf.?s.value()", message: 's may only be set once', optionalOldSelf: true },
      { rule: "self.m[?'a'].orValue(0) < 10 && self.l[?5].orValue('x') == 'x' && !self.?s.hasValue() == !has(self.s)", message: 'optional index' },
      { rule: "self.s.matches('^[a-z.?]*$') && 'a.?b' != ''", message: 'strings keep their .? and [?' },
      { rule: "self.?m.a.orValue(0) == self.?m.optMap(x, x[?'a'].orValue(0)).orValue(0)", message: 'chaining and optMap' },
      { rule: "oldSelf.?m.optFlatMap(x, x[?'a']).orValue(1) > 0", message: 'optFlatMap', optionalOldSelf: true },
    ],
  );
  assert.deepEqual(messages(node, { s: 'a', m: { a: 1 }, l: [] }), []);
  assert.deepEqual(messages(node, { s: 'a', m: {}, l: [] }, { m: {} }), []);
  assert.deepEqual(messages(node, { s: 'b', m: { a: 11 }, l: [] }, { s: 'a', m: { a: 0 } }), ['s may only be set once', 'optional index', 'optFlatMap']);
  assert.match(compileRules(obj({ s: { type: 'string' } }, [{ rule: 'self.?nope.hasValue()' }])).compileErrors[0]!.message, /undefined field 'nope'/);
});

test('optional list and map entries, has() through an optional, optional_type', () => {
  const node = obj({ s: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'integer' } } }, [
    { rule: "[?self.?s, 'x'].size() == (has(self.s) ? 2 : 1)", message: 'optional list entry' },
    { rule: "{?'a': self.m[?'a'], 'b': 0}.size() == ('a' in self.m ? 2 : 1)", message: 'optional map entry' },
    { rule: "has(self.?m.a) == ('a' in self.m)", message: 'has through an optional' },
    { rule: 'type(self.?s) == optional_type && type(self.m) != optional_type', message: 'optional_type' },
    // `[` after `in` opens a list; after `]` it indexes; a ternary's `?` inside a literal is not an entry's.
    { rule: "('a' in [?self.?s, 'a']) && {'k': has(self.s) ? 1 : 2}['k'] > 0 && [1, 2][?0].hasValue()", message: 'brackets and ternaries' },
    { rule: '[?self.?s].size() == 1', message: 's is set' },
  ]);
  assert.deepEqual(messages(node, { s: 'a', m: { a: 1 } }), []);
  assert.deepEqual(messages(node, { m: {} }), ['s is set']);
  assert.match(compileRules(obj({ s: { type: 'string' } }, [{ rule: "[?self.s, 'x'].size() > 0" }])).compileErrors[0]!.message, /ERROR: <input>:1:7: expected type 'optional_type\(string\)' but found 'string'/);
});
