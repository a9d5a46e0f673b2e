/**
 * `kubegen generate --from-cluster` and `verify --from-cluster` against a real kube-apiserver 1.20 (the `full` envtest
 * profile; issue 24): the CRDs a cluster serves generate exactly what their files generate (sample-controller's Foo,
 * and a group of two CRDs installed for this test), `--group` selects, `verify` notices a CRD changed in the cluster,
 * a missing `--crd` or context fails naming it, and `codegen.config.yaml`'s `fromCluster` does the same as the flags.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DynamicClient } from '@kubegen/runtime/internal/dynamic/dynamic-client.js';
import { runCli, runCodegenBin } from '../support/cli.js';
import { fixture, SAMPLE_CRD } from '../support/paths.js';
import { treeSnapshot } from '../support/tree.js';
import { sharedEnv, type TestEnv } from './support/env.js';

const GROUP_FILE = fixture('cluster-input', 'cluster.kubegen.dev.yaml');
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

describe('kubegen --from-cluster against kube-apiserver', () => {
  let env: TestEnv;
  let dir: string;

  before(async () => {
    env = await sharedEnv({ crdPaths: [GROUP_FILE] });
  });
  after(async () => {
    await env?.release();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-from-cluster-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--crd foos.samplecontroller.k8s.io generates exactly what --crds <its file> generates', async () => {
    const cluster = await runCli(dir, 'generate', '--from-cluster', '--kubeconfig', env.kubeconfigPath, '--crd', 'foos.samplecontroller.k8s.io', '--out', 'from-cluster');
    assert.equal(cluster.code, 0, cluster.err);
    assert.match(cluster.out, /generated \d+ files for 1 kinds/);
    const file = await runCli(dir, 'generate', '--crds', SAMPLE_CRD, '--out', 'from-file', '-q');
    assert.equal(file.code, 0, file.err);
    const generated = treeSnapshot(path.join(dir, 'from-cluster'));
    assert.ok(Object.keys(generated).some((f) => f.endsWith('types.ts')));
    assert.deepEqual(generated, treeSnapshot(path.join(dir, 'from-file')));
  });

  it('--group selects the group\'s CRDs (the same bytes as their file); verify agrees, then notices a change in the cluster', async () => {
    const args = ['--from-cluster', '--kubeconfig', env.kubeconfigPath, '--context', 'envtest', '--group', 'cluster.kubegen.dev', '--out', 'gen'];
    const gen = await runCli(dir, 'generate', ...args);
    assert.equal(gen.code, 0, gen.err);
    assert.match(gen.out, /for 2 kinds/);
    assert.deepEqual(Object.keys(treeSnapshot(path.join(dir, 'gen'))).filter((f) => f.endsWith('types.ts')).sort(), ['cluster.kubegen.dev/v1/types.ts', 'cluster.kubegen.dev/v1beta1/types.ts']);
    const file = await runCli(dir, 'generate', '--crds', GROUP_FILE, '--out', 'from-file', '-q');
    assert.equal(file.code, 0, file.err);
    assert.deepEqual(treeSnapshot(path.join(dir, 'gen')), treeSnapshot(path.join(dir, 'from-file')));
    assert.equal((await runCli(dir, 'verify', ...args)).code, 0);

    // A field added to the CRD in the cluster: verify sees the generated types out of date.
    const crds = new DynamicClient(env.transport).resource(CRDS);
    const fieldPath = '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/zeta';
    await crds.patch('doohickeys.cluster.kubegen.dev', { type: 'json', patch: [{ op: 'add', path: fieldPath, value: { type: 'string' } }] });
    try {
      const stale = await runCli(dir, 'verify', ...args);
      assert.equal(stale.code, 1);
      assert.match(stale.out, /\+\s+zeta\?: string;/);
      assert.match(stale.err, /gen is out of date/);
    } finally {
      await crds.patch('doohickeys.cluster.kubegen.dev', { type: 'json', patch: [{ op: 'remove', path: fieldPath }] });
    }
    assert.equal((await runCli(dir, 'verify', ...args)).code, 0);
  });

  it('a --crd the cluster lacks fails naming it and the closest, writing nothing; so does an unknown context', async () => {
    const r = await runCli(dir, 'generate', '--from-cluster', '--kubeconfig', env.kubeconfigPath, '--crd', 'gizmo.cluster.kubegen.dev', 'foos.samplecontroller.k8s.io', '--out', 'gen');
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: cluster:gizmo.cluster.kubegen.dev: no such CustomResourceDefinition (did you mean gizmos.cluster.kubegen.dev?)\n');
    assert.equal(fs.existsSync(path.join(dir, 'gen')), false);
    const ctx = await runCli(dir, 'generate', '--from-cluster', '--kubeconfig', env.kubeconfigPath, '--context', 'prod', '--out', 'gen');
    assert.equal(ctx.code, 1);
    assert.match(ctx.err, /^error: --from-cluster: cannot load the cluster's configuration: .*context "prod"/);
    assert.equal(fs.existsSync(path.join(dir, 'gen')), false);
  });

  it('codegen.config.yaml fromCluster, run by the kubegen binary, generates what the flags generate', async () => {
    fs.copyFileSync(env.kubeconfigPath, path.join(dir, 'kubeconfig'));
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'fromCluster:\n  kubeconfig: kubeconfig\n  crds: [gizmos.cluster.kubegen.dev]\nout: from-config\n');
    const r = runCodegenBin(dir);
    assert.equal(r.code, 0, r.stderr);
    const flags = await runCli(dir, 'generate', '--from-cluster', '--crd', 'gizmos.cluster.kubegen.dev', '--out', 'from-flags', '-q');
    assert.equal(flags.code, 0, flags.err);
    const fromConfig = treeSnapshot(path.join(dir, 'from-config'));
    assert.ok(Object.keys(fromConfig).includes('cluster.kubegen.dev/v1/types.ts'));
    assert.deepEqual(fromConfig, treeSnapshot(path.join(dir, 'from-flags')));
  });
});
