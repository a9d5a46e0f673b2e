/**
 * fixtures/crds-wave5 (issue 38's shapes on public CRDs, see its SOURCES.md), one test per shape, offline: a CEL
 * rule naming a reserved word bare (tinkerbell's Workflow, COSI's Bucket), YAML kubectl reads and strict parsers
 * refuse (OpenEBS' quoted scalar, Calico's duplicate key), Crossplane's `.m.` twin groups (provider-helm). The same
 * CRDs against the 1.36 apiserver: test/integration/validation-differential.test.ts and corpus-crud.test.ts; the
 * oneOf and upjet shapes' samples: sample-shapes.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { createValidator } from '@kubegen/runtime/validation';
import { minimalSample, sampleValidator } from 'kubegen/internal/generate/sample/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { readFixtureCrds } from '../support/corpus.js';
import { fixture } from '../support/paths.js';
import { runCodegenBin } from '../support/cli.js';

const wave5 = (...p: string[]): string => fixture('crds-wave5', ...p);

/** The resources of a fixture file and the YAML warnings read on the way (`line:column: message`). */
function readWithWarnings(file: string) {
  const warnings: string[] = [];
  const resources = parseCrdText(fs.readFileSync(file, 'utf8'), file, { onWarning: (w, m) => warnings.push(`${w.line}:${w.column}: ${m}`) });
  return { resources, warnings };
}

describe('fixtures/crds-wave5: reserved words named bare in CEL rules', () => {
  it("tinkerbell's Workflow: (has(self.name) && …) == (has(self.namespace) && self.namespace != \"\") compiles and evaluates on taskRef and hardwareRef", async () => {
    const [crd] = readFixtureCrds(wave5('tinkerbell', 'tinkerbell.org_workflows.yaml'));
    const v = await createValidator(crd as Parameters<typeof createValidator>[0]);
    const workflow = (taskRef: object, hardwareRef: object) => ({
      apiVersion: 'tinkerbell.org/v1alpha2', kind: 'Workflow', metadata: { name: 'w', namespace: 'default' },
      spec: { tasks: [{ taskRef, hardware: { hardwareRef } }] },
    });
    const errors = (o: unknown): string[] => v.validate(o, { namespace: 'default' }).errors.map((e) => `${e.path}: ${e.detail}`);
    assert.deepEqual(errors(workflow({ name: 't', namespace: 'ns' }, { name: 'h', namespace: 'ns' })), []);
    assert.deepEqual(errors(workflow({}, { name: '', namespace: '' })), [], 'both empty');
    assert.deepEqual(errors(workflow({ name: 't' }, { namespace: 'ns' })), [
      'spec.tasks[0].taskRef: name and namespace must both be specified or both be empty',
      'spec.tasks[0].hardware.hardwareRef: name and namespace must both be specified or both be empty',
    ]);
  });

  it("COSI's Bucket: the transition rule !has(oldSelf.namespace) || has(self.namespace) compiles and refuses dropping the namespace on update", async () => {
    const file = wave5('cosi', 'objectstorage.k8s.io_buckets.yaml');
    const resource = readWithWarnings(file).resources[0]!;
    const kv = { resource, version: resource.versions.find((x) => x.storage)! };
    const sample = minimalSample(kv, { validator: await sampleValidator(kv) }) as { metadata: Record<string, unknown>; spec: { bucketClaimRef: Record<string, unknown> } };
    assert.equal(sample.spec.bucketClaimRef['namespace'], 'namespace');
    // As published the namespace is also required, which refuses its removal before the rule runs: without that,
    // the rule itself is what refuses.
    const [crd] = readFixtureCrds(file) as [any];
    const claimRef = crd.spec.versions.find((v: { storage: boolean }) => v.storage).schema.openAPIV3Schema.properties.spec.properties.bucketClaimRef;
    assert.deepEqual(claimRef.required, ['name', 'namespace']);
    claimRef.required = ['name'];
    const v = await createValidator(crd);
    const created = v.validate(sample);
    assert.deepEqual(created.errors, []);
    const old: typeof sample = { ...(created.object as typeof sample), metadata: { ...sample.metadata, resourceVersion: '1' } };
    const dropped = structuredClone(old);
    delete dropped.spec.bucketClaimRef['namespace'];
    const errors = (o: unknown): string[] => v.validate(o, { operation: 'update', old }).errors.map((e) => `${e.path}: ${e.detail}`);
    assert.deepEqual(errors(old), [], 'unchanged');
    assert.deepEqual(errors(dropped), ['spec.bucketClaimRef: namespace cannot be removed once set']);
    const renamed = structuredClone(old);
    renamed.spec.bucketClaimRef['namespace'] = 'Not_A_Label';
    assert.deepEqual(errors(renamed), [
      'spec.bucketClaimRef.namespace: namespace must be a valid namespace name',
      'spec.bucketClaimRef.namespace: namespace is immutable',
    ]);
  });
});

