import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emitDeepCopy } from 'kubegen/internal/generate/deepcopy/index.js';
import { HEADER, jsDoc, propertyKey, uniqueName } from 'kubegen/internal/generate/emit-util.js';
import { emitTypes } from 'kubegen/internal/generate/types/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import type { GroupVersion } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Writes files into dist/tmp-types-test/<name> and type-checks them (strict); returns tsc's output ('' = ok). */
function typeCheck(name: string, files: Record<string, string>): string {
  const dir = join(repo, 'dist/tmp-types-test', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The shim re-exports only the self-contained runtime modules generated code uses, so other files mid-edit don't matter.
  writeFileSync(join(dir, 'runtime-shim.ts'), `export type { ObjectMeta, ListMeta, IntOrString } from ${JSON.stringify(join(repo, 'packages/runtime/src/client/types.js'))};\nexport { deepCopyJSON, setOwnKey } from ${JSON.stringify(join(repo, 'packages/runtime/src/deepcopy.js'))};\n`);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  const tsconfig = {
    compilerOptions: {
      strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023'], types: ['node'],
      skipLibCheck: true, verbatimModuleSyntax: true, noUnusedLocals: true, exactOptionalPropertyTypes: true,
      paths: { '@kubegen/runtime': ['./runtime-shim.ts'] },
    },
    include: ['**/*.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  try {
    execFileSync(join(repo, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${err.stdout ?? ''}${err.stderr ?? ''}` || String(e);
  }
}

async function edgeGv(): Promise<GroupVersion> {
  const model = await parseCrdPaths([join(repo, 'fixtures/edge/schema-edge-cases.yaml')]);
  return groupVersions(model)[0]!;
}

function gvOf(text: string): GroupVersion {
  return groupVersions({ resources: parseCrdText(text, 'inline.yaml') })[0]!;
}

describe('emitTypes', () => {
  it('emits the header, runtime imports, root and list interfaces', async () => {
    const out = emitTypes(await edgeGv());
    assert.ok(out.startsWith(`${HEADER}\n`));
    assert.match(out, /^import type \{ ObjectMeta, ListMeta, IntOrString \} from "@kubegen\/runtime";$/m);
    assert.match(out, /export interface Widget \{\n  apiVersion\?: "edge\.example\.com\/v1";\n  kind\?: "Widget";\n  metadata\?: ObjectMeta;\n/);
    assert.match(out, /export interface WidgetList \{\n  apiVersion\?: "edge\.example\.com\/v1";\n  kind\?: "WidgetList";\n  metadata\?: ListMeta;\n  items: Widget\[\];\n\}/);
    assert.match(out, /  operation\?: WidgetOperation;/, 'top-level fields other than spec/status are kept');
    assert.equal(emitTypes(await edgeGv(), { runtimeImport: '../rt.js' }).includes('from "../rt.js"'), true);
  });

  it('maps every schema edge case', async () => {
    const out = emitTypes(await edgeGv());
    const expect = [
      '  port: IntOrString;',
      '  maxUnavailable?: IntOrString;',
      '  targetPorts?: IntOrString[];',
      '  freeObject?: { [key: string]: unknown };',
      '  freeAny?: unknown;',
      '  freeList?: unknown[];',
      '  freeMap?: { [key: string]: unknown };',
      '  knownAndFree?: WidgetSpecKnownAndFree;',
      '  labels?: { [key: string]: string };',
      '  mapOfMap?: { [key: string]: { [key: string]: string } };',
      '  mapOfInt?: { [key: string]: number };',
      '  mapOfList?: { [key: string]: string[] };',
      '  mapOfStruct?: { [key: string]: WidgetSpecMapOfStruct };',
      '  empty?: { [key: string]: unknown };',
      '  anything?: unknown;',
      '  mode?: "=" | "!=" | "=~" | "on" | "yes" | "\\"); process.exit(1); //";',
      '  statusCode?: 301 | 302;',
      '  maybe?: string | null;',
      '  ambassadorId?: string | string[];',
      '  matrix?: string[][];',
      '  noItems?: unknown[];',
      '  bounded?: string[];',
      '  "__proto__"?: string;',
      '  constructor?: string | {}["constructor"];',
      '  for?: string;',
      '  "nat-outgoing"?: boolean;',
      '  natOutgoing?: boolean;',
      '  "*/ weird key"?: string;',
      '  livenessProbe?: WidgetSpecProbe;',
      '  readinessProbe?: WidgetSpecProbe;',
    ];
    for (const line of expect) assert.ok(out.includes(`\n${line}\n`), `missing line: ${line}`);
    assert.match(out, /export interface WidgetSpecKnownAndFree \{\n  known\?: string;\n  \[key: string\]: unknown;\n\}/);
    assert.match(out, /export interface WidgetSpecTemplate \{\n  apiVersion\?: string;\n  kind\?: string;\n  metadata\?: ObjectMeta;\n  \[key: string\]: unknown;\n\}/);
    assert.match(out, /Validation: exactly one of \(has `matchLabels`\), \(has `matchExpressions`\) must hold\.\s*\*\/\nexport interface WidgetSpecSelector \{/);
    assert.match(out, /export interface WidgetSpecLoadBalancer \{\n  simple\?: string;\n  consistentHash\?: WidgetSpecLoadBalancerConsistentHash;\n\}/);
    assert.match(out, /   \* @default 3\n   \*\/\n  withDefault\?: number;/);
    assert.doesNotMatch(out, /\[string, string/, 'minItems/maxItems never become tuples');
    assert.doesNotMatch(out, /interface WidgetSpec(Liveness|Readiness)Probe/, 'identical schemas share one type, named for what the fields have in common');
  });

  it('never lets input text escape into code', async () => {
    const out = emitTypes(await edgeGv());
    // The only `*/` outside JSDoc openers are the JSDoc closers and the quoted key.
    assert.ok(out.includes(' * Widget is hostile *\\/ process.exit(1); /* on purpose.\n * \\@internal second line\n'));
    assert.doesNotMatch(out, /\r/);
    const withoutComments = out.replace(/\/\*\*[\s\S]*?\*\//g, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');
    assert.doesNotMatch(withoutComments, /process\.exit/);
    assert.equal(typeCheck('edge-types', { 'edge.example.com/v1/types.ts': out }), '');
  });

  it('produces types that accept valid objects and reject invalid ones', async () => {
    const gv = await edgeGv();
    const use = `import type { Widget, WidgetList } from './edge.example.com/v1/types.js';
const w: Widget = {
  apiVersion: 'edge.example.com/v1', kind: 'Widget', metadata: { name: 'a' },
  spec: { port: '8080', targetPorts: [80, 'http'], freeAny: 1, knownAndFree: { known: 'k', extra: [1] },
    template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }, mode: '=', statusCode: 301,
    maybe: null, ambassadorId: ['a'], constructor: 'c', matrix: [['a']], 'nat-outgoing': true, mapOfStruct: { a: { size: 1 } } },
};
const l: WidgetList = { items: [w] };
// @ts-expect-error enum values are a closed union
const bad1: Widget = { spec: { port: 1, mode: 'nope' } };
// @ts-expect-error integer enum
const bad2: Widget = { spec: { port: 1, statusCode: 200 } };
// @ts-expect-error required port
const bad3: Widget = { spec: {} };
// @ts-expect-error apiVersion is a literal
const bad4: Widget = { apiVersion: 'other/v1' };
export { w, l, bad1, bad2, bad3, bad4 };
`;
    assert.equal(typeCheck('edge-use', { 'edge.example.com/v1/types.ts': emitTypes(gv), 'edge.example.com/v1/deepcopy.ts': emitDeepCopy(gv), 'use.ts': use }), '');
  });

  it('is deterministic', async () => {
    assert.equal(emitTypes(await edgeGv()), emitTypes(await edgeGv()));
  });

  it('marks deprecated versions and keeps names out of reserved words, globals and runtime names', () => {
    const text = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: weaks.x.io }
spec:
  group: x.io
  names: { kind: Weak, plural: weaks }
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      deprecated: true
      deprecationWarning: "x.io/v1 Weak is deprecated */ now"
      schema:
        openAPIV3Schema:
          type: object
          properties:
            Set: { type: object, properties: { a: { type: string } } }
            List: { type: object, properties: { b: { type: string } } }
            "": { type: object, properties: { c: { type: string } } }
`;
    const out = emitTypes(gvOf(text));
    assert.match(out, /\/\*\* @deprecated x\.io\/v1 Weak is deprecated \*\\\/ now \*\/\nexport interface Weak \{/);
    assert.match(out, /  Set\?: WeakSetField;/, 'a global: …Field, not a number');
    assert.match(out, /  List\?: WeakListField;/, 'the list type: …Field');
    assert.match(out, /  ""\?: WeakField;/);
    assert.equal(typeCheck('reserved', { 'types.ts': out }), '');
  });
});

describe('emit-util', () => {
  it('quotes keys, escapes JSDoc and picks unique names', () => {
    assert.equal(propertyKey('abc'), 'abc');
    assert.equal(propertyKey('a-b'), '"a-b"');
    assert.equal(propertyKey('__proto__'), '"__proto__"');
    assert.equal(propertyKey('x"); y('), '"x\\"); y("');
    assert.equal(jsDoc({ description: 'a */ b' }), '/** a *\\/ b */\n');
    assert.equal(jsDoc({}), '');
    assert.equal(uniqueName('Object', new Set()), 'Object2');
    assert.equal(uniqueName('Foo', new Set(['Foo', 'Foo2'])), 'Foo3');
    assert.equal(uniqueName('delete', new Set()), 'delete2');
  });
});
