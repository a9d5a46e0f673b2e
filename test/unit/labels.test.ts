import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldValue, parseFieldSelector } from '@kubegen/runtime/internal/labels/field-selector.js';
import { selectorFromLabelSelector } from '@kubegen/runtime/internal/labels/label-selector.js';
import { parseSelector } from '@kubegen/runtime/internal/labels/parse-selector.js';
import { everything, nothing, selectorFromSet } from '@kubegen/runtime/internal/labels/selector.js';
import type { Labels } from '@kubegen/runtime/internal/labels/selector.js';

describe('parseSelector matching', () => {
  // [selector, labels, expected]
  const table: [string, Labels | undefined, boolean][] = [
    ['', {}, true],
    ['', undefined, true],
    ['', { a: 'b' }, true],
    ['x=a', { x: 'a' }, true],
    ['x==a', { x: 'a' }, true],
    ['x=a', { x: 'b' }, false],
    ['x=a', {}, false],
    ['x=a', undefined, false],
    ['x!=a', {}, true],
    ['x!=a', undefined, true],
    ['x!=a', { x: 'b' }, true],
    ['x!=a', { x: 'a' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x', { x: '' }, true],
    ['x', { y: 'x' }, false],
    ['!x', {}, true],
    ['!x', { x: 'a' }, false],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: 'two' }, false],
    ['x>1', {}, false],
    ['x<1', { x: '0' }, true],
    ['x<1', { x: '-5' }, true],
    ['x=a,y', { x: 'a', y: 'b' }, true],
    ['x=a,y', { x: 'a' }, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x in ()', { x: '' }, true],
    ['x in (a,)', { x: '' }, true],
    ['x in (a,)', { x: 'a' }, true],
    ['  x  in  ( a , b ) ,  !y ', { x: 'a' }, true],
    ['  x  in  ( a , b ) ,  !y ', { x: 'a', y: '' }, false],
    ['example.com/app=web,tier notin (db)', { 'example.com/app': 'web', tier: 'api' }, true],
    ['in=notin', { in: 'notin' }, true],
    ['x in (in,notin)', { x: 'notin' }, true],
  ];
  for (const [sel, labels, want] of table) {
    it(`${JSON.stringify(sel)} on ${JSON.stringify(labels)} → ${want}`, () => {
      assert.equal(parseSelector(sel).matches(labels), want);
    });
  }
});

describe('parseSelector canonical string and requirements', () => {
  const cases: [string, string][] = [
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['z=c, x = a', 'x=a,z=c'],
    ['x in (b,a,b)', 'x in (a,b)'],
    ['x notin(b,a)', 'x notin (a,b)'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x=', 'x='],
    ['!x', '!x'],
    ['x', 'x'],
    ['x>1,y<2', 'x>1,y<2'],
    ['', ''],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () => {
      const s = parseSelector(input);
      assert.equal(s.toString(), want);
      assert.equal(parseSelector(s.toString()).toString(), want, 'round-trips');
    });
  }

  it('exposes requirements sorted by key with typed operators', () => {
    const s = parseSelector('b notin (y), a in (x), !c');
    assert.deepEqual(
      s.requirements.map((r) => [r.key, r.operator, [...r.values]]),
      [
        ['a', 'in', ['x']],
        ['b', 'notin', ['y']],
        ['c', '!', []],
      ],
    );
    assert.equal(s.empty(), false);
    assert.equal(parseSelector('  ').empty(), true);
  });
});

describe('parseSelector errors', () => {
  const bad = [
    'x=a||y=b',
    'x==a==b',
    '!x=a',
    'x<a',
    'x>1.5',
    'x in (a',
    'x in a',
    'x notin',
    ',x=a',
    'x=a,',
    'x=a b',
    'x=a=b',
    'x=!a',
    '-x=a',
    'x=-a',
    'a/b/c=d',
    `x=${'v'.repeat(64)}`,
    `${'k'.repeat(64)}=v`,
    'x in (a,b',
    '=a',
    'x ~ a',
    'a=b\tc',
    '(x)',
  ];
  for (const s of bad) {
    it(`rejects ${JSON.stringify(s)}`, () => {
      assert.throws(() => parseSelector(s), (e: unknown) => e instanceof Error && e.message.includes('invalid label selector'));
    });
  }
  it('says what it found and what it expected', () => {
    assert.throws(() => parseSelector('x=a,'), /found '', expected: identifier after ','/);
    assert.throws(() => parseSelector('x in a'), /expected: '\('/);
    assert.throws(() => parseSelector('x=a b'), /found 'b', expected: ',' or 'end of string'/);
    assert.throws(() => parseSelector('-x'), /invalid label key "-x"/);
  });
});

describe('selectorFromLabelSelector (metav1.LabelSelectorAsSelector)', () => {
  it('null and undefined select nothing; nothing() is not empty', () => {
    for (const s of [selectorFromLabelSelector(null), selectorFromLabelSelector(undefined), nothing()]) {
      assert.equal(s.matches({}), false);
      assert.equal(s.matches({ a: 'b' }), false);
      assert.equal(s.empty(), false);
    }
  });
  it('an empty selector selects everything', () => {
    for (const s of [selectorFromLabelSelector({}), selectorFromLabelSelector({ matchLabels: {}, matchExpressions: [] }), everything()]) {
      assert.equal(s.matches({ a: 'b' }), true);
      assert.equal(s.matches(undefined), true);
      assert.equal(s.empty(), true);
    }
  });
  it('ANDs matchLabels and every operator', () => {
    const s = selectorFromLabelSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(s.toString(), 'app=web,env notin (prod),!legacy,owner,tier in (a,b)');
    assert.equal(s.matches({ app: 'web', tier: 'a', owner: 'me' }), true, 'NotIn matches a missing label');
    assert.equal(s.matches({ app: 'web', tier: 'a', owner: 'me', env: 'dev' }), true);
    assert.equal(s.matches({ app: 'web', tier: 'a', owner: 'me', env: 'prod' }), false);
    assert.equal(s.matches({ app: 'web', tier: 'c', owner: 'me' }), false);
    assert.equal(s.matches({ app: 'web', tier: 'a' }), false);
    assert.equal(s.matches({ app: 'web', tier: 'a', owner: 'me', legacy: 'y' }), false);
    assert.equal(s.matches({ app: 'api', tier: 'a', owner: 'me' }), false);
  });
  it('rejects bad operators, value counts and keys', () => {
    assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), /"Gt" is not a valid label selector operator/);
    assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), /values set can't be empty/);
    assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), /must be empty/);
    assert.throws(() => selectorFromLabelSelector({ matchLabels: { 'bad key': 'x' } }), /invalid label key/);
    assert.throws(() => selectorFromLabelSelector({ matchLabels: { a: 'bad value' } }), /invalid label value/);
  });
  it('selectorFromSet is equality on each entry', () => {
    const s = selectorFromSet({ b: '2', a: '1' });
    assert.equal(s.toString(), 'a=1,b=2');
    assert.equal(s.matches({ a: '1', b: '2', c: '3' }), true);
    assert.equal(s.matches({ a: '1' }), false);
    assert.equal(selectorFromSet(undefined).empty(), true);
  });
});

