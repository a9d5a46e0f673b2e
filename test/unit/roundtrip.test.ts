/**
 * CRD → generated TypeScript types with markers (`emitMarkers`) → TypeScript front end → CRD: the schema of every
 * version must come back with every property, type, format, enum, default, pattern, bound, list/map type,
 * int-or-string, preserve-unknown and CEL rule, and the description (compared semantically: trailing spaces, titles,
 * examples and oneOf/anyOf/allOf/not constraints, which have no controller-gen marker, are left out), and the kind facts
 * (names, scope, subresources, printer columns, storage) must survive too.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { JSONSchemaProps, ResourceModel } from 'kubegen/internal/model/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { emitMarkedTypes } from 'kubegen/internal/generate/types/emit-marked-types.js';
import { CORPUS_DIR } from '../support/paths.js';
import { thingCrd } from '../support/crd-yaml.js';

const CORPUS = [
  'cert-manager/cert-manager.io_certificates.yaml',
  'gateway-api/gateway.networking.k8s.io_httproutes.yaml',
  'prometheus-operator/monitoring.coreos.com_prometheuses.yaml',
  'sample-controller/crd-status-subresource.yaml',
  'cert-manager/cert-manager.io_issuers.yaml',
  'gateway-api/gateway.networking.k8s.io_gateways.yaml',
  'gateway-api/gateway.networking.k8s.io_referencegrants.yaml',
  'prometheus-operator/monitoring.coreos.com_servicemonitors.yaml',
  'fluxcd/source.toolkit.fluxcd.io_gitrepositories.yaml',
  'fluxcd/kustomize.toolkit.fluxcd.io_kustomizations.yaml',
  'knative-serving/route.yaml',
  'crossplane/apiextensions.crossplane.io_compositions.yaml',
];

/** `ROUNDTRIP_ALL=1` runs the whole corpus (56 CRDs; all pass at the time of writing, about 10 s on 2 cores). */
function corpusFiles(): string[] {
  if (process.env['ROUNDTRIP_ALL'] !== '1') return CORPUS;
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(CORPUS_DIR, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (/\.ya?ml$/.test(e.name)) out.push(r);
    }
  };
  walk('');
  return out;
}

const KEEP = new Set([
  'type', 'format', 'enum', 'default', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'nullable',
  'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);

/** The semantic content of a schema: what the round trip must keep. */
export function semantic(s: JSONSchemaProps, root = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (KEEP.has(k) && v !== undefined) out[k] = v;
  if (s.description?.trim()) out['description'] = s.description.trim().split('\n').map((l) => l.trimEnd()).join('\n');
  if (s.properties) {
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.properties)) {
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      props[k] = semantic(v);
    }
    if (Object.keys(props).length) out['properties'] = props;
  }
  const required = (s.required ?? []).filter((r) => !(root && (r === 'apiVersion' || r === 'kind' || r === 'metadata')));
  if (required.length) out['required'] = [...required].sort();
  if (s.items) out['items'] = semantic(s.items);
  if (s.additionalProperties !== undefined) out['additionalProperties'] = typeof s.additionalProperties === 'boolean' ? s.additionalProperties : semantic(s.additionalProperties);
  if (root && out['type'] === undefined) out['type'] = 'object';
  return out;
}

