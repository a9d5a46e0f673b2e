/**
 * The TypeScript CEL layer (packages/runtime/src/validation/cel) against the real CRD apiserver 1.36 (envtest
 * crd-only): one CRD whose schema carries rules exercising the Kubernetes libraries, escaping, list semantics,
 * messageExpression, reason/fieldPath, runtime errors and a transition rule; each object is sent to the server and
 * evaluated locally, and every local violation must appear among the server's causes at the same field with the same
 * detail, and the server must report no more rule violations than we do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, isInvalid } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { crdResourceInfo, installCrds, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { compileRules, compileRootRules } from '@kubegen/runtime/internal/validation/cel/index.js';
import type { StructuralSchema, ValidationRule } from '@kubegen/runtime/internal/validation/types.js';
import { sharedEnv, type TestEnv } from './support/env.js';

const str = (extra: StructuralSchema = {}): StructuralSchema => ({ type: 'string', maxLength: 64, ...extra });

/** A map list of named ports (keyed by name) carrying `rules`. */
const portList = (rules: ValidationRule[]): StructuralSchema => ({
  type: 'array',
  maxItems: 8,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: { type: 'object', required: ['name'], properties: { name: str(), port: { type: 'integer', maximum: 65535 } } },
  'x-kubernetes-validations': rules,
});

const SPEC: StructuralSchema = {
  type: 'object',
  'x-kubernetes-validations': [
    { rule: "!has(self.s) || self.s != 'abc' || has(self.n)", message: 'abc needs n', reason: 'FieldValueForbidden', fieldPath: '.s' },
    { rule: "!has(self.m) || self.m['k'] == 'value'" },
  ],
  properties: {
    s: str({ 'x-kubernetes-validations': [{ rule: "self.startsWith('a')" }] }),
    n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'n must be positive' }] },
    namespace: str({ 'x-kubernetes-validations': [{ rule: 'self.size() > 1' }] }),
    tags: {
      type: 'array',
      maxItems: 8,
      'x-kubernetes-list-type': 'set',
      items: str(),
      'x-kubernetes-validations': [{ rule: 'self.all(t, t.size() < 5)', messageExpression: "'a tag is too long, the first is ' + self[0]" }],
    },
    ports: portList([{ rule: 'self.exists(p, p.port == 80)', message: 'needs port 80' }]),
    ip: str({ 'x-kubernetes-validations': [{ rule: 'isIP(self) && ip(self).family() == 4', message: 'an IPv4 address' }] }),
    net: str({ 'x-kubernetes-validations': [{ rule: 'isCIDR(self) && cidr(self).prefixLength() >= 8' }] }),
    url: str({ 'x-kubernetes-validations': [{ rule: "isURL(self) && url(self).getScheme() == 'https'" }] }),
    mem: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: "type(self) == int ? self < 1024 : isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))" }] },
    m: { type: 'object', maxProperties: 8, additionalProperties: str(), 'x-kubernetes-validations': [{ rule: 'self.all(k, v, k.size() <= v.size())', message: 'values at least as long as keys' }] },
    d: str({ format: 'duration', 'x-kubernetes-validations': [{ rule: "self < duration('1h')" }] }),
    when: str({ format: 'date-time', 'x-kubernetes-validations': [{ rule: "self > timestamp('2020-01-01T00:00:00Z')" }] }),
    version: str({ 'x-kubernetes-validations': [{ rule: 'isSemver(self, true) && semver(self, true).major() >= 1' }] }),
    label: str({ 'x-kubernetes-validations': [{ rule: '!format.dns1123Label().validate(self).hasValue()', messageExpression: "'not a DNS label: ' + self" }] }),
    code: str({ 'x-kubernetes-validations': [{ rule: "self.find('[0-9]+') == '42'", message: 'first number must be 42' }] }),
    nums: { type: 'array', maxItems: 8, items: { type: 'integer', maximum: 1000 }, 'x-kubernetes-validations': [{ rule: 'self.isSorted() && self.sum() < 100' }] },
    fixed: str({ 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'fixed is immutable' }] }),
    // Optional list and map entries, has() through an optional and optional_type (cel.OptionalTypes, since 1.28).
    opts: {
      type: 'object',
      properties: { a: str(), b: str(), nested: { type: 'object', properties: { d: str() } } },
      'x-kubernetes-validations': [
        { rule: "[?self.?a, 'x'].size() == 2", message: 'needs a' },
        { rule: "{?'b': self.?b}.all(k, v, v != 'bad')", message: 'b is bad' },
        { rule: 'type(self.?a) == optional_type && has(self.?nested.d) == (has(self.nested) && has(self.nested.d))', message: 'has through an optional' },
      ],
    },
  },
};

