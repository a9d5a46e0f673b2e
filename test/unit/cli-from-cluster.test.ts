/**
 * `kubegen generate --from-cluster` on the fake transport: which CRDs are selected (--crd, --group), the errors for
 * names and groups the cluster lacks (all at once, with the closest one), what the server adds being dropped, errors
 * of a bad CRD naming `cluster:<name>` and the JSON path, the config file's `fromCluster`, and the whole command
 * producing what `--crds <file>` produces.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { newStatus, ApiError } from '@kubegen/runtime/internal/client/errors.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import type { FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { readClusterCrds, selectClusterCrds, type ClusterCrd } from 'kubegen/internal/cli/cluster-crds.js';
import { parseConfigText } from 'kubegen/internal/config/config-file.js';
import { resolveConfig } from 'kubegen/internal/config/resolve-config.js';
import { CliInputError, UsageError } from 'kubegen/internal/cli/errors.js';
import { main, type MainIO } from 'kubegen/internal/cli/main.js';
import { defaultPipeline } from 'kubegen/internal/cli/pipeline.js';
import { parseCrdObjects } from 'kubegen/internal/parse/crd/cluster.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { InputError, InputErrors } from 'kubegen/internal/model/errors.js';
import { fixture } from '../support/paths.js';
import { treeSnapshot } from '../support/tree.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';

const CRD_RESOURCE = builtinResources.customResourceDefinitions;
const FOO_FILE = fixture('crds/sample-controller/crd-status-subresource.yaml');

/** A CRD as a server returns it: the file's, with what the server sets added. */
function asServed(crd: Record<string, unknown>): ClusterCrd {
  const meta = crd['metadata'] as Record<string, unknown>;
  return {
    ...crd,
    metadata: {
      ...meta,
      uid: 'u-1',
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2024-01-01T00:00:00Z',
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
      annotations: { ...(meta['annotations'] as object), 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"json"}' },
    },
    status: { acceptedNames: { kind: 'Foo' }, storedVersions: ['v1alpha1'], conditions: [{ type: 'Established', status: 'True' }] },
  } as ClusterCrd;
}

const fooCrd = (): Record<string, unknown> => load(fs.readFileSync(FOO_FILE, 'utf8')) as Record<string, unknown>;

function crd(name: string, group: string, kind: string, scope = 'Namespaced'): ClusterCrd {
  const plural = name.split('.')[0]!;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  } as ClusterCrd;
}

const CLUSTER: ClusterCrd[] = [
  crd('foos.samplecontroller.k8s.io', 'samplecontroller.k8s.io', 'Foo'),
  crd('widgets.test.kubegen.dev', 'test.kubegen.dev', 'Widget', 'Cluster'),
  crd('gadgets.test.kubegen.dev', 'test.kubegen.dev', 'Gadget'),
  crd('certificates.cert-manager.io', 'cert-manager.io', 'Certificate'),
];
const names = (crds: ClusterCrd[]) => crds.map((c) => c.metadata!.name);

function messagesOf(err: unknown): string[] {
  if (err instanceof InputErrors) return err.errors.map((e) => e.message);
  if (err instanceof Error) return [err.message];
  return [String(err)];
}

