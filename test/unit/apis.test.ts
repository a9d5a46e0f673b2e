/**
 * The TypeScript front end (`src/parse/typescript`): how TS types and markers map to schemas (controller-gen's rules),
 * the sample-controller Foo written as TypeScript against the upstream CRD, and the constructs that are refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { InputError } from 'kubegen/internal/model/index.js';
import { emitCrds } from 'kubegen/internal/generate/crd/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { QUANTITY_PATTERN } from 'kubegen/internal/model/known-types.js';
import { fixture, SAMPLE_CRD } from '../support/paths.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-apis-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** One line, so that the positions of errors in the test's types.ts stay put. */
const PRELUDE = `import type { int32, int64, integer, float64, IntOrString, Quantity, Time, Duration, RawExtension, ObjectMeta, ListMeta, Condition } from '@kubegen/runtime'; import type { LabelSelector } from '@kubegen/runtime/client';\n`;

/** Writes an apis folder with one version holding `body` (plus a root kind Thing whose spec is `ThingSpec`). */
async function specSchema(body: string, extraFiles: Record<string, string> = {}): Promise<JSONSchemaProps> {
  const root = path.join(tmp, `case${n++}`, 'apis');
  const dir = path.join(root, 'things', 'v1');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'doc.ts'), '/** +groupName=things.example.com */\nexport {};\n');
  fs.writeFileSync(path.join(dir, 'types.ts'), `${PRELUDE}
/** +kubebuilder:object:root=true */
export interface Thing { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: ThingSpec }
export interface ThingList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: Thing[] }
${body}
`);
  for (const [f, text] of Object.entries(extraFiles)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  }
  const model = await parseApis(root);
  return model.resources[0]!.versions[0]!.schema.properties!['spec']!;
}

async function specError(body: string): Promise<string> {
  try {
    await specSchema(body);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e.message;
  }
  assert.fail('expected an InputError');
}

