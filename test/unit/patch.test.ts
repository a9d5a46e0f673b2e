import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch } from '@kubegen/runtime/internal/patch/json-patch.js';
import { formatPointer, parsePointer, PatchError } from '@kubegen/runtime/internal/patch/json-pointer.js';
import { applyMergePatch, createMergePatch } from '@kubegen/runtime/internal/patch/merge-patch.js';
import type { JsonPatchOperation } from '@kubegen/runtime/internal/client/interfaces.js';

describe('JSON pointer', () => {
  it('unescapes ~1 and ~0 (in that order) and formats back', () => {
    assert.deepEqual(parsePointer(''), []);
    assert.deepEqual(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1']);
    assert.equal(formatPointer(['a/b', 'm~n', '~1']), '/a~1b/m~0n/~01');
    assert.throws(() => parsePointer('a'), PatchError);
    assert.throws(() => parsePointer('/a~2'), PatchError);
  });
});

describe('applyJsonPatch (RFC 6902 appendix A)', () => {
  const cases: [string, unknown, JsonPatchOperation[], unknown][] = [
    ['A.1 add object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 add array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 remove object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 remove array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replace', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'A.6 move value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    ['A.7 move array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    [
      'A.8 test success',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      { baz: 'qux', foo: ['a', 2, 'c'] },
    ],
    ['A.10 add nested member', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['A.14 ~ escapes', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 add array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
    ['add replaces the whole document at ""', { a: 1 }, [{ op: 'add', path: '', value: [1] }], [1]],
    ['copy deep-copies', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }, { op: 'replace', path: '/c/b', value: 2 }], { a: { b: 1 }, c: { b: 2 } }],
    ['test compares objects regardless of member order', { a: { x: 1, y: 2 } }, [{ op: 'test', path: '/a', value: { y: 2, x: 1 } }], { a: { x: 1, y: 2 } }],
  ];
  for (const [name, doc, ops, want] of cases) {
    it(name, () => {
      const before = structuredClone(doc);
      assert.deepEqual(applyJsonPatch(doc, ops), want);
      assert.deepEqual(doc, before, 'input not mutated');
    });
  }

  const failures: [string, unknown, unknown][] = [
    ['A.9 test failure', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
    ['A.12 add to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
    ['A.15 comparing strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]],
    ['remove a missing member', { a: 1 }, [{ op: 'remove', path: '/b' }]],
    ['replace a missing member', { a: 1 }, [{ op: 'replace', path: '/b', value: 1 }]],
    ['array index past the end', { a: [1] }, [{ op: 'add', path: '/a/2', value: 1 }]],
    ['leading-zero index', { a: [1, 2] }, [{ op: 'remove', path: '/a/01' }]],
    ['remove with -', { a: [1] }, [{ op: 'remove', path: '/a/-' }]],
    ['move into own child', { a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]],
    ['A.13 invalid op', { a: 1 }, [{ op: 'nope', path: '/a' }]],
    ['missing value', { a: 1 }, [{ op: 'add', path: '/b' }]],
    ['missing from', { a: 1 }, [{ op: 'copy', path: '/b' }]],
    ['not an array', { a: 1 }, { op: 'add', path: '/b', value: 1 }],
  ];
  for (const [name, doc, ops] of failures) {
    it(`fails: ${name}`, () => {
      assert.throws(() => applyJsonPatch(doc, ops as JsonPatchOperation[]), PatchError);
    });
  }

  it('applies nothing when a later operation fails', () => {
    const doc = { a: 1 };
    assert.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 5 }]));
    assert.deepEqual(doc, { a: 1 });
  });
});

describe('applyMergePatch (RFC 7386 appendix A)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) {
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () => {
      const before = structuredClone(target);
      assert.deepEqual(applyMergePatch(target, patch), want);
      assert.deepEqual(target, before, 'target not mutated');
    });
  }
});

describe('createMergePatch', () => {
  it('diffs objects recursively, nulls removed members, replaces arrays', () => {
    const a = { spec: { replicas: 1, keep: true, tags: ['x'], gone: 1 }, meta: { n: 1 } };
    const b = { spec: { replicas: 2, keep: true, tags: ['x', 'y'] }, meta: { n: 1 }, extra: { z: 1 } };
    const p = createMergePatch(a, b);
    assert.deepEqual(p, { spec: { replicas: 2, tags: ['x', 'y'], gone: null }, extra: { z: 1 } });
    assert.deepEqual(applyMergePatch(a, p), b);
    assert.deepEqual(createMergePatch(a, structuredClone(a)), {});
  });
});
