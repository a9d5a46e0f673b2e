/**
 * The controller-gen markers added to the TypeScript front end: package-level
 * `+kubebuilder:validation:Optional` / `Required` (the default for unmarked fields, per folder), array item markers
 * `+kubebuilder:validation:items:<Name>`, and the type-level union markers `ExactlyOneOf` / `AtMostOneOf` /
 * `AtLeastOneOf` (CEL rules with controller-gen's rule and message text). Golden CRD of `fixtures/apis/markers`:
 * `test/golden/apis/markers` (`UPDATE_GOLDEN=1` rewrites it).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { InputError } from 'kubegen/internal/model/index.js';
import { emitCrds } from 'kubegen/internal/generate/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { assertGolden } from '../support/golden.js';
import { fixture, REPO_ROOT } from '../support/paths.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-apis-markers-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

const PRELUDE = `import type { int32, float64, ObjectMeta, ListMeta } from '@kubegen/runtime';\n`;

/**
 * Writes apis/things/v1 with a `doc.ts` of `docMarkers`, the root kind Thing (spec: ThingSpec) and `body`, plus
 * `extra` files (paths under apis/); returns the spec schema.
 */
async function specSchema(body: string, docMarkers = '', extra: Record<string, string> = {}): Promise<JSONSchemaProps> {
  const root = path.join(tmp, `case${n++}`, 'apis');
  const dir = path.join(root, 'things', 'v1');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'doc.ts'), `/**\n * +groupName=things.example.com\n${docMarkers.split('\n').filter(Boolean).map((l) => ` * ${l}\n`).join('')} */\nexport {};\n`);
  fs.writeFileSync(path.join(dir, 'types.ts'), `${PRELUDE}
/** +kubebuilder:object:root=true */
export interface Thing { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: ThingSpec }
export interface ThingList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: Thing[] }
${body}
`);
  for (const [f, text] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  }
  const model = await parseApis(root);
  return model.resources[0]!.versions[0]!.schema.properties!['spec']!;
}

async function specError(body: string, docMarkers = ''): Promise<string> {
  try {
    await specSchema(body, docMarkers);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e.message;
  }
  assert.fail('expected an InputError');
}