describe('selectClusterCrds', () => {
  it('every CRD without --crd and --group; named ones; a group\'s; both add up; in the server\'s order', () => {
    assert.deepEqual(names(selectClusterCrds(CLUSTER, { crds: [], groups: [] })), names(CLUSTER));
    assert.deepEqual(names(selectClusterCrds(CLUSTER, { crds: ['widgets.test.kubegen.dev'], groups: [] })), ['widgets.test.kubegen.dev']);
    assert.deepEqual(names(selectClusterCrds(CLUSTER, { crds: [], groups: ['test.kubegen.dev'] })), ['widgets.test.kubegen.dev', 'gadgets.test.kubegen.dev']);
    assert.deepEqual(
      names(selectClusterCrds(CLUSTER, { crds: ['certificates.cert-manager.io', 'foos.samplecontroller.k8s.io'], groups: ['test.kubegen.dev'] })),
      ['foos.samplecontroller.k8s.io', 'widgets.test.kubegen.dev', 'gadgets.test.kubegen.dev', 'certificates.cert-manager.io'],
    );
  });

  it('names every --crd and --group the cluster lacks, at once, with the closest it has', () => {
    let caught: unknown;
    try {
      selectClusterCrds(CLUSTER, { crds: ['foos.samplecontroler.k8s.io', 'widgets', 'Certificate', 'nothing.like.it.example.org', 'widgets.test.kubegen.dev'], groups: ['test.kubegen.de', 'zzz'] });
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof InputErrors);
    assert.deepEqual(messagesOf(caught), [
      'cluster: no CustomResourceDefinition of group test.kubegen.de (did you mean test.kubegen.dev?)',
      'cluster: no CustomResourceDefinition of group zzz',
      'cluster:Certificate: no such CustomResourceDefinition (did you mean certificates.cert-manager.io?)',
      'cluster:foos.samplecontroler.k8s.io: no such CustomResourceDefinition (did you mean foos.samplecontroller.k8s.io?)',
      'cluster:nothing.like.it.example.org: no such CustomResourceDefinition',
      'cluster:widgets: no such CustomResourceDefinition (did you mean widgets.test.kubegen.dev?)',
    ]);
  });
});

describe('readClusterCrds on the fake transport', () => {
  const conn = (fake: FakeTransport) => ({ transport: fake, description: 'the fake' });

  it('lists every page through the dynamic client, items stamped when the server leaves their kind out', async () => {
    const fake = newFakeTransport([CRD_RESOURCE], ...CLUSTER);
    assert.deepEqual(names(await readClusterCrds(conn(fake), { crds: [], groups: ['test.kubegen.dev'] })), ['gadgets.test.kubegen.dev', 'widgets.test.kubegen.dev']);
    const bare = newFakeTransport([CRD_RESOURCE]);
    bare.prependReactor('list', 'customresourcedefinitions', () => ({
      handled: true,
      result: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinitionList', metadata: {}, items: [{ ...fooCrd(), apiVersion: undefined, kind: undefined }] },
    }));
    const [read] = await readClusterCrds(conn(bare), { crds: [], groups: [] });
    assert.deepEqual([read!.apiVersion, read!.kind], ['apiextensions.k8s.io/v1', 'CustomResourceDefinition']);
    assert.equal(parseCrdObjects([read as Record<string, unknown>]).resources[0]!.names.kind, 'Foo');
  });

  it('a failed list names the request, the cluster and the reason (a 403: as the server words it)', async () => {
    const fake = newFakeTransport([CRD_RESOURCE]);
    fake.prependReactor('list', 'customresourcedefinitions', () => ({
      handled: true,
      error: new ApiError(newStatus(403, 'Forbidden', 'customresourcedefinitions.apiextensions.k8s.io is forbidden: User "dev" cannot list resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope', { group: 'apiextensions.k8s.io', kind: 'customresourcedefinitions' })),
    }));
    await assert.rejects(readClusterCrds(conn(fake), { crds: [], groups: [] }), (e: unknown) => {
      assert.ok(e instanceof CliInputError);
      assert.match(e.message, /^--from-cluster: list customresourcedefinitions\.apiextensions\.k8s\.io\/v1 on the fake failed: customresourcedefinitions\.apiextensions\.k8s\.io is forbidden: User "dev" cannot list/);
      return true;
    });
  });
});

