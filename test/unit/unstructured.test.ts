import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  nestedBool, nestedField, NestedFieldError, nestedInt64, nestedMap, nestedNumber, nestedSlice, nestedString, nestedStringMap,
  nestedStringSlice, removeNestedField, setNestedField,
} from '@kubegen/runtime/internal/dynamic/nested.js';
import type { Nested } from '@kubegen/runtime/internal/dynamic/nested.js';
import { isValidPathSegmentName, pathSegmentErrors } from '@kubegen/runtime/internal/dynamic/path-segment.js';
import {
  fromUnstructured, groupVersionKindOf, isObjectOfKind, setListItemKinds, toUnstructured,
} from '@kubegen/runtime/internal/dynamic/unstructured.js';
import type { Unstructured } from '@kubegen/runtime/internal/dynamic/unstructured.js';

const obj = (): Unstructured => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, finalizers: ['a', 'b'] },
  spec: {
    replicas: 3,
    ratio: 0.5,
    paused: false,
    strategy: null,
    selector: { matchLabels: { app: 'web' } },
    template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    bad: { a: 'x', n: 1 },
    mixed: ['x', 2],
    name: 'dep',
  },
});

type Getter = (o: object, ...f: string[]) => Nested<unknown>;
/** [getter, name, path, expected]: the value found; `undefined`: not found, no error; a RegExp: not found, with that error. */
const table: [Getter, string, string[], unknown][] = [
  [nestedField, 'nestedField', ['spec', 'replicas'], 3],
  [nestedField, 'nestedField', ['spec', 'strategy'], null],
  [nestedField, 'nestedField', [], undefined], // the object itself, checked below
  [nestedField, 'nestedField', ['spec', 'missing', 'deeper'], undefined],
  [nestedField, 'nestedField', ['spec', 'strategy', 'type'], undefined],
  [nestedField, 'nestedField', ['spec', 'replicas', 'x'], /^\.spec\.replicas\.x accessor error: 3 is of the type number, expected map$/],
  [nestedField, 'nestedField', ['spec', 'template', 'spec', 'containers', '0'], /\.spec\.template\.spec\.containers\.0 accessor error: \[\{"name":"c","image":"nginx"\}\] is of the type array, expected map/],
  [nestedField, 'nestedField', ['constructor'], undefined],
  [nestedField, 'nestedField', ['metadata', '__proto__'], undefined],
  [nestedString, 'nestedString', ['spec', 'name'], 'dep'],
  [nestedString, 'nestedString', ['spec', 'replicas'], /^\.spec\.replicas accessor error: 3 is of the type number, expected string$/],
  [nestedString, 'nestedString', ['spec', 'strategy'], /is of the type null, expected string/],
  [nestedString, 'nestedString', ['spec', 'nope'], undefined],
  [nestedBool, 'nestedBool', ['spec', 'paused'], false],
  [nestedBool, 'nestedBool', ['spec', 'name'], /"dep" is of the type string, expected bool/],
  [nestedNumber, 'nestedNumber', ['spec', 'ratio'], 0.5],
  [nestedNumber, 'nestedNumber', ['spec', 'replicas'], 3],
  [nestedNumber, 'nestedNumber', ['spec', 'paused'], /false is of the type boolean, expected number/],
  [nestedInt64, 'nestedInt64', ['spec', 'replicas'], 3],
  [nestedInt64, 'nestedInt64', ['spec', 'ratio'], /0\.5 is of the type number, expected int64/],
  [nestedMap, 'nestedMap', ['spec', 'selector'], { matchLabels: { app: 'web' } }],
  [nestedMap, 'nestedMap', ['spec', 'mixed'], /is of the type array, expected map/],
  [nestedMap, 'nestedMap', ['spec', 'strategy'], /is of the type null, expected map/],
  [nestedSlice, 'nestedSlice', ['spec', 'mixed'], ['x', 2]],
  [nestedSlice, 'nestedSlice', ['spec', 'selector'], /is of the type map, expected array/],
  [nestedStringMap, 'nestedStringMap', ['metadata', 'labels'], { app: 'web', tier: 'front' }],
  [nestedStringMap, 'nestedStringMap', ['spec', 'bad'], /^\.spec\.bad accessor error: contains non-string value in the map under key "n": 1 is of the type number, expected string$/],
  [nestedStringMap, 'nestedStringMap', ['spec', 'name'], /is of the type string, expected map/],
  [nestedStringSlice, 'nestedStringSlice', ['metadata', 'finalizers'], ['a', 'b']],
  [nestedStringSlice, 'nestedStringSlice', ['spec', 'mixed'], /contains non-string value in the slice at index 1: 2 is of the type number, expected string/],
];