const ROOT: StructuralSchema = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('p')", message: 'name must start with p' }],
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: SPEC },
};

const CRD: CrdObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'probes.celdiff.kubegen.dev' },
  spec: {
    group: 'celdiff.kubegen.dev',
    scope: 'Namespaced',
    names: { kind: 'Probe', plural: 'probes', singular: 'probe', listKind: 'ProbeList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: ROOT } }],
  },
} as CrdObject;

interface Local {
  field: string;
  message: string;
}

/**
 * Evaluates every node's rules below `schema` as the schema walker will (a test-only walk over properties), naming
 * fields as the server does (`<nil>` for the root).
 */
function evaluateTree(schema: StructuralSchema, value: unknown, old: unknown, path: string, root: boolean): Local[] {
  const out: Local[] = [];
  if (value === undefined || value === null) return out;
  if (schema['x-kubernetes-validations']) {
    const compiled = root ? compileRootRules(schema) : compileRules(schema);
    assert.deepEqual(compiled.compileErrors, []);
    for (const v of compiled.evaluate(value, old === undefined ? undefined : { value: old })) {
      out.push({ field: `${path}${v.fieldPath}`.replace(/^\./, '') || '<nil>', message: v.message });
    }
  }
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    out.push(...evaluateTree(p, (value as Record<string, unknown>)[k], (old as Record<string, unknown> | undefined)?.[k], `${path}.${k}`, false));
  }
  return out;
}

const evaluateLocally = (obj: Record<string, unknown>, old?: Record<string, unknown>): Local[] => evaluateTree(ROOT, obj, old, '', true);

async function serverCauses(p: Promise<unknown>): Promise<{ field: string; message: string }[]> {
  try {
    await p;
    return [];
  } catch (err) {
    assert.ok(isInvalid(err), `expected Invalid, got ${String(err)}`);
    return ((err as ApiError).status?.details?.causes ?? []).map((c) => ({ field: c.field ?? '', message: c.message ?? '' }));
  }
}

function assertSame(local: Local[], server: { field: string; message: string }[]): void {
  for (const l of local) {
    assert.ok(
      server.some((s) => s.field === l.field && s.message.endsWith(l.message)),
      `local violation ${JSON.stringify(l)} not among the server's causes ${JSON.stringify(server, null, 1)}`,
    );
  }
  assert.equal(server.length, local.length, `server causes ${JSON.stringify(server, null, 1)} vs local ${JSON.stringify(local, null, 1)}`);
}

const GOOD = {
  s: 'abc', n: 3, namespace: 'ns', tags: ['a', 'b'], ports: [{ name: 'http', port: 80 }], ip: '10.0.0.1', net: '10.0.0.0/8',
  url: 'https://example.com/x', mem: '512Mi', m: { a: 'bb', k: 'value' }, d: '30m', when: '2024-01-01T00:00:00Z', version: 'v1.2',
  label: 'ok-label', code: 'x42y7', nums: [1, 2, 3], fixed: 'one', opts: { a: 'y', b: 'ok', nested: { d: 'z' } },
};

const BAD = {
  s: 'abc', namespace: 'n', tags: ['short', 'a'], ports: [{ name: 'http', port: 8080 }], ip: '::1', net: '10.0.0.0/4',
  url: 'http://example.com', mem: '2Gi', m: { long: 'x' }, d: '2h', when: '2019-01-01T00:00:00Z', version: 'v0.1',
  label: 'Not_A_Label', code: 'x7y42', nums: [3, 2, 1], fixed: 'one', opts: { b: 'bad', nested: {} },
};