describe('package-level +kubebuilder:validation:Optional / Required', () => {
  const spec = `
import type { Ref } from '../../shared/ref.js';
export interface ThingSpec {
  plain: string;
  question?: string;
  /** +required */
  k8sRequired: string;
  /** +kubebuilder:validation:Required */
  kbRequired: string;
  /** +k8s:required */
  k8sTagRequired?: string;
  /** +optional */
  k8sOptional: string;
  /** +kubebuilder:validation:Optional */
  kbOptional: string;
  /** +k8s:optional */
  k8sTagOptional: string;
  nested: { inner: string };
  ref: Ref;
}`;
  const shared = { 'shared/ref.ts': 'export interface Ref { name: string; /** +optional */ ns: string }\n' };

  it('makes unmarked fields of the folder optional; explicit markers still decide; other folders keep the default', async () => {
    const s = await specSchema(spec, '+kubebuilder:validation:Optional', shared);
    assert.deepEqual(s.required, ['k8sRequired', 'kbRequired', 'k8sTagRequired']);
    assert.equal(s.properties!['nested']!.required, undefined, 'inline objects of the folder follow its default');
    assert.deepEqual(s.properties!['ref']!.required, ['name'], 'apis/shared has no package marker: required by default');
  });

  it('keeps required-by-default without a marker and with an explicit package-level Required', async () => {
    const want = ['plain', 'k8sRequired', 'kbRequired', 'k8sTagRequired', 'nested', 'ref'];
    assert.deepEqual((await specSchema(spec, '', shared)).required, want);
    assert.deepEqual((await specSchema(spec, '+kubebuilder:validation:Required', shared)).required, want);
    assert.deepEqual((await specSchema(spec, '+kubebuilder:validation:Required', shared)).properties!['nested']!.required, ['inner']);
  });

  it('reads the package marker from any file of the folder, also when the leading block documents a declaration', async () => {
    const body = `/**\n * +kubebuilder:validation:Optional\n */\nexport interface ThingSpec { a: string; /** +required */ b: string }`;
    const root = path.join(tmp, `case${n++}`, 'apis');
    const dir = path.join(root, 'things', 'v1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'doc.ts'), '/** +groupName=things.example.com */\nexport {};\n');
    fs.writeFileSync(path.join(dir, 'spec.ts'), body);
    fs.writeFileSync(path.join(dir, 'types.ts'), `${PRELUDE}import type { ThingSpec } from './spec.js';
/** +kubebuilder:object:root=true */
export interface Thing { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: ThingSpec }
export interface ThingList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: Thing[] }
`);
    const model = await parseApis(root);
    const s = model.resources[0]!.versions[0]!.schema.properties!['spec']!;
    assert.deepEqual(s.required, ['b']);
  });

  it('refuses conflicting package markers and the markers on a type declaration', async () => {
    assert.match(
      await specError('export interface ThingSpec { a: string }', '+kubebuilder:validation:Optional\n+kubebuilder:validation:Required'),
      /doc\.ts:4:4: conflicting package markers \+kubebuilder:validation:Optional and \+kubebuilder:validation:Required/,
    );
    assert.match(
      await specError('/** +kubebuilder:validation:Optional */\nexport interface ThingSpec { a: string }'),
      /types\.ts:6:5: marker \+kubebuilder:validation:Optional is not allowed on type ThingSpec/,
    );
  });
});

describe('+kubebuilder:validation:items:<Name>', () => {
  it('applies every validation marker to the items of an array field', async () => {
    const s = await specSchema(`
/**
 * +kubebuilder:validation:items:MaxLength=5
 * +kubebuilder:validation:items:Pattern=\`^[a-z]+$\`
 */
export type Names = string[];
export interface ThingSpec {
  /**
   * +kubebuilder:validation:items:MinLength=1
   * +kubebuilder:validation:items:MaxLength=10
   * +kubebuilder:validation:items:Pattern=\`^[a-z]+$\`
   * +kubebuilder:validation:items:Format=hostname
   * +kubebuilder:validation:items:Enum=a;bb;ccc
   * +kubebuilder:validation:MaxItems=3
   */
  strs?: string[];
  /**
   * +kubebuilder:validation:items:Minimum=0
   * +kubebuilder:validation:items:Maximum=10
   * +kubebuilder:validation:items:ExclusiveMinimum=true
   * +kubebuilder:validation:items:ExclusiveMaximum=false
   * +kubebuilder:validation:items:MultipleOf=0.5
   */
  nums?: float64[];
  /**
   * +kubebuilder:validation:items:MinItems=1
   * +kubebuilder:validation:items:MaxItems=2
   * +kubebuilder:validation:items:UniqueItems=true
   */
  grid?: int32[][];
  /**
   * +kubebuilder:validation:items:MinProperties=1
   * +kubebuilder:validation:items:MaxProperties=4
   */
  maps?: Record<string, string>[];
  /**
   * +kubebuilder:validation:items:Type=object
   * +kubebuilder:validation:items:XPreserveUnknownFields
   * +kubebuilder:validation:items:XEmbeddedResource
   */
  raws?: unknown[];
  /** +kubebuilder:validation:items:XIntOrString */
  ports?: string[];
  /** +kubebuilder:validation:items:XValidation:rule="self.a < 5",message="a is small" */
  objs?: { a: int32 }[];
  /** +kubebuilder:validation:items:MaxLength=3 */
  names?: Names;
}`);
    const p = s.properties!;
    assert.deepEqual(p['strs'], { type: 'array', maxItems: 3, items: { type: 'string', minLength: 1, maxLength: 10, pattern: '^[a-z]+$', format: 'hostname', enum: ['a', 'bb', 'ccc'] } });
    assert.deepEqual(p['nums']!.items, { type: 'number', minimum: 0, maximum: 10, exclusiveMinimum: true, exclusiveMaximum: false, multipleOf: 0.5 });
    assert.deepEqual(p['grid']!.items, { type: 'array', minItems: 1, maxItems: 2, uniqueItems: true, items: { type: 'integer', format: 'int32' } });
    assert.deepEqual(p['maps']!.items, { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1, maxProperties: 4 });
    assert.deepEqual(p['raws']!.items, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true });
    assert.deepEqual(p['ports']!.items, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    assert.deepEqual(p['objs']!.items!['x-kubernetes-validations'], [{ rule: 'self.a < 5', message: 'a is small' }]);
    assert.deepEqual(p['names']!.items, { type: 'string', maxLength: 3, pattern: '^[a-z]+$' }, 'type-level items markers, the field one winning');
  });

  it('refuses unknown item markers and item markers on a field that is not an array', async () => {
    assert.match(
      await specError('export interface ThingSpec {\n  /** +kubebuilder:validation:items:Maximun=3 */\n  a?: int32[];\n}'),
      /types\.ts:7:7: unknown marker \+kubebuilder:validation:items:Maximun$/,
    );
    assert.match(
      await specError('export interface ThingSpec {\n  /** +kubebuilder:validation:items:Optional */\n  a?: int32[];\n}'),
      /types\.ts:7:7: unknown marker \+kubebuilder:validation:items:Optional$/,
    );
    assert.match(
      await specError('export interface ThingSpec {\n  /** +kubebuilder:validation:items:Maximum=ten */\n  a?: int32[];\n}'),
      /types\.ts:7:7: malformed marker .*expected a number/,
    );
    assert.match(
      await specError('export interface ThingSpec {\n  /** +kubebuilder:validation:items:Maximum=3 */\n  a?: int32;\n}'),
      /types\.ts:7:7: marker \+kubebuilder:validation:items:Maximum applies to array items, but the type here is integer, not an array$/,
    );
  });
});

describe('union markers (ExactlyOneOf, AtMostOneOf, AtLeastOneOf)', () => {
  it("emits controller-gen's CEL rules and messages after the XValidation rules, in controller-gen's order", async () => {
    const s = await specSchema(`
export interface Base { a?: string; b?: string }
/**
 * +kubebuilder:validation:AtLeastOneOf=a;c
 * +kubebuilder:validation:ExactlyOneOf=a;b
 * +kubebuilder:validation:XValidation:rule="true",message="first"
 * +kubebuilder:validation:AtMostOneOf=c;d;e
 * +kubebuilder:validation:ExactlyOneOf=d
 */
export interface ThingSpec extends Base { c?: string; d?: int32; e?: string[] }`);
    assert.deepEqual(s['x-kubernetes-validations'], [
      { rule: 'true', message: 'first' },
      { rule: '[has(self.c),has(self.d),has(self.e)].filter(x,x==true).size() <= 1', message: 'at most one of the fields in [c d e] may be set' },
      { rule: '[has(self.a),has(self.b)].filter(x,x==true).size() == 1', message: 'exactly one of the fields in [a b] must be set' },
      { rule: '[has(self.d)].filter(x,x==true).size() == 1', message: 'exactly one of the fields in [d] must be set' },
      { rule: '[has(self.a),has(self.c)].filter(x,x==true).size() >= 1', message: 'at least one of the fields in [a c] must be set' },
    ]);
  });

  it('refuses a union naming a missing field, an empty union, and a union on a field', async () => {
    assert.match(
      await specError('/** +kubebuilder:validation:ExactlyOneOf=a;z */\nexport interface ThingSpec { a?: string; b?: string }'),
      /types\.ts:6:5: marker \+kubebuilder:validation:ExactlyOneOf names field z, which this type does not have \(its fields: a, b\)$/,
    );
    assert.match(
      await specError('/** +kubebuilder:validation:AtMostOneOf= */\nexport interface ThingSpec { a?: string }'),
      /types\.ts:6:5: malformed marker .*needs at least one field name/,
    );
    assert.match(
      await specError('export interface ThingSpec {\n  /** +kubebuilder:validation:AtLeastOneOf=a */\n  o?: { a?: string };\n}'),
      /types\.ts:7:7: marker \+kubebuilder:validation:AtLeastOneOf is not allowed on a field \(o\)$/,
    );
  });
});

describe('markers fixture (fixtures/apis/markers)', () => {
  it('matches the golden CRD', async () => {
    const model = await parseApis(fixture('apis', 'markers', 'apis'));
    const files = emitCrds(model).map((f) => ({ path: `config/crd/bases/${f.path}`, content: f.content }));
    assertGolden(path.join(REPO_ROOT, 'test', 'golden', 'apis', 'markers'), files);
  });
});
