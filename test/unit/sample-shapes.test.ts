/**
 * `kubegen sample` on the shapes issue 38 (item 4) found refused by the apiserver: a `oneOf`/`anyOf` whose branches
 * each require a property (3scale's Product, OpenEBS' VolumeSnapshotContent in fixtures/crds-wave5), upjet's
 * "required parameter" rule (provider-upjet-azuread's Invitation), a reference whose default a rule forbids (Kong's
 * `controlPlaneRef.type: kic`, synthetic), a root rule asking for a named container (Kong's DataPlane, synthetic);
 * and the warnings' wording for the object's root. The samples against the 1.36 apiserver:
 * test/integration/corpus-crud.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { minimalSample, sampleValidator, type UnsatisfiedRule } from 'kubegen/internal/generate/sample/index.js';
import { groupVersions, type JSONSchemaProps, type KindVersion } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { fixture } from '../support/paths.js';
import { runCodegenBin } from '../support/cli.js';

/** The kinds of a CRD whose root schema is `root` (group x.io, kind Thing). */
function thing(root: JSONSchemaProps): KindVersion {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.x.io' },
    spec: {
      group: 'x.io', scope: 'Namespaced', names: { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', ...root } } }],
    },
  };
  return groupVersions({ resources: parseCrdText(JSON.stringify(crd), 'thing.yaml') })[0]!.kinds[0]!;
}

/** The sample with its validator: the object, what it still breaks, and the validator's errors on it. */
async function checked(kv: KindVersion): Promise<{ sample: Record<string, any>; unsatisfied: UnsatisfiedRule[]; errors: string[] }> {
  const validator = await sampleValidator(kv);
  const unsatisfied: UnsatisfiedRule[] = [];
  const sample = minimalSample(kv, { validator, onUnsatisfied: (u) => unsatisfied.push(u) });
  const r = validator.validate(sample, kv.resource.scope === 'Namespaced' ? { namespace: 'default' } : {});
  return { sample, unsatisfied, errors: [...r.errors.map((e) => `${e.path}: ${e.message}`), ...r.unknownFields] };
}

async function fixtureKinds(...p: string[]): Promise<KindVersion[]> {
  const model = await parseCrdPaths([fixture('crds-wave5', ...p)], { onWarning: () => undefined });
  return model.resources.flatMap((resource) => resource.versions.map((version) => ({ resource, version })));
}

const str: JSONSchemaProps = { type: 'string' };

describe('kubegen sample: oneOf/anyOf branches that require a property', () => {
  it('takes one branch of each oneOf/anyOf, every allOf part, and the constraints a branch puts on its fields (no validator)', () => {
    const s = minimalSample(thing({
      properties: {
        spec: {
          type: 'object',
          required: ['pick', 'any', 'met', 'all'],
          properties: {
            pick: { type: 'object', properties: { a: str, b: str }, oneOf: [{ required: ['a'] }, { required: ['b'] }] },
            any: { type: 'object', properties: { x: str, y: { type: 'object', properties: { z: str, mode: str } } }, anyOf: [{ required: ['y'], properties: { y: { required: ['z'], properties: { mode: { enum: ['Fast'] } } } } }, { required: ['x'] }] },
            // A branch the object meets already is taken: adding `c` would make both branches hold.
            met: { type: 'object', required: ['d'], properties: { c: str, d: str }, oneOf: [{ required: ['c'] }, { required: ['d'] }] },
            all: { type: 'object', properties: { p: str, q: str }, allOf: [{ required: ['p'] }, { required: ['q'] }] },
          },
        },
      },
    }))['spec'] as Record<string, any>;
    assert.deepEqual(s['pick'], { a: 'a' });
    assert.deepEqual(s['any'], { y: { z: 'z' } });
    assert.deepEqual(s['met'], { d: 'd' });
    assert.deepEqual(s['all'], { p: 'p', q: 'q' });
  });

  it("3scale's Product: deployment.oneOf and each branch's authentication.oneOf, made required, give a sample the validator accepts", async () => {
    const [kv] = await fixtureKinds('3scale-operator', 'capabilities.3scale.net_products.yaml');
    const spec = kv!.version.schema.properties!['spec']!;
    const deployment = spec.properties!['deployment']!;
    assert.deepEqual(deployment.oneOf, [{ required: ['apicastHosted'] }, { required: ['apicastSelfManaged'] }]);
    // As published the deployment is optional (the sample leaves it out); required, the sample must pick branches.
    spec.required = [...(spec.required ?? []), 'deployment'];
    for (const b of ['apicastHosted', 'apicastSelfManaged']) deployment.properties![b]!.required = ['authentication'];
    const r = await checked(kv!);
    assert.deepEqual(r.unsatisfied, []);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(Object.keys(r.sample['spec']['deployment']), ['apicastHosted']);
    assert.deepEqual(Object.keys(r.sample['spec']['deployment']['apicastHosted']['authentication']), ['userkey']);
  });

  it("OpenEBS' VolumeSnapshotContent: the required source takes one of snapshotHandle and volumeHandle", async () => {
    // v1 has the oneOf; v1beta1 (deprecated, not served) has none, and its source stays empty.
    for (const kv of await fixtureKinds('openebs-lvm-localpv', 'lvm-driver.volumesnapshotcontents.snapshot.storage.k8s.io.yaml')) {
      if (kv.version.name === 'v1') assert.deepEqual(kv.version.schema.properties!['spec']!.properties!['source']!.oneOf, [{ required: ['snapshotHandle'] }, { required: ['volumeHandle'] }]);
      const r = await checked(kv);
      assert.deepEqual(r.unsatisfied, [], kv.version.name);
      assert.deepEqual(r.errors, [], kv.version.name);
      assert.deepEqual(Object.keys(r.sample['spec']['source']), kv.version.name === 'v1' ? ['snapshotHandle'] : [], kv.version.name);
    }
  });

  it('a oneOf that a CEL repair makes ambiguous drops the other branch', async () => {
    const r = await checked(thing({
      properties: {
        spec: {
          type: 'object', properties: { a: str, b: str }, oneOf: [{ required: ['a'] }, { required: ['b'] }],
          'x-kubernetes-validations': [{ rule: 'has(self.b)', message: 'b is needed' }],
        },
      },
    }));
    assert.deepEqual(r.unsatisfied, []);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.sample['spec'], { b: 'b' });
  });
});