describe('the TypeScript CEL layer agrees with the CRD apiserver 1.36 (envtest crd-only)', () => {
  let env: TestEnv;
  let probes: ResourceClient<KubeObject & { spec?: Record<string, unknown> }>;
  let ns: string;

  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
    ns = await env.newNamespace('celdiff');
    const [installed] = await installCrds(env.transport, [CRD], 30_000);
    probes = new ResourceClient(env.transport, crdResourceInfo(installed!), ns);
  });
  after(async () => {
    await env?.release();
  });

  it('accepts what every rule accepts, locally and on the server', async () => {
    const obj = { metadata: { name: 'p-good' }, spec: GOOD };
    assert.deepEqual(evaluateLocally(obj), []);
    assert.ok(await probes.create(obj));
  });

  it('reports the same violations, fields and messages as the server for an object breaking every rule', async () => {
    const obj = { metadata: { name: 'q-bad' }, spec: BAD };
    const local = evaluateLocally(obj);
    assert.ok(local.length >= 15, `local violations: ${JSON.stringify(local, null, 1)}`);
    assertSame(local, await serverCauses(probes.create(obj)));
  });

  it('runs the transition rule on update only, as the server does', async () => {
    const created = await probes.create({ metadata: { name: 'p-steady' }, spec: GOOD });
    const changed = { ...created, spec: { ...GOOD, fixed: 'two' } };
    const local = evaluateLocally(changed as Record<string, unknown>, created as Record<string, unknown>);
    assert.deepEqual(local.map((l) => l.message), ['fixed is immutable']);
    assertSame(local, await serverCauses(probes.update(changed)));
  });
});

/** A second schema: escaping, int-or-string misuse, embedded resources, set/map lists on update, formats. */
const GADGET_SPEC: StructuralSchema = {
  type: 'object',
  properties: {
    'dashed-name': str({ 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] }),
    namespace: str(),
    'a.b': str(),
    ios: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self < 5', message: 'ios below 5' }] },
    set: { type: 'array', maxItems: 8, 'x-kubernetes-list-type': 'set', items: str(), 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'set is immutable' }] },
    ports: portList([
      { rule: 'self == oldSelf', message: 'ports are immutable' },
      // A map list's + merges by key: adding an element with an existing key keeps the size (a plain list's would not).
      { rule: 'self.size() == 0 || (self + [self[0]]).size() == self.size()', message: 'merge keeps the size' },
    ]),
    pod: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-validations': [{ rule: "self.kind == 'Pod' && self.metadata.name.startsWith('pod-')", message: 'a pod named pod-*' }],
    },
    ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.5 && self >= 0', message: 'ratio out of range' }] },
    started: str({ format: 'date-time', 'x-kubernetes-validations': [{ rule: "self + duration('24h') > timestamp('2024-06-01T00:00:00Z')", message: 'too old' }] }),
    blob: str({ format: 'byte', 'x-kubernetes-validations': [{ rule: 'self.size() <= 4', message: 'blob too big' }] }),
  },
  'x-kubernetes-validations': [
    { rule: "!has(self.__namespace__) || self.__namespace__ == self.a__dot__b", message: 'namespace equals a.b' },
    { rule: "!has(self.dashed__dash__name) || self.dashed__dash__name.size() > 1", message: 'dashed-name too short', fieldPath: "['dashed-name']" },
  ],
};

const GADGET_CRD = {
  ...CRD,
  metadata: { name: 'gadgets.celdiff.kubegen.dev' },
  spec: {
    ...CRD.spec,
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: GADGET_SPEC } } } }],
  },
} as CrdObject;