describe('nested getters (apimachinery found, err)', () => {
  for (const [get, name, path, expected] of table) {
    it(`${name}(${path.join(', ')}) → ${expected instanceof RegExp ? `error ${expected.source}` : JSON.stringify(expected)}`, () => {
      const o = obj();
      const got = get(o, ...path);
      if (path.length === 0) {
        assert.equal(got.found, true);
        assert.equal(got.value, o);
      } else if (expected instanceof RegExp) {
        assert.equal(got.found, false);
        assert.ok(got.error instanceof NestedFieldError, 'an error is reported');
        assert.match(got.error.message, expected);
      } else if (expected === undefined) {
        assert.deepEqual(got, { found: false });
      } else {
        assert.equal(got.found, true, got.error?.message);
        assert.deepEqual(got.value, expected);
        assert.equal(got.error, undefined);
      }
    });
  }

  it('nestedField returns the value itself; nestedMap, nestedSlice, nestedStringMap and nestedStringSlice return copies', () => {
    const o = obj();
    const sel = nestedField(o, 'spec', 'selector');
    assert.equal(sel.value, (o['spec'] as Record<string, unknown>)['selector']);
    for (const got of [nestedMap(o, 'spec', 'selector'), nestedSlice(o, 'spec', 'mixed'), nestedStringMap(o, 'metadata', 'labels'), nestedStringSlice(o, 'metadata', 'finalizers')]) {
      assert.ok(got.found);
      const v = got.value as Record<string, unknown>;
      v['added'] = 1;
    }
    assert.deepEqual(o, obj(), 'the object is unchanged');
  });

  it('the error names the path', () => {
    const got = nestedString(obj(), 'spec', 'replicas');
    assert.equal(got.error?.path, '.spec.replicas');
  });
});

describe('setNestedField and removeNestedField', () => {
  it('sets a copy, creating the maps on the way', () => {
    const o: Unstructured = { metadata: { name: 'a' } };
    const value = { list: [1, 2] };
    setNestedField(o, value, 'spec', 'template', 'data');
    assert.deepEqual(o['spec'], { template: { data: { list: [1, 2] } } });
    value.list.push(3);
    assert.deepEqual(nestedSlice(o, 'spec', 'template', 'data', 'list').value, [1, 2], 'the value was copied');
    setNestedField(o, 'b', 'metadata', 'name');
    assert.equal(o.metadata!.name, 'b');
  });

  it('refuses to go through a value that is not a map (null and arrays included)', () => {
    const o = obj();
    assert.throws(() => setNestedField(o, 1, 'spec', 'replicas', 'x'), (e: unknown) => e instanceof NestedFieldError && /value cannot be set because \.spec\.replicas is not a map \(it is of the type number\)/.test(e.message));
    assert.throws(() => setNestedField(o, 1, 'spec', 'strategy', 'type'), /\.spec\.strategy is not a map \(it is of the type null\)/);
    assert.throws(() => setNestedField(o, 1, 'spec', 'mixed', '0'), /\.spec\.mixed is not a map \(it is of the type array\)/);
    assert.throws(() => setNestedField(o, 1), /at least one field/);
    assert.deepEqual(o, obj(), 'nothing changed');
  });

  it('never sets a prototype: __proto__ is an own key', () => {
    const o: Unstructured = {};
    setNestedField(o, { polluted: true }, '__proto__', 'x');
    setNestedField(o, 'y', 'a', '__proto__');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(nestedField(o, '__proto__', 'x').value, { polluted: true });
    assert.equal(nestedString(o, 'a', '__proto__').value, 'y');
  });

  it('removes a field, saying whether there was one', () => {
    const o = obj();
    assert.equal(removeNestedField(o, 'spec', 'selector', 'matchLabels', 'app'), true);
    assert.deepEqual(nestedMap(o, 'spec', 'selector').value, { matchLabels: {} });
    assert.equal(removeNestedField(o, 'spec', 'selector', 'matchLabels', 'app'), false);
    assert.equal(removeNestedField(o, 'spec', 'missing', 'x'), false);
    assert.equal(removeNestedField(o, 'spec', 'replicas', 'x'), false, 'a non-map on the way removes nothing');
    assert.equal(removeNestedField(o, 'constructor'), false);
    assert.equal(removeNestedField(o), false);
  });
});