describe('parseCrdObjects', () => {
  it('gives the model the file gives, with what the server added dropped', () => {
    const fromFile = parseCrdText(fs.readFileSync(FOO_FILE, 'utf8'), FOO_FILE)[0]!;
    const fromCluster = parseCrdObjects([asServed(fooCrd()) as Record<string, unknown>]).resources[0]!;
    assert.equal(fromCluster.source.file, 'cluster:foos.samplecontroller.k8s.io');
    const strip = (r: typeof fromFile) => JSON.parse(JSON.stringify({ ...r, source: undefined, versions: r.versions.map((v) => ({ ...v, source: undefined })) })) as unknown;
    assert.deepEqual(strip(fromCluster), strip(fromFile));
    assert.deepEqual(Object.keys(fromCluster.annotations ?? {}), ['api-approved.kubernetes.io'], "kubectl's last-applied annotation is dropped");
  });

  it('reports every bad CRD, each named cluster:<name> with the JSON path', () => {
    const badScope = crd('bars.x.io', 'x.io', 'Bar');
    (badScope.spec as Record<string, unknown>)['scope'] = 'Galaxy';
    const noSchema = crd('bazs.x.io', 'x.io', 'Baz');
    delete ((noSchema.spec as { versions: Record<string, unknown>[] }).versions[0] as Record<string, unknown>)['schema'];
    let caught: unknown;
    try {
      parseCrdObjects([badScope, crd('ok.x.io', 'x.io', 'Ok'), noSchema] as Record<string, unknown>[]);
    } catch (err) {
      caught = err;
    }
    assert.deepEqual(messagesOf(caught), [
      'cluster:bars.x.io (at spec.scope): scope must be Namespaced or Cluster, found "Galaxy"',
      'cluster:bazs.x.io (at spec.versions[0].schema): version v1 has no schema.openAPIV3Schema; every version needs a structural schema',
    ]);
    assert.ok((caught as InputErrors).errors.every((e) => e instanceof InputError && e.location.line === 0));
  });
});

describe('fromCluster in the config file and the flags', () => {
  const file = '/proj/codegen.config.yaml';
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-cluster-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads true or a mapping (kubeconfig relative to the file)', () => {
    assert.deepEqual(parseConfigText('fromCluster: true\nout: gen\n', file).fromCluster, { crds: [], groups: [] });
    assert.deepEqual(parseConfigText('fromCluster:\n  kubeconfig: ../kc.yaml\n  context: dev\n  crds: [foos.a.io]\n  groups: [b.io, c.io]\n', file).fromCluster, {
      kubeconfig: '/kc.yaml',
      context: 'dev',
      crds: ['foos.a.io'],
      groups: ['b.io', 'c.io'],
    });
  });

  it('refuses other values, naming the file, line, column and key', () => {
    const cases: [string, string][] = [
      ['fromCluster: yes please\n', 'codegen.config.yaml:1:14 (at fromCluster): fromCluster must be true or a mapping of kubeconfig, context, crds, groups'],
      ['fromCluster:\n  crd: [a]\n', 'codegen.config.yaml:2:3 (at fromCluster.crd): unknown key "crd" in fromCluster (known keys: kubeconfig, context, crds, groups)'],
      ['fromCluster:\n  crds: []\n', 'codegen.config.yaml:2:9 (at fromCluster.crds): fromCluster.crds must be a non-empty list of CRD names'],
      ['fromCluster:\n  groups: [a, 3]\n', 'codegen.config.yaml:2:15 (at fromCluster.groups[1]): fromCluster.groups[1] must be a group (a string)'],
      ['fromCluster:\n  context: 7\n', 'codegen.config.yaml:2:12 (at fromCluster.context): fromCluster.context must be a context name (a string)'],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => parseConfigText(text, file, 'codegen.config.yaml'), (e: unknown) => e instanceof InputError && e.message === message, message);
    }
  });

  it('flags set or replace the cluster input; --crd and friends need --from-cluster; one input only', async () => {
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'fromCluster:\n  context: dev\n  crds: [foos.a.io]\nout: gen\n');
    const fromFile = await resolveConfig({}, dir);
    assert.deepEqual(fromFile.inputs, { cluster: { crds: ['foos.a.io'], groups: [], context: 'dev' } });
    const replaced = await resolveConfig({ crd: ['bars.b.io'], group: ['c.io'], kubeconfig: 'kc', context: 'prod' }, dir);
    assert.deepEqual(replaced.inputs, { cluster: { crds: ['bars.b.io'], groups: ['c.io'], kubeconfig: path.join(dir, 'kc'), context: 'prod' } });
    assert.deepEqual((await resolveConfig({ crds: ['x.yaml'] }, dir)).inputs, { crds: [path.join(dir, 'x.yaml')] }, '--crds replaces fromCluster');
    assert.deepEqual((await resolveConfig({ fromCluster: true, out: 'o' }, os.tmpdir())).inputs, { cluster: { crds: [], groups: [] } });

    const usage = async (flags: Parameters<typeof resolveConfig>[0], cwd: string, message: RegExp) =>
      assert.rejects(resolveConfig(flags, cwd), (e: unknown) => e instanceof UsageError && message.test(e.message), message.source);
    const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
    await usage({ crd: ['a.b.io'], out: 'o' }, empty, /^--crd goes with --from-cluster \(reading CRDs from a cluster\); did you mean --crds \(CRD files and folders\)\?$/);
    await usage({ kubeconfig: 'k', group: ['g'], out: 'o' }, empty, /^--kubeconfig, --group go with --from-cluster \(reading CRDs from a cluster\)$/);
    await usage({ fromCluster: true, crds: ['a.yaml'], out: 'o' }, empty, /^pass one of --crds, --apis and --from-cluster$/);
    await usage({ fromCluster: true, skipNonCrds: true, out: 'o' }, empty, /--skip-non-crds goes with --crds .*not --from-cluster/);
    await usage({ fromCluster: true, crd: [' '], out: 'o' }, empty, /--crd must not be empty/);
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'fromCluster: true\ncrds: [a.yaml]\nout: gen\n');
    await usage({}, dir, /codegen\.config\.yaml: set one of crds, apis and fromCluster/);
  });
});

