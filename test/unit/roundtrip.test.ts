/**
 * CRD → generated TypeScript types with markers (`emitMarkers`) → TypeScript front end → CRD, for every corpus CRD:
 * the schema of every version must come back with every property, type, format, enum, default, pattern, bound,
 * list/map type, int-or-string, preserve-unknown and CEL rule, and the description (compared semantically: trailing
 * spaces, titles, examples and oneOf/anyOf/allOf/not constraints, which have no controller-gen marker, are left out),
 * and the kind facts (names, scope, subresources, printer columns, storage) must survive too. A sub-schema the marked
 * types write as one of the runtime's core types (`Container`, `interface X extends Container`) comes back as the
 * runtime's schema of that type — the Kubernetes version of the runtime's models — with the sub-schema's own
 * keywords, description and extra properties.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { ApiModel, GroupVersion, JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { builtinSchema } from 'kubegen/internal/builtin-api/schemas.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { emitMarkedTypes } from 'kubegen/internal/generate/types/emit-marked-types.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { CoreTypeMatcher, TypeGraph } from 'kubegen/internal/generate/types/index.js';
import { CORPUS_DIR } from '../support/paths.js';
import { corpusRuns } from '../support/corpus.js';
import { kindCrd, obj, thingCrd } from '../support/crd-yaml.js';
import { typeCheckProject } from '../support/type-check.js';
import { typeNameProblems } from '../support/type-names.js';
import { expectedBack, kindFacts, semantic } from '../support/roundtrip.js';

/** Every corpus CRD, relative to the corpus folder. */
function corpusFiles(): string[] {
  return corpusRuns().flat().map((f) => path.relative(CORPUS_DIR, f)).sort();
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-roundtrip-'));
const matcher = new CoreTypeMatcher();

/** Writes the marked types of `gvs` under `<dir>/<group's first label>/<version>/types.ts`; returns the graphs. */
function writeMarked(dir: string, gvs: GroupVersion[]): Map<GroupVersion, TypeGraph> {
  const graphs = new Map<GroupVersion, TypeGraph>();
  for (const gv of gvs) {
    const graph = new TypeGraph(gv, { exact: true, matcher });
    graphs.set(gv, graph);
    const out = path.join(dir, gv.group.split('.')[0]!, gv.version);
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'types.ts'), emitMarkedTypes(gv, { graph }));
  }
  return graphs;
}
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * Writes the marked types of `original` under `dir`, reads them back with the TypeScript front end and compares each
 * served version's schema with the original (core-typed sub-schemas as the runtime's). Returns how many sub-schemas
 * the marked types wrote as core types.
 */
async function assertRoundTrip(original: ApiModel, dir: string, label: string): Promise<number> {
  const gvs = groupVersions(original);
  const graphs = writeMarked(dir, gvs);
  const back = await parseApis(dir);
  assert.equal(back.resources.length, original.resources.length);
  for (const [i, want] of original.resources.entries()) {
    const got = back.resources[i]!;
    assert.deepEqual(kindFacts(got), kindFacts(want), `${label}: kind facts`);
    for (const v of want.versions.filter((x) => x.served)) {
      const gotVersion = got.versions.find((x) => x.name === v.name)!;
      const gv = gvs.find((g) => g.group === want.group && g.version === v.name)!;
      const expected = expectedBack(v.schema, want.names.kind, graphs.get(gv)!.coreTypeUses);
      assert.deepEqual(semantic(gotVersion.schema, true), semantic(expected, true), `${label} ${v.name}: schema`);
    }
  }
  return [...graphs.values()].reduce((n, g) => n + g.coreTypeUses.length, 0);
}

describe('CRD → TS with markers → CRD round trip', () => {
  let coreUses = 0;
  for (const rel of corpusFiles()) {
    it(rel, async () => {
      const original = await parseCrdPaths([path.join(CORPUS_DIR, rel)]);
      coreUses += await assertRoundTrip(original, path.join(tmp, rel.replace(/[^a-z0-9]+/gi, '-'), 'apis'), rel);
    });
  }
  it('the marked types of the corpus use the runtime\'s core types', () => {
    assert.ok(coreUses >= 100, `${coreUses} sub-schemas typed as core types`);
  });
});

