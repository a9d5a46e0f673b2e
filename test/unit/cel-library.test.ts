import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules } from '@kubegen/runtime/internal/validation/cel/index.js';

/**
 * Evaluates `expr` as a rule on an empty object: [] when it is true, else the violations' messages. Compile errors
 * fail the assertion with their text.
 */
function run(expr: string): string[] {
  const c = compileRules({ type: 'object', 'x-kubernetes-validations': [{ rule: expr }] });
  assert.deepEqual(c.compileErrors.map((e) => e.message), [], expr);
  return c.evaluate({}, undefined).map((v) => v.message);
}

/** Each `[expr, expected]`: `expr == expected` holds. */
function holds(cases: [string, string][]): void {
  for (const [expr, expected] of cases) assert.deepEqual(run(`${expr} == ${expected}`), [], `${expr} == ${expected}`);
}

/** Each expression fails at runtime with a message containing `error`. */
function fails(cases: [string, string][]): void {
  for (const [expr, error] of cases) {
    const v = run(expr);
    assert.equal(v.length, 1, expr);
    assert.ok(v[0]!.includes(error), `${expr}: ${v[0]}`);
  }
}

test('lists library (k8s lists.go examples)', () => {
  holds([
    ['[1, 2, 3].isSorted()', 'true'],
    ["['a', 'b', 'b', 'c'].isSorted()", 'true'],
    ['[2.0, 1.0].isSorted()', 'false'],
    ['[1].isSorted()', 'true'],
    ['[].isSorted()', 'true'],
    ['[1, 3].sum()', '4'],
    ['[1.0, 3.0].sum()', '4.0'],
    ["[duration('1m'), duration('1s')].sum()", "duration('1m1s')"],
    ['[].sum()', '0'],
    ['[1, 3].min()', '1'],
    ['[1, 3].max()', '3'],
    ['[1].min()', '1'],
    ['[1, 2, 2, 3].indexOf(2)', '1'],
    ["['a', 'b', 'b', 'c'].lastIndexOf('b')", '2'],
    ['[1.0].indexOf(1.1)', '-1'],
    ["[].indexOf('string')", '-1'],
  ]);
  fails([['[].min() == 1', 'min called on empty list']]);
});

test('ext lists (cel-go ext/lists.go examples) and sets', () => {
  holds([
    ['[1, 2, 2, 3, 3, 3].distinct()', '[1, 2, 3]'],
    ['["b", "b", "c", "a", "c"].distinct()', '["b", "c", "a"]'],
    ['lists.range(5)', '[0, 1, 2, 3, 4]'],
    ['[5, 3, 1, 2].reverse()', '[2, 1, 3, 5]'],
    ['[1,2,3,4].slice(1, 3)', '[2, 3]'],
    ['[1,2,3,4].slice(2, 4)', '[3 ,4]'],
    ['[1,[2,3],[4]].flatten()', '[1, 2, 3, 4]'],
    ['[1,2,[],[],[3,4]].flatten()', '[1, 2, 3, 4]'],
    ['[3, 2, 1].sort()', '[1, 2, 3]'],
    ['["b", "c", "a"].sort()', '["a", "b", "c"]'],
    ['sets.contains([], [])', 'true'],
    ['sets.contains([], [1])', 'false'],
    ['sets.contains([1, 2, 3, 4], [2, 3])', 'true'],
    ['sets.equivalent([], [])', 'true'],
    ['sets.equivalent([1], [1, 1])', 'true'],
    ['sets.intersects([1], [])', 'false'],
    ['sets.intersects([1], [1, 2])', 'true'],
  ]);
  fails([['[1,2].slice(1, 3) == [2]', 'cannot slice(1, 3), list is length 2']]);
});

test('regex library: find and findAll with RE2 semantics (k8s regex.go examples)', () => {
  holds([
    ['"abc 123".find(\'[0-9]+\')', "'123'"],
    ['"abc 123".find(\'xyz\')', "''"],
    ['"123 abc 456".findAll(\'[0-9]+\')', "['123', '456']"],
    ['"123 abc 456".findAll(\'[0-9]+\', 1)', "['123']"],
    ['"123 abc 456".findAll(\'xyz\')', '[]'],
    ['"ABC".find(\'(?i)b\')', "'B'"],
    ['"abc".matches(\'^(?i)A\')', 'true'],
  ]);
  fails([['"abc".find(\'(?<=a)b\') == ""', 'Illegal regex']]);
});

test('strings extension at the version the 1.36 apiserver enables', () => {
  holds([
    ["'hello'.charAt(1)", "'e'"],
    ["'hello mellow'.indexOf('ello')", '1'],
    ["'hello mellow'.lastIndexOf('ello')", '7'],
    ["'TacoCat'.lowerAscii()", "'tacocat'"],
    ["'TacoCat'.upperAscii()", "'TACOCAT'"],
    ["'hello hello'.replace('he', 'we')", "'wello wello'"],
    ["'hello hello hello'.split(' ')", "['hello', 'hello', 'hello']"],
    ["'tacocat'.substring(4)", "'cat'"],
    ["'tacocat'.substring(0, 4)", "'taco'"],
    ["'  \\ttrim\\n    '.trim()", "'trim'"],
    ["['hello', 'mellow'].join()", "'hellomellow'"],
    ["['hello', 'mellow'].join(' ')", "'hello mellow'"],
    ["'%s is %d'.format(['x', 3])", "'x is 3'"],
    ['strings.quote("first\\nsecond")', '"\\"first\\\\nsecond\\""'],
  ]);
});