describe('kubegen generate --from-cluster (main, on the fake transport)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-from-cluster-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function run(fake: FakeTransport, ...argv: string[]) {
    let out = '';
    let err = '';
    const io: MainIO = { cwd: dir, env: {}, stdout: (s) => void (out += s), stderr: { write: (s: string) => (err += s) }, now: () => 0 };
    let closed = 0;
    const connects: unknown[] = [];
    const code = await main(argv, io, {
      ...defaultPipeline,
      connectCluster: async (input) => {
        connects.push(input);
        return { transport: fake, description: 'the fake cluster', close: () => void closed++ };
      },
    });
    return { code, out, err, closed, connects };
  }

  it('writes what --crds <file> writes, byte for byte; verify agrees; the connection is closed', async () => {
    const fake = newFakeTransport([CRD_RESOURCE], asServed(fooCrd()), ...CLUSTER.slice(1));
    const cluster = await run(fake, 'generate', '--from-cluster', '--kubeconfig', 'kc.yaml', '--context', 'dev', '--crd', 'foos.samplecontroller.k8s.io', '--out', 'from-cluster', '-q');
    assert.equal(cluster.code, 0, cluster.err);
    assert.deepEqual(cluster.connects, [{ crds: ['foos.samplecontroller.k8s.io'], groups: [], kubeconfig: path.join(dir, 'kc.yaml'), context: 'dev' }]);
    assert.equal(cluster.closed, 1);
    const file = await run(fake, 'generate', '--crds', FOO_FILE, '--out', 'from-file', '-q');
    assert.equal(file.code, 0, file.err);
    const generated = treeSnapshot(path.join(dir, 'from-cluster'));
    assert.ok(Object.keys(generated).length > 5);
    assert.deepEqual(generated, treeSnapshot(path.join(dir, 'from-file')));
    const verify = await run(fake, 'verify', '--from-cluster', '--crd', 'foos.samplecontroller.k8s.io', '--out', 'from-cluster');
    assert.equal(verify.code, 0, verify.err);
    const wider = await run(fake, 'verify', '--from-cluster', '--group', 'test.kubegen.dev', 'samplecontroller.k8s.io', '--out', 'from-cluster');
    assert.equal(wider.code, 1, 'two more kinds: out of date');
    assert.match(wider.err, /is out of date/);
  });

  it('a --crd the cluster lacks: exit 1 naming it and the closest, nothing written', async () => {
    const fake = newFakeTransport([CRD_RESOURCE], ...CLUSTER);
    const r = await run(fake, 'generate', '--from-cluster', '--crd', 'foos.samplecontroler.k8s.io', 'gadgets.test.kubegen.dev', '--out', 'gen');
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: cluster:foos.samplecontroler.k8s.io: no such CustomResourceDefinition (did you mean foos.samplecontroller.k8s.io?)\n');
    assert.equal(fs.existsSync(path.join(dir, 'gen')), false);
    assert.equal(r.closed, 1);
  });

  it('a cluster without CRDs is an input error', async () => {
    const r = await run(newFakeTransport([CRD_RESOURCE]), 'generate', '--from-cluster', '--out', 'gen');
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: --from-cluster: the fake cluster has no CustomResourceDefinition\n');
  });
});