describe('fixtures/crds-wave5: YAML kubectl reads, each oddity a warning', () => {
  it("OpenEBS' VolumeSnapshotContent: a quoted description continued at its key's own indentation is one line, as libyaml reads it", () => {
    const file = wave5('openebs-lvm-localpv', 'lvm-driver.volumesnapshotcontents.snapshot.storage.k8s.io.yaml');
    assert.ok(parseAllDocuments(fs.readFileSync(file, 'utf8')).some((d) => d.errors.length > 0), 'a strict YAML 1.2 reader refuses the file');
    const { resources, warnings } = readWithWarnings(file);
    assert.deepEqual(warnings, ['168:1: continuation line of a quoted string is indented no deeper than its key; kubectl reads it, strict YAML parsers refuse it']);
    const ref = resources[0]!.versions.find((v) => v.name === 'v1')!.schema.properties!['spec']!.properties!['volumeSnapshotRef']!;
    assert.equal(
      ref.properties!['resourceVersion']!.description,
      'Specific resourceVersion to which this reference is made, if any. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency',
    );
  });

  it("Calico's FelixConfiguration: of the duplicate bpfExtToServiceConnmark the last is kept, as go-yaml keeps it", () => {
    const file = wave5('calico', 'crd.projectcalico.org_felixconfigurations.yaml');
    const { resources, warnings } = readWithWarnings(file);
    assert.deepEqual(warnings, ['97:15: duplicate key "bpfExtToServiceConnmark": kubectl keeps the last value, and so does kubegen']);
    const field = resources[0]!.versions[0]!.schema.properties!['spec']!.properties!['bpfExtToServiceConnmark']!;
    assert.match(field.description!, /^BPFExtToServiceConnmark in BPF mode, controls a 32bit mark/);
    assert.equal(field.type, 'integer');
  });
});

describe("fixtures/crds-wave5: Crossplane's .m. twin groups", () => {
  it('kubegen sample prints both Releases (cluster-scoped helm.crossplane.io, namespaced helm.m.crossplane.io), nothing refused', () => {
    const res = runCodegenBin(undefined, 'sample', '--crds', wave5('provider-helm'));
    assert.equal(res.code, 0, res.stderr);
    assert.doesNotMatch(res.stderr, /warning: sample/);
    const docs = parseAllDocuments(res.stdout).map((d) => d.toJS() as { apiVersion: string; kind: string; spec: Record<string, unknown> });
    assert.deepEqual(docs.map((d) => `${d.apiVersion} ${d.kind}`), ['helm.crossplane.io/v1beta1 Release', 'helm.m.crossplane.io/v1beta1 Release']);
    const [cluster, namespaced] = readFixtureCrds(wave5('provider-helm', 'helm.crossplane.io_releases.yaml')).concat(readFixtureCrds(wave5('provider-helm', 'helm.m.crossplane.io_releases.yaml')));
    assert.deepEqual([cluster!.spec.scope, namespaced!.spec.scope], ['Cluster', 'Namespaced']);
  });

  it("the namespaced twin's sample takes providerConfigRef's default ({kind: ClusterProviderConfig, name: default}) from the server's defaulting", async () => {
    const [crd] = readFixtureCrds(wave5('provider-helm', 'helm.m.crossplane.io_releases.yaml'));
    const v = await createValidator(crd as Parameters<typeof createValidator>[0]);
    const resource = readWithWarnings(wave5('provider-helm', 'helm.m.crossplane.io_releases.yaml')).resources[0]!;
    const kv = { resource, version: resource.versions.find((x) => x.storage)! };
    const r = v.validate(minimalSample(kv, { validator: await sampleValidator(kv) }), { namespace: 'default' });
    assert.deepEqual(r.errors, []);
    assert.deepEqual((r.object as { spec: Record<string, unknown> }).spec['providerConfigRef'], { kind: 'ClusterProviderConfig', name: 'default' });
  });
});