describe('typed conversions', () => {
  const gvk = { group: 'apps', version: 'v1', kind: 'Deployment' };
  interface Deployment {
    apiVersion?: string;
    kind?: string;
    metadata?: { name?: string };
    spec?: { replicas?: number };
  }

  it('fromUnstructured checks apiVersion and kind and returns a copy', () => {
    const o = obj();
    const d = fromUnstructured<Deployment>(o, gvk);
    assert.equal(d.spec!.replicas, 3);
    d.spec!.replicas = 9;
    assert.equal((o['spec'] as { replicas: number }).replicas, 3);
    assert.throws(() => fromUnstructured<Deployment>(o, { ...gvk, version: 'v2' }), /expected an object of kind Deployment\.apps\/v2, found Deployment web of apiVersion apps\/v1/);
    assert.throws(() => fromUnstructured<Deployment>({ metadata: {} }, gvk), /found \(no kind\) of apiVersion \(none\)/);
    assert.throws(() => fromUnstructured({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } }, gvk), /found ConfigMap ns\/c of apiVersion v1/);
  });

  it('isObjectOfKind is a type guard on apiVersion and kind; groupVersionKindOf splits them', () => {
    assert.equal(isObjectOfKind<Deployment>(obj(), gvk), true);
    assert.equal(isObjectOfKind(obj(), { group: '', version: 'v1', kind: 'Deployment' }), false);
    assert.equal(isObjectOfKind({ apiVersion: 'v1', kind: 'Pod' }, { group: '', version: 'v1', kind: 'Pod' }), true);
    assert.deepEqual(groupVersionKindOf(obj()), gvk);
    assert.deepEqual(groupVersionKindOf({ apiVersion: 'v1', kind: 'Pod' }), { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(groupVersionKindOf({}), { group: '', version: '', kind: '' });
  });

  it('toUnstructured copies, fills in a missing apiVersion/kind and refuses a different one', () => {
    const typed: Deployment = { metadata: { name: 'd' }, spec: { replicas: 1 } };
    const u = toUnstructured(typed, gvk);
    assert.deepEqual(u, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 } });
    (u['spec'] as { replicas: number }).replicas = 2;
    assert.equal(typed.spec!.replicas, 1);
    assert.deepEqual(toUnstructured(typed), typed);
    assert.throws(() => toUnstructured({ apiVersion: 'apps/v1', kind: 'StatefulSet' }, gvk), /expected an object of kind Deployment\.apps\/v1, found StatefulSet/);
  });

  it('setListItemKinds stamps items that have neither apiVersion nor kind', () => {
    const list = setListItemKinds({ apiVersion: 'apps/v1', kind: 'DeploymentList', items: [{}, { kind: 'X' }, { apiVersion: 'y/v1' }] });
    assert.deepEqual(list.items.map((i) => [i.apiVersion, i.kind]), [['apps/v1', 'Deployment'], [undefined, 'X'], ['y/v1', undefined]]);
    const generic = setListItemKinds({ apiVersion: 'v1', kind: 'List', items: [{}] });
    assert.deepEqual(generic.items[0], {}, 'a generic List names no item kind');
  });
});

describe('path segments (client-go rest.IsValidPathSegmentName)', () => {
  for (const [name, errors] of [
    ['ok-name', []],
    ['', []],
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['a/%', ["may not contain '/'", "may not contain '%'"]],
    ['...', []],
  ] as [string, string[]][]) {
    it(`${JSON.stringify(name)} → ${errors.length ? errors.join(', ') : 'valid'}`, () => {
      assert.deepEqual(pathSegmentErrors(name), errors);
      assert.equal(isValidPathSegmentName(name), errors.length === 0);
    });
  }
});