describe('--emit-markers: arrays of objects, shared shapes, enums and core types', () => {
  const str: JSONSchemaProps = { type: 'string' };
  const container = builtinSchema('io.k8s.api.core.v1.Container')!;
  const peer = obj({ namespaces: { type: 'array', items: str }, port: { type: 'integer', format: 'int32', minimum: 1 } });
  const protocol: JSONSchemaProps = { type: 'string', enum: ['TCP', 'UDP', 'SCTP'], description: 'The protocol.' };
  const text = kindCrd('ci.x.io', 'Pipeline', {
    spec: obj({
      steps: { type: 'array', items: { ...obj({ name: str, image: str, ports: { type: 'array', items: obj({ containerPort: { type: 'integer', format: 'int32' }, protocol }) } }), required: ['name'], description: 'A step.' } },
      sidecars: { type: 'array', items: { ...container, description: 'A sidecar.' } },
      script: { ...container, properties: { ...container.properties, source: { type: 'string', description: 'The script.' } } },
      head: peer,
      worker: { ...peer, description: 'The workers.' },
      hostnames: { type: 'array', items: { type: 'string', pattern: '^[a-z.]+$', description: 'A host name.' } },
      probe: obj({ protocol, port: { type: 'integer', format: 'int32' } }),
      listener: obj({ protocol, host: str }),
    }),
    status: obj({ conditions: { type: 'array', items: obj({ type: str, status: str, lastProbeTime: { type: 'string', format: 'date-time' } }) } }),
  });

  it('writes types deepcopy.ts and applyconfigurations.ts agree with, which compile (strict, noUnusedLocals)', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'marked-'));
    const files = generate({ resources: parseCrdText(text, 'pipeline.yaml') }, { emitMarkers: true });
    assert.deepEqual(generate({ resources: parseCrdText(text, 'pipeline.yaml') }, { emitMarkers: true }), files, 'deterministic');
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, 'generated', f.path)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'generated', f.path), f.content);
    }
    const types = files.find((f) => f.path.endsWith('/types.ts'))!.content;
    assert.match(types, /^export interface PipelineSpecStep \{$/m, 'array items are named as in the plain types');
    assert.match(files.find((f) => f.path.endsWith('/deepcopy.ts'))!.content, /^export function deepCopyPipelineSpecStep\(src: types\.PipelineSpecStep\)/m);
    assert.match(types, /^export interface PipelineSpecScript extends Container \{\n {2}\/\*\*\n {3}\* The script\.\n {3}\*\/\n {2}source\?: string;\n\}$/m);
    assert.match(types, /^\/\*\*\n \* A sidecar\.\n \*\/\nexport type PipelineSpecSidecar = Container;$/m);
    assert.match(types, /^ {2}sidecars\?: PipelineSpecSidecar\[\];$/m);
    assert.match(types, /^ {2}worker\?: PipelineSpecWorker;$/m);
    assert.match(types, /^export interface PipelineSpecWorker \{$/m, 'head and worker share no name, so not a type either');
    assert.match(types, /^export interface PipelineSpecHead \{$/m);
    assert.match(types, /^export type PipelineSpecProtocol = "TCP" \| "UDP" \| "SCTP";$/m);
    assert.equal(types.match(/^ {2}protocol\?: PipelineSpecProtocol;$/gm)?.length, 3, 'steps[].ports[] (a protocol enum, no required containerPort) are not ContainerPorts');
    assert.match(types, /^\/\*\*\n \* A host name\.\n \*\n \* \+kubebuilder:validation:Pattern="\^\[a-z\.\]\+\$"\n \*\/\nexport type PipelineSpecHostname = string;$/m);
    assert.deepEqual(typeNameProblems(types, ['Pipeline']), []);
    assert.equal(typeCheckProject(dir), '');
  });

  it('reads back into the same CRD', async () => {
    const uses = await assertRoundTrip({ resources: parseCrdText(text, 'pipeline.yaml') }, path.join(tmp, 'fixture', 'apis'), 'fixture');
    assert.equal(uses, 2, 'sidecars[] is a Container, script extends one (steps[].ports[] differ from ContainerPort)');
  });
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
  nn: '{type: string, nullable: true}', // (a bare `n:` key is the boolean false to kubectl, YAML 1.1)
  items: '{type: array, nullable: true, items: {type: string}}',
  p: "{type: string, pattern: 'a*/b'}",
  ['__proto__']: '{type: string}', // computed: a plain __proto__: would set the prototype, not a key
});

describe('--emit-markers edge cases', () => {
  it('keeps nullable as `| null`, writes a Go-readable pattern, keeps __proto__, and reads all of it back', async () => {
    const original = parseCrdText(EDGE_CRD, 'thing.yaml');
    const [gv] = groupVersions({ resources: original });
    const ts = emitMarkedTypes(gv!);
    assert.match(ts, /^ {2}nn\?: string \| null;$/m);
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