describe('TypeScript types → schema', () => {
  it('maps primitives, widths, optionality, enums, maps, arrays and runtime types as controller-gen does', async () => {
    const s = await specSchema(`
export interface ThingSpec {
  name: string;
  count?: int32;
  big: int64 | undefined;
  plain?: integer;
  ratio?: float64;
  on?: boolean;
  mode?: 'A' | 'B';
  level?: 1 | 2;
  labels?: Record<string, string>;
  tags?: string[];
  port?: IntOrString;
  cpu?: Quantity;
  at?: Time;
  every?: Duration;
  raw?: RawExtension;
  any?: unknown;
  maybe?: string | null;
  sel?: LabelSelector;
  conds?: Condition[];
  idx?: { [key: string]: int32 };
}`);
    const p = s.properties!;
    assert.deepEqual(s.required, ['name']);
    assert.deepEqual(p['count'], { type: 'integer', format: 'int32' });
    assert.deepEqual(p['big'], { type: 'integer', format: 'int64' });
    assert.deepEqual(p['plain'], { type: 'integer' });
    assert.deepEqual(p['ratio'], { type: 'number' });
    assert.deepEqual(p['mode'], { type: 'string', enum: ['A', 'B'] });
    assert.deepEqual(p['level'], { type: 'integer', enum: [1, 2] });
    assert.deepEqual(p['labels'], { type: 'object', additionalProperties: { type: 'string' } });
    assert.deepEqual(p['tags'], { type: 'array', items: { type: 'string' } });
    assert.deepEqual(p['port'], { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
    assert.equal(p['cpu']!.pattern, QUANTITY_PATTERN);
    assert.deepEqual(p['at'], { type: 'string', format: 'date-time' });
    assert.deepEqual(p['every'], { type: 'string' });
    assert.deepEqual(p['raw'], { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(p['any'], { 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(p['maybe'], { type: 'string', nullable: true });
    assert.equal(p['sel']!['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(p['conds']!.items!.required, ['lastTransitionTime', 'message', 'reason', 'status', 'type']);
    assert.deepEqual(p['idx'], { type: 'object', additionalProperties: { type: 'integer', format: 'int32' } });
  });

  it('applies field and type markers, field markers winning, and strips them from descriptions', async () => {
    const s = await specSchema(`
/**
 * Replica count.
 *
 * +kubebuilder:validation:Minimum=1
 * +kubebuilder:validation:Maximum=5
 */
export type Count = int32;
export enum Color { Red = 'red', Blue = 'blue' }
/** Base fields. */
export interface Base { id: string }
/**
 * The spec.
 * +kubebuilder:validation:XValidation:rule="self.a.size() > 0",message="a, b: not empty",reason=FieldValueInvalid
 */
export interface ThingSpec extends Base {
  /**
   * How many.
   * +kubebuilder:validation:Maximum=3
   * +kubebuilder:default=2
   */
  a: Count;
  /** +required */
  b?: Count;
  /** +optional */
  c: Color;
  /**
   * +listType=map
   * +listMapKey=name
   * +kubebuilder:validation:MaxItems=4
   */
  items?: { name: string; /** +kubebuilder:validation:Pattern=\`^[a-z]+$\` */ v?: string }[];
  /** +kubebuilder:validation:Schemaless */
  free?: unknown;
  /** +kubebuilder:validation:EmbeddedResource */
  embedded?: RawExtension;
  /** +kubebuilder:validation:Enum=x;"y";3 */
  e?: string;
  /** +mapType=atomic */
  m?: Record<string, string>;
  /**
   * +kubebuilder:validation:Format=email
   * +kubebuilder:validation:MinLength=3
   * +nullable
   */
  mail?: string;
}`);
    const p = s.properties!;
    assert.equal(s.description, 'The spec.');
    assert.deepEqual(s['x-kubernetes-validations'], [{ rule: 'self.a.size() > 0', message: 'a, b: not empty', reason: 'FieldValueInvalid' }]);
    assert.deepEqual(s.required, ['id', 'a', 'b']);
    assert.deepEqual(p['a'], { type: 'integer', format: 'int32', description: 'How many.', minimum: 1, maximum: 3, default: 2 });
    assert.deepEqual(p['b'], { type: 'integer', format: 'int32', description: 'Replica count.', minimum: 1, maximum: 5 });
    assert.deepEqual(p['c'], { type: 'string', enum: ['red', 'blue'] });
    assert.equal(p['items']!['x-kubernetes-list-type'], 'map');
    assert.deepEqual(p['items']!['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(p['items']!.maxItems, 4);
    assert.equal(p['items']!.items!.properties!['v']!.pattern, '^[a-z]+$');
    assert.deepEqual(p['free'], {});
    assert.equal(p['embedded']!['x-kubernetes-embedded-resource'], true);
    assert.deepEqual(p['e']!.enum, ['x', 'y', '3']);
    assert.equal(p['m']!['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(p['mail'], { type: 'string', format: 'email', minLength: 3, nullable: true });
    assert.deepEqual(p['id'], { type: 'string' });
  });

  it('resolves imports across files and folders, and expands the built-in API\'s types (@kubegen/runtime/api/core/v1)', async () => {
    const s = await specSchema(
      `import type { Shared } from '../../shared/shared.js';
import type { PodTemplateSpec } from '@kubegen/runtime/api/core/v1';
export interface ThingSpec { shared: Shared; template?: PodTemplateSpec }`,
      { 'shared/shared.ts': "export type { Shared } from './inner.js';\n", 'shared/inner.ts': '/** Shared type. */\nexport interface Shared { x?: string }\n' },
    );
    assert.deepEqual(s.properties!['shared'], { type: 'object', properties: { x: { type: 'string' } }, description: 'Shared type.' });
    const pod = s.properties!['template']!.properties!['spec']!;
    const container = pod.properties!['containers']!.items!;
    assert.deepEqual(container.properties!['ports']!.items!.properties!['containerPort'], {
      type: 'integer',
      format: 'int32',
      description: "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.",
    });
    assert.deepEqual(container.properties!['ports']!['x-kubernetes-list-map-keys'], ['containerPort', 'protocol'], 'the markers of k8s.io/api, as controller-gen reads them');
    assert.equal(container.properties!['resources']!.properties!['limits']!.additionalProperties!.valueOf().constructor, Object);
    assert.equal((container.properties!['resources']!.properties!['limits']!.additionalProperties as JSONSchemaProps).pattern, QUANTITY_PATTERN);
    assert.deepEqual(s.properties!['template']!.properties!['metadata'], {
      type: 'object',
      description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    });
  });

  it("expands the runtime's core types (PodTemplateSpec, Container, …) as the built-in API's, and refuses @kubernetes/client-node models naming the replacement", async () => {
    const s = await specSchema(
      `import type { Container, PodTemplateSpec, Toleration } from '@kubegen/runtime/api/core/v1';
export interface ThingSpec { template?: PodTemplateSpec; sidecar?: Container; tolerations?: Toleration[] }`,
    );
    const viaRuntime = s.properties!['template']!;
    const viaApi = (await specSchema(`import type { PodTemplateSpec } from '@kubegen/runtime/api/core/v1';\nexport interface ThingSpec { template?: PodTemplateSpec }`)).properties!['template']!;
    assert.deepEqual(viaRuntime, viaApi);
    assert.match(
      await specError(`import type { V1PodTemplateSpec } from '@kubernetes/client-node';\nexport interface ThingSpec { template?: V1PodTemplateSpec }`),
      /cannot resolve V1PodTemplateSpec: kubegen types the built-in API itself; import PodTemplateSpec from '@kubegen\/runtime\/api\/core\/v1'/,
    );
    assert.equal(s.properties!['sidecar']!.properties!['image']!.type, 'string');
    assert.equal(s.properties!['tolerations']!.items!.properties!['tolerationSeconds']!.format, 'int64');
    assert.match(await specError(`import type { KubeClientset } from '@kubegen/runtime';\nexport interface ThingSpec { c?: KubeClientset }`), /KubeClientset from @kubegen\/runtime cannot be used in a schema/);
  });

  it('refuses what cannot be a structural schema, naming the construct and its location', async () => {
    assert.match(await specError('export interface ThingSpec { a: any }'), /types\.ts:6:\d+: any cannot be a schema/);
    assert.match(await specError('export interface ThingSpec { a: number }'), /number needs a numeric format: use int32, int64, integer or float64/);
    assert.match(await specError('export interface ThingSpec { a: { x: string } | { y: string } }'), /union .* cannot be a structural schema/);
    assert.match(await specError('export interface ThingSpec { a: Node }\nexport interface Node { next?: Node }'), /recursive type Node/);
    assert.match(await specError('export interface ThingSpec { a: Box<string> }\nexport interface Box<T> { v: T }'), /generic type Box<string> is not supported/);
    assert.match(await specError('export interface ThingSpec { a: C }\nexport class C { m() {} }'), /class C cannot be a schema/);
    assert.match(await specError('export interface ThingSpec { f(): void }'), /method f cannot be part of a schema/);
    assert.match(await specError('export interface ThingSpec { a: Missing }'), /cannot resolve type Missing/);
    assert.match(await specError('export interface ThingSpec { at?: Date }'), /types\.ts:6:\d+: Date cannot be a schema: .*use Time \(or MicroTime\) from '@kubegen\/runtime'/);
    assert.match(await specError('/** +kubebuilder:subresource:status */\nexport interface ThingSpec { a?: string; /** +kubebuilder:storageversion */ b?: string }'), /marker \+kubebuilder:storageversion is not allowed on a field \(b\)/);
    assert.match(await specError('export interface ThingSpec { /** +kubebuilder:validation:XValidation:message="m" */ a?: string }'), /malformed marker .*missing argument rule/);
  });
});

describe('a pod template through --apis (issue 38, item 5)', () => {
  it("writes into the CRD what controller-gen writes for a Go field of type corev1.PodTemplateSpec (agent-sandbox's CRD, controller-gen v0.21)", async () => {
    await specSchema(`import type { PodTemplateSpec } from '@kubegen/runtime/api/core/v1';\nexport interface ThingSpec { podTemplate: PodTemplateSpec }`);
    const [crd] = emitCrds(await parseApis(path.join(tmp, `case${n - 1}`, 'apis')));
    const template = parseCrdText(crd!.content, crd!.path)[0]!.versions[0]!.schema.properties!['spec']!.properties!['podTemplate']!;
    const pod = template.properties!['spec']!;
    assert.deepEqual(pod.required, ['containers']);
    const containers = pod.properties!['containers']!;
    assert.equal(containers['x-kubernetes-list-type'], 'map');
    assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
    assert.deepEqual(containers.items!.required, ['name']);
    const ports = containers.items!.properties!['ports']!;
    assert.equal(ports['x-kubernetes-list-type'], 'map');
    assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
    assert.deepEqual(ports.items!.required, ['containerPort']);
    assert.equal(ports.items!.properties!['protocol']!.default, 'TCP');
    assert.equal(containers.items!.properties!['envFrom']!.items!.properties!['configMapRef']!['x-kubernetes-map-type'], 'atomic', 'an embedded struct\'s +structType, as controller-gen flattens it');

    // Every node both have: the same type, format, required fields, list and map semantics, defaults and enums.
    const sandbox = (await parseCrdPaths([fixture('crds-wave5', 'agent-sandbox', 'agents.x-k8s.io_sandboxes.yaml')])).resources[0]!;
    const theirs = sandbox.versions[0]!.schema.properties!['spec']!.properties!['podTemplate']!.properties!['spec']!;
    const KEYS = ['type', 'format', 'required', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'default', 'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields', 'enum', 'nullable'] as const;
    const differences: string[] = [];
    let compared = 0;
    const walk = (a: JSONSchemaProps, b: JSONSchemaProps, at: string): void => {
      compared++;
      for (const k of KEYS) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) differences.push(`${at} ${k}: ours ${JSON.stringify(a[k])}, controller-gen's ${JSON.stringify(b[k])}`);
      for (const [name, sub] of Object.entries(a.properties ?? {})) if (b.properties?.[name]) walk(sub, b.properties[name]!, `${at}.${name}`);
      for (const name of Object.keys(b.properties ?? {})) if (!a.properties?.[name]) differences.push(`${at}.${name}: only in controller-gen's`);
      if (a.items && b.items) walk(a.items, b.items, `${at}[]`);
      if (typeof a.additionalProperties === 'object' && typeof b.additionalProperties === 'object') walk(a.additionalProperties, b.additionalProperties, `${at}{}`);
    };
    walk(pod, theirs, 'spec');
    assert.deepEqual(differences, []);
    assert.ok(compared > 1000, `${compared} schema nodes compared`);
  });
});

describe('special field names in TypeScript types', () => {
  it('keeps `__proto__` and a string-literal computed key as fields, through the CRD and back', async () => {
    const spec = await specSchema('export interface ThingSpec { ["x"]?: string; "__proto__"?: string; plain?: string }');
    assert.deepEqual(Object.keys(spec.properties!).sort(), ['__proto__', 'plain', 'x']);
    assert.ok(Object.prototype.hasOwnProperty.call(spec.properties, '__proto__'), '__proto__ is an own field');
    assert.equal(spec.properties!['__proto__']!.type, 'string');
    const model = await parseApis(path.join(tmp, `case${n - 1}`, 'apis'));
    const [crd] = emitCrds(model);
    const back = parseCrdText(crd!.content, crd!.path)[0]!.versions[0]!.schema.properties!['spec']!;
    assert.deepEqual(Object.keys(back.properties!).sort(), ['__proto__', 'plain', 'x'], 'the CRD keeps them');
  });

  it('refuses a computed key that is not a string literal', async () => {
    assert.match(await specError('const k = "x";\nexport interface ThingSpec { [k]?: string }'), /computed field name \[k\] cannot be a schema field/);
  });
});

describe('protected groups', () => {
  it('refuses a *.k8s.io group without the api-approved.kubernetes.io annotation, naming the fix', async () => {
    const root = path.join(tmp, `case${n++}`, 'apis');
    const dir = path.join(root, 'widgets', 'v1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'doc.ts'), '/** +groupName=widgets.x-k8s.k8s.io */\nexport {};\n');
    const kind = (annotation: string) => `${PRELUDE}
/**
 * +kubebuilder:object:root=true${annotation}
 */
export interface Widget { apiVersion?: string; kind?: string; metadata?: ObjectMeta }
export interface WidgetList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: Widget[] }
`;
    fs.writeFileSync(path.join(dir, 'types.ts'), kind(''));
    await assert.rejects(parseApis(root), (e: unknown) => e instanceof InputError && /types\.ts:\d+:\d+: group widgets\.x-k8s\.k8s\.io is protected: .*add \+kubebuilder:metadata:annotations="api-approved\.kubernetes\.io=/.test(e.message));
    fs.writeFileSync(path.join(dir, 'types.ts'), kind('\n * +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved, experimental-only"'));
    const model = await parseApis(root);
    assert.equal(model.resources[0]!.annotations?.['api-approved.kubernetes.io'], 'unapproved, experimental-only');
  });
});

describe('sample-controller Foo written as TypeScript', () => {
  it('emits a CRD matching crd-status-subresource.yaml in every semantic field', async () => {
    const model = await parseApis(fixture('apis', 'sample-controller', 'apis'));
    const [crd] = emitCrds(model);
    assert.equal(crd!.path, 'samplecontroller.k8s.io_foos.yaml');
    const ours = parseCrdText(crd!.content, crd!.path)[0]!;
    const upstream = (await parseCrdPaths([SAMPLE_CRD])).resources[0]!;
    assert.equal(ours.group, upstream.group);
    assert.deepEqual(ours.names, upstream.names);
    assert.equal(ours.scope, upstream.scope);
    assert.deepEqual(ours.annotations, upstream.annotations);
    assert.equal(ours.versions.length, 1);
    const [o, u] = [ours.versions[0]!, upstream.versions[0]!];
    assert.deepEqual([o.name, o.served, o.storage, o.deprecated], [u.name, u.served, u.storage, u.deprecated]);
    assert.deepEqual(o.subresources, u.subresources);
    assert.deepEqual(o.printerColumns, u.printerColumns);
    // The upstream schema leaves out apiVersion/kind/metadata, which controller-gen (and kubegen) always declare.
    const { apiVersion, kind, metadata, ...rest } = o.schema.properties!;
    assert.deepEqual([apiVersion!.type, kind!.type, metadata], ['string', 'string', { type: 'object' }]);
    assert.deepEqual({ ...o.schema, properties: rest }, u.schema);
  });
});
