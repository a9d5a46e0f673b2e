import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emitDeepCopy, sampleFromSchema } from 'kubegen/internal/generate/deepcopy/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import type { GroupVersion } from 'kubegen/internal/model/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { deepCopyJSON } from '@kubegen/runtime/internal/deepcopy.js';

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const repo = join(distRoot, '..');
type Copier = (o: unknown) => unknown;

/** Generates the deepcopy module for `gv`, strips its types and imports it. */
async function load(gv: GroupVersion, name: string): Promise<Record<string, Copier>> {
  const dir = join(distRoot, 'tmp-deepcopy-test', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const runtime = relative(dir, join(repo, 'packages/runtime/dist/deepcopy.js')).split('\\').join('/');
  const ts = emitDeepCopy(gv, { runtimeImport: runtime });
  writeFileSync(join(dir, 'deepcopy.js'), stripTypeScriptTypes(ts));
  return (await import(pathToFileURL(join(dir, 'deepcopy.js')).href)) as Record<string, Copier>;
}

async function gvOf(file: string, kind: string): Promise<GroupVersion> {
  const model = await parseCrdPaths([join(repo, file)]);
  return groupVersions(model).find((g) => g.kinds.some((k) => k.resource.names.kind === kind))!;
}

/** Fails when `copy` shares any object or array with `orig`. */
function assertNoSharing(orig: unknown, copy: unknown, path = '$'): void {
  if (typeof orig !== 'object' || orig === null) return;
  assert.notEqual(copy, orig, `shared reference at ${path}`);
  for (const k of Object.keys(orig)) {
    assertNoSharing((orig as Record<string, unknown>)[k], (copy as Record<string, unknown>)[k], `${path}.${k}`);
  }
}

function widget(): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    port: 'http',
    targetPorts: [80, 'x'],
    freeObject: { a: { b: [1, { c: 2 }] } },
    freeAny: [{ deep: { er: true } }],
    freeList: [{ x: 1 }, 'y', null],
    freeMap: { k: { v: [1] } },
    knownAndFree: { known: 'k', unknownExtra: { keep: ['me'] } },
    template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] } },
    labels: { a: 'b' },
    mapOfMap: { a: { b: 'c' } },
    mapOfList: { a: ['x', 'y'] },
    mapOfStruct: { a: { size: 1, extra: { n: 1 } } },
    empty: { anything: { goes: 1 } },
    maybe: null,
    ambassadorId: ['a', 'b'],
    selector: { matchLabels: { a: 'b' }, matchExpressions: ['x'] },
    matrix: [['a', 'b'], ['c']],
    noItems: [{ q: 1 }],
    livenessProbe: { httpGet: { path: '/', port: 8080 } },
    notInSchema: { nested: { object: [1, 2] } },
  };
  Object.defineProperty(spec, '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
  return {
    apiVersion: 'edge.example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', labels: { a: 'b' }, managedFields: [{ fieldsV1: { 'f:spec': {} } }] },
    spec,
    status: { conditions: [{ type: 'Ready', status: 'True', extra: { x: 1 } }] },
    operation: { phase: 'Running' },
  };
}

describe('emitDeepCopy', () => {
  it('exports deepCopy<Kind> and deepCopy<Kind>List importing types from ./types.js', async () => {
    const text = emitDeepCopy(await gvOf('fixtures/edge/schema-edge-cases.yaml', 'Widget'));
    assert.match(text, /^import type \* as types from "\.\/types\.js";$/m);
    assert.match(text, /^export function deepCopyWidget\(src: types\.Widget\): types\.Widget \{$/m);
    assert.match(text, /^export function deepCopyWidgetList\(src: types\.WidgetList\): types\.WidgetList \{$/m);
    assert.match(text, /^import \{ deepCopyJSON \} from "@kubegen\/runtime";$/m);
    assert.match(text, /^export function deepCopyWidget\(src: types.Widget\): types.Widget \{\n  return deepCopyJSON\(src\);\n\}$/m);
    const noExt = emitDeepCopy(await gvOf('fixtures/edge/schema-edge-cases.yaml', 'Widget'), { importExtension: '' });
    assert.match(noExt, /from "\.\/types";/);
  });

  it('copies deeply: equal, nothing shared, unknown keys kept, __proto__ kept as an own key', async () => {
    const mod = await load(await gvOf('fixtures/edge/schema-edge-cases.yaml', 'Widget'), 'edge');
    const orig = widget();
    const snapshot = JSON.stringify(orig);
    const copy = mod['deepCopyWidget']!(orig) as Record<string, any>;
    assert.deepStrictEqual(copy as unknown, orig);
    assertNoSharing(orig, copy);
    assert.deepEqual(copy['spec']['knownAndFree']['unknownExtra'], { keep: ['me'] });
    assert.deepEqual(copy['spec']['notInSchema'], { nested: { object: [1, 2] } });
    assert.equal(Object.getPrototypeOf(copy['spec']), Object.prototype);
    assert.ok(Object.hasOwn(copy['spec'], '__proto__'));
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(Object.keys(copy['spec']), Object.keys(orig['spec'] as object), 'key order preserved');
    copy['spec']['template']['metadata']['labels']['a'] = 'changed';
    copy['spec']['matrix'][0].push('z');
    copy['spec']['freeObject']['a']['b'][1]['c'] = 99;
    copy['status']['conditions'][0]['extra']['x'] = 2;
    copy['metadata']['managedFields'][0]['fieldsV1']['f:spec']['new'] = 1;
    assert.equal(JSON.stringify(orig), snapshot, 'mutating the copy never changes the original');
    const list = { apiVersion: 'edge.example.com/v1', kind: 'WidgetList', metadata: { resourceVersion: '1' }, items: [orig, widget()] };
    const listCopy = mod['deepCopyWidgetList']!(list);
    assert.deepStrictEqual(listCopy, list);
    assertNoSharing(list, listCopy);
  });

  it('copies a large filled Prometheus object exactly', async () => {
    const gv = await gvOf('fixtures/crds/prometheus-operator/monitoring.coreos.com_prometheuses.yaml', 'Prometheus');
    const mod = await load(gv, 'prometheus');
    const kv = gv.kinds.find((k) => k.resource.names.kind === 'Prometheus')!;
    const obj = sampleFromSchema(kv.version.schema, { maxDepth: 8 }) as Record<string, unknown>;
    obj['metadata'] = { name: 'k8s', namespace: 'monitoring' };
    assert.ok(JSON.stringify(obj).length > 20_000, 'the sample is large');
    const copy = mod['deepCopyPrometheus']!(obj);
    assert.deepStrictEqual(copy, obj);
    assertNoSharing(obj, copy);
  });
});

describe('deepCopyJSON', () => {
  it('copies JSON values deeply and keeps primitives', () => {
    const v = { a: [1, { b: null, c: 'x' }], d: { e: true }, f: undefined };
    const c = deepCopyJSON(v);
    assert.deepStrictEqual(c, v);
    assertNoSharing(v, c);
    assert.equal(deepCopyJSON(5), 5);
    assert.equal(deepCopyJSON(null), null);
    const p = JSON.parse('{"__proto__": {"x": 1}}') as object;
    const pc = deepCopyJSON(p);
    assert.ok(Object.hasOwn(pc, '__proto__'));
    assert.equal(Object.getPrototypeOf(pc), Object.prototype);
  });
});