describe('parseFieldSelector', () => {
  const obj = { metadata: { name: 'foo', namespace: 'ns1' }, spec: { replicas: 3, paused: false, nodeName: 'a,b' } };
  const table: [string, boolean][] = [
    ['', true],
    ['metadata.name=foo', true],
    ['metadata.name==foo', true],
    ['metadata.name=bar', false],
    ['metadata.name!=bar', true],
    ['metadata.name=foo,metadata.namespace=ns1', true],
    ['metadata.name=foo,metadata.namespace!=ns1', false],
    ['spec.replicas=3', true],
    ['spec.paused=false', true],
    ['spec.nodeName=a\\,b', true],
    ['spec.missing=', true],
    ['spec.missing!=x', true],
    ['spec.missing=x', false],
  ];
  for (const [sel, want] of table) {
    it(`${JSON.stringify(sel)} → ${want}`, () => assert.equal(parseFieldSelector(sel).matches(obj), want));
  }
  it('normalises, escapes and reports emptiness', () => {
    const s = parseFieldSelector('metadata.namespace!=x,metadata.name==a\\=b');
    assert.equal(s.toString(), 'metadata.name=a\\=b,metadata.namespace!=x');
    assert.deepEqual(s.requirements[0], { field: 'metadata.name', operator: '==', value: 'a=b' });
    assert.equal(parseFieldSelector('').empty(), true);
    assert.equal(s.empty(), false);
  });
  it('rejects terms without an operator and bad escapes', () => {
    assert.throws(() => parseFieldSelector('metadata.name'), /can't understand 'metadata.name'/);
    assert.throws(() => parseFieldSelector('a=b\\x'), /invalid escape sequence/);
    assert.throws(() => parseFieldSelector('a=b=c'), /unescaped/);
  });
  it('fieldValue reads dotted paths', () => {
    assert.equal(fieldValue(obj, 'metadata.name'), 'foo');
    assert.equal(fieldValue(obj, 'spec.replicas'), '3');
    assert.equal(fieldValue(obj, 'spec.nope.deeper'), '');
    assert.equal(fieldValue(null, 'a'), '');
  });
});