function kindFacts(r: ResourceModel): unknown {
  return {
    group: r.group,
    names: r.names,
    scope: r.scope,
    labels: r.labels,
    annotations: r.annotations,
    // Version order is not semantic (kubegen writes versions sorted by name).
    versions: r.versions.filter((v) => v.served).sort((a, b) => (a.name < b.name ? -1 : 1)).map((v) => ({
      name: v.name, storage: v.storage, deprecated: v.deprecated, deprecationWarning: v.deprecationWarning,
      subresources: v.subresources, printerColumns: v.printerColumns, selectableFields: v.selectableFields,
    })),
  };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-roundtrip-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('CRD → TS with markers → CRD round trip', () => {
  for (const rel of corpusFiles()) {
    it(rel, async () => {
      const original = await parseCrdPaths([path.join(CORPUS_DIR, rel)]);
      const apis = path.join(tmp, rel.replace(/[^a-z0-9]+/gi, '-'), 'apis');
      for (const gv of groupVersions(original)) {
        const dir = path.join(apis, gv.group.split('.')[0]!, gv.version);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'types.ts'), emitMarkedTypes(gv));
      }
      const back = await parseApis(apis);
      assert.equal(back.resources.length, original.resources.length);
      for (const [i, want] of original.resources.entries()) {
        const got = back.resources[i]!;
        assert.deepEqual(kindFacts(got), kindFacts(want), `${rel}: kind facts`);
        for (const v of want.versions.filter((x) => x.served)) {
          const gv = got.versions.find((x) => x.name === v.name)!;
          assert.deepEqual(semantic(gv.schema, true), semantic(v.schema, true), `${rel} ${v.name}: schema`);
        }
      }
    });
  }
});

describe('round trip comparison', () => {
  it('notices a lost marker (the comparison can fail)', async () => {
    const original = await parseCrdPaths([path.join(CORPUS_DIR, 'sample-controller/crd-status-subresource.yaml')]);
    const gv = groupVersions(original)[0]!;
    const ts = emitMarkedTypes(gv);
    assert.match(ts, /\+kubebuilder:validation:Maximum=10\n/);
    const dir = path.join(tmp, 'lossy', 'apis', 'samplecontroller', 'v1alpha1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'types.ts'), ts.replace(/^.*\+kubebuilder:validation:Maximum=10\n/m, ''));
    const back = await parseApis(path.join(tmp, 'lossy', 'apis'));
    assert.notDeepEqual(semantic(back.resources[0]!.versions[0]!.schema, true), semantic(gv.kinds[0]!.version.schema, true));
    assert.equal((back.resources[0]!.versions[0]!.schema.properties!['spec']!.properties!['replicas'] as JSONSchemaProps).maximum, undefined);
  });
});

/** Issue 9's edge cases: `| null` for nullable, a pattern ending a comment, a `__proto__` field. */
const EDGE_CRD = thingCrd({
  n: '{type: string, nullable: true}',
  items: '{type: array, nullable: true, items: {type: string}}',
  p: "{type: string, pattern: 'a*/b'}",
  ['__proto__']: '{type: string}', // computed: a plain __proto__: would set the prototype, not a key
});

describe('--emit-markers edge cases', () => {
  it('keeps nullable as `| null`, writes a Go-readable pattern, keeps __proto__, and reads all of it back', async () => {
    const original = parseCrdText(EDGE_CRD, 'thing.yaml');
    const [gv] = groupVersions({ resources: original });
    const ts = emitMarkedTypes(gv!);
    assert.match(ts, /^ {2}n\?: string \| null;$/m);
    assert.match(ts, /^ {2}items\?: string\[\] \| null;$/m);
    assert.doesNotMatch(ts, /\+nullable/);
    assert.match(ts, /Pattern="a\*\\u002fb"/);
    assert.doesNotMatch(ts, /\\\//, 'no backslash-slash escape');
    assert.match(ts, /^ {2}"__proto__"\?: string;$/m);
    const dir = path.join(tmp, 'edge', 'apis', 'x', 'v1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'types.ts'), ts);
    const back = await parseApis(path.join(tmp, 'edge', 'apis'));
    const want = original[0]!.versions[0]!.schema;
    const got = back.resources[0]!.versions[0]!.schema;
    assert.deepEqual(semantic(got, true), semantic(want, true));
    assert.equal(got.properties!['spec']!.properties!['p']!.pattern, 'a*/b');
    assert.ok(Object.prototype.hasOwnProperty.call(got.properties!['spec']!.properties, '__proto__'));
  });
});