describe('kubegen sample: the common CEL shapes with values from the schema', () => {
  it("upjet's required parameter (has(self.forProvider.x) || (has(self.initProvider) && has(self.initProvider.x))): both Invitation twins, every version", async () => {
    const kinds = [
      ...(await fixtureKinds('provider-upjet-azuread', 'invitations.azuread.upbound.io_invitations.yaml')),
      ...(await fixtureKinds('provider-upjet-azuread', 'invitations.azuread.m.upbound.io_invitations.yaml')),
    ];
    assert.equal(kinds.length, 3);
    for (const kv of kinds) {
      const rules = (kv.version.schema.properties!['spec']!['x-kubernetes-validations'] ?? []).map((v) => v.rule);
      assert.ok(rules.some((r) => r.includes('has(self.forProvider.redirectUrl) || (has(self.initProvider) && has(self.initProvider.redirectUrl))')), 'the fixture has the rule');
      const r = await checked(kv);
      const where = `${kv.resource.group}/${kv.version.name}`;
      assert.deepEqual(r.unsatisfied, [], where);
      assert.deepEqual(r.errors, [], where);
      assert.deepEqual(Object.keys(r.sample['spec']['forProvider']).sort(), ['redirectUrl', 'userEmailAddress'], where);
      assert.equal(r.sample['spec']['initProvider'], undefined, where);
    }
  });

  it("a required reference whose default a rule forbids takes another value of the field's enum (and what that value asks for)", async () => {
    const r = await checked(thing({
      properties: {
        spec: {
          type: 'object',
          required: ['controlPlaneRef'],
          'x-kubernetes-validations': [{ rule: "!has(self.controlPlaneRef) ? true : self.controlPlaneRef.type != 'kic'", message: 'KIC is not supported as control plane' }],
          properties: {
            controlPlaneRef: {
              type: 'object',
              properties: {
                type: { type: 'string', default: 'kic', enum: ['kic', 'konnectNamespacedRef', 'konnectID'] },
                konnectID: str,
                konnectNamespacedRef: { type: 'object', required: ['name'], properties: { name: str, namespace: str } },
              },
              'x-kubernetes-validations': [
                { rule: "self.type == 'konnectID' ? has(self.konnectID) : true", message: 'when type is konnectID, konnectID must be set' },
                { rule: "self.type == 'konnectNamespacedRef' ? has(self.konnectNamespacedRef) : true", message: 'when type is konnectNamespacedRef, konnectNamespacedRef must be set' },
              ],
            },
          },
        },
      },
    }));
    assert.deepEqual(r.unsatisfied, []);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.sample['spec']['controlPlaneRef'], { type: 'konnectNamespacedRef', konnectNamespacedRef: { name: 'name' } });
  });

  it('a root rule asking for a named container (and a scalar list for a value) gets the element, with the parents it needs', async () => {
    const containers: JSONSchemaProps = {
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: str, image: str } },
    };
    const r = await checked(thing({
      'x-kubernetes-validations': [
        { rule: "has(self.spec.template.spec) && self.spec.template.spec.containers.exists(c, c.name == 'proxy')", message: 'a container named proxy is required' },
        { rule: "self.spec.tags.exists(t, t == 'edge')", message: 'the edge tag is required' },
      ],
      properties: {
        spec: {
          type: 'object',
          required: ['template', 'tags'],
          properties: {
            tags: { type: 'array', items: str },
            template: { type: 'object', properties: { metadata: { type: 'object' }, spec: { type: 'object', required: ['containers'], properties: { containers } } } },
          },
        },
      },
    }));
    assert.deepEqual(r.unsatisfied, []);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.sample['spec'], { tags: ['edge'], template: { spec: { containers: [{ name: 'proxy' }] } } });
  });
});

describe('kubegen sample: warnings about the object root read as words', () => {
  it("says 'the object' where the apiserver's path is <nil> (a root rule, a root-level oneOf error)", () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.x.io' },
      spec: {
        group: 'x.io', scope: 'Namespaced', names: { kind: 'Thing', plural: 'things' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              'x-kubernetes-validations': [{ rule: "self.metadata.name == 'zz'", message: 'the name must be zz' }],
              properties: { spec: { type: 'object', required: ['a', 'b'], properties: { a: str, b: str }, oneOf: [{ required: ['a'] }, { required: ['b'] }] } },
            },
          },
        }],
      },
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-sample-shapes-'));
    try {
      fs.writeFileSync(path.join(dir, 'crd.yaml'), JSON.stringify(crd));
      const res = runCodegenBin(undefined, 'sample', '--crds', path.join(dir, 'crd.yaml'));
      assert.equal(res.code, 0, res.stderr);
      assert.doesNotMatch(res.stderr, /<nil>/);
      assert.match(res.stderr, /^warning: sample Thing\.x\.io\/v1: the object breaks the rule "self\.metadata\.name == 'zz'": Invalid value: (?:"object": )?the name must be zz$/m);
      assert.match(res.stderr, /^warning: sample Thing\.x\.io\/v1: the object is refused: Invalid value: "": "spec" must validate one and only one schema \(oneOf\)\. Found 2 valid alternatives$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