describe('the TypeScript CEL layer agrees with the CRD apiserver 1.36 on escaping, int-or-string, embedded resources, list types', () => {
  let env: TestEnv;
  let gadgets: ResourceClient<KubeObject & { spec?: Record<string, unknown> }>;

  /** Every rule of the Gadget schema, evaluated over its spec. */
  const local = (spec: Record<string, unknown>, old?: Record<string, unknown>): Local[] => evaluateTree(GADGET_SPEC, spec, old, 'spec', false);

  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
    const ns = await env.newNamespace('celgadget');
    const [installed] = await installCrds(env.transport, [GADGET_CRD], 30_000);
    gadgets = new ResourceClient(env.transport, crdResourceInfo(installed!), ns);
  });
  after(async () => {
    await env?.release();
  });

  const good = {
    'dashed-name': 'ok', namespace: 'x', 'a.b': 'x', ios: 3, set: ['a', 'b'], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }],
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod-1' }, spec: { containers: [] } }, ratio: 1, started: '2024-06-01T00:00:00Z', blob: 'AQID',
  };

  it('agrees on a valid object and on one breaking every rule (int-or-string misuse is a runtime error)', async () => {
    assert.deepEqual(local(good), []);
    assert.ok(await gadgets.create({ metadata: { name: 'good' }, spec: good }));
    const bad = {
      'dashed-name': 'b', namespace: 'x', 'a.b': 'y', ios: 'five', set: ['a'], ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }, { name: 'c', port: 3 }],
      pod: { apiVersion: 'v1', kind: 'Job', metadata: { name: 'job-1' } }, ratio: 2.5, started: '2020-01-01T00:00:00Z', blob: 'AQIDBAUG',
    };
    const l = local(bad);
    assert.equal(l.length, 7, JSON.stringify(l, null, 1));
    assertSame(l, await serverCauses(gadgets.create({ metadata: { name: 'bad' }, spec: bad })));
  });

  it('compares set and map lists ignoring order on update, as the server does', async () => {
    const created = await gadgets.create({ metadata: { name: 'reorder' }, spec: good });
    const reordered = { ...good, set: ['b', 'a'], ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] };
    assert.deepEqual(local(reordered, good), []);
    assert.ok(await gadgets.update({ ...created, spec: reordered }));
    const changed = { ...good, set: ['a', 'c'], ports: [{ name: 'http', port: 81 }, { name: 'https', port: 443 }] };
    const l = local(changed, reordered);
    assert.deepEqual(l.map((x) => x.message), ['set is immutable', 'ports are immutable']);
    const latest = await gadgets.get('reorder');
    assertSame(l, await serverCauses(gadgets.update({ ...latest, spec: changed })));
  });
});

/** Rules the server refuses at install time, each alone on the spec of its own CRD. */
const BAD_RULES: { rule: string; messageExpression?: string; fieldPath?: string; syntaxError?: true }[] = [
  { rule: 'self.nope == 1' },
  { rule: 'nosuch(self.s)' },
  { rule: "self.s.size() == 'x'" },
  { rule: 'self.s' },
  { rule: "[1, 'a'].size() == 2" },
  { rule: "[?self.s, 'x'].size() == 2" },
  { rule: "self.s.matches('(')" },
  { rule: "self.s.find('(') == ''" },
  { rule: "duration('1x') > duration('1s')" },
  { rule: 'true', messageExpression: '1' },
  { rule: 'true', fieldPath: '.nope' },
  // @bufbuild/cel's parser words syntax errors its own way: only the field and the prefix are compared.
  { rule: 'self.s ==', syntaxError: true },
];

describe('the TypeScript CEL layer refuses the rules the CRD apiserver 1.36 refuses, with its messages', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
  });
  after(async () => {
    await env?.release();
  });

  for (const [i, { syntaxError, ...bad }] of BAD_RULES.entries()) {
    it(`refuses ${JSON.stringify(bad)}`, async () => {
      const spec: StructuralSchema = { type: 'object', properties: { s: str() }, 'x-kubernetes-validations': [bad] };
      const local = compileRules(spec).compileErrors;
      assert.equal(local.length, 1, JSON.stringify(local));
      const crd = structuredClone(CRD) as CrdObject & { spec: { versions: { schema: unknown }[]; names: Record<string, string> } };
      crd.metadata = { name: `bads${i}.celdiff.kubegen.dev` };
      crd.spec.names = { kind: `Bad${i}`, plural: `bads${i}`, singular: `bad${i}`, listKind: `Bad${i}List` };
      crd.spec.versions[0]!.schema = { openAPIV3Schema: { type: 'object', properties: { spec } } };
      const err = await installCrds(env.transport, [crd], 30_000).then(
        () => assert.fail('the server installed the CRD'),
        (e: unknown) => e as ApiError,
      );
      const field = `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].${local[0]!.field ?? 'rule'}`;
      const causes = (err.status?.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
      assert.ok(
        causes.some((c) => c.startsWith(field) && c.includes(syntaxError ? 'compilation failed: ERROR: <input>:1:' : local[0]!.message)),
        `local ${field}: ${local[0]!.message}\nserver:\n${causes.join('\n')}`,
      );
    });
  }
});
