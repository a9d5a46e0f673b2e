/**
 * The envtest profiles without starting anything: where each finds its binaries, the errors that say how to get
 * them, and `require` naming what a profile cannot serve. test/integration/envtest-profiles.test.ts starts `full` and
 * `crd-only`, envtest-cluster.test.ts the `cluster` one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { findAssets, mergeFlags, parseDuration } from '@kubegen/runtime/internal/testing/envtest/envtest-assets.js';
import { profileServes, requireCapabilities } from '@kubegen/runtime/internal/testing/envtest/envtest-profiles.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { hollowNodeNames } from '@kubegen/runtime/internal/testing/envtest/envtest-cluster.js';

const ENV_VARS = [
  'KUBEBUILDER_ASSETS', 'ENVTEST_DIR', 'KUBEGEN_ENVTEST_1_36_ASSETS', 'ENVTEST_1_36_DIR', 'KUBEGEN_ENVTEST_1_36_APISERVER', 'KUBEGEN_ENVTEST_1_36_ETCD', 'TEST_ASSET_ETCD',
  'TEST_ASSET_KUBE_APISERVER', 'TEST_ASSET_KUBE_CONTROLLER_MANAGER', 'TEST_ASSET_KUBE_SCHEDULER', 'TEST_ASSET_KUBEMARK',
];

describe('envtest assets per profile', () => {
  let saved: Record<string, string | undefined>;
  let dir: string;
  beforeEach(() => {
    saved = Object.fromEntries(ENV_VARS.map((k) => [k, process.env[k]]));
    for (const k of ENV_VARS) delete process.env[k];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-assets-'));
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const touch = (name: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
    return file;
  };

  it('crd-only takes etcd and apiextensions-apiserver from KUBEGEN_ENVTEST_1_36_ASSETS; full takes kube-apiserver from KUBEBUILDER_ASSETS', () => {
    const etcd = touch('etcd');
    const crdApiserver = touch('apiextensions-apiserver');
    const kubeApiserver = touch('kube-apiserver');
    process.env['KUBEGEN_ENVTEST_1_36_ASSETS'] = dir;
    assert.deepEqual(findAssets(undefined, 'crd-only'), { etcd, apiserver: crdApiserver });
    process.env['KUBEBUILDER_ASSETS'] = dir;
    assert.deepEqual(findAssets(undefined, 'full'), { etcd, apiserver: kubeApiserver });
  });

  it('crd-only falls back to $ENVTEST_1_36_DIR/bin, and fails naming the missing binary and the setup command', () => {
    process.env['ENVTEST_1_36_DIR'] = dir;
    assert.throws(() => findAssets(undefined, 'crd-only'), /profile crd-only.*no binary directory for etcd.*KUBEGEN_ENVTEST_1_36_ASSETS.*npx kubegen-setup-envtest-1\.36/);
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'etcd'), '', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'bin', 'apiextensions-apiserver'), '', { mode: 0o755 });
    assert.equal(findAssets(undefined, 'crd-only').apiserver, path.join(dir, 'bin', 'apiextensions-apiserver'));
    process.env['KUBEGEN_ENVTEST_1_36_ASSETS'] = path.join(dir, 'empty');
    assert.throws(() => findAssets(undefined, 'crd-only'), /empty\/etcd not found or not executable/);
  });

  it('cluster takes kube-apiserver and the controller-manager, scheduler and kubemark from KUBEBUILDER_ASSETS', () => {
    const etcd = touch('etcd');
    const apiserver = touch('kube-apiserver');
    process.env['KUBEBUILDER_ASSETS'] = dir;
    // A folder made before the cluster binaries were added: one error names all three and how to build them.
    assert.throws(
      () => findAssets(undefined, 'cluster'),
      /profile cluster\): kube-controller-manager, kube-scheduler, kubemark not found in .*: the cluster profile needs .* run `npx kubegen-setup-envtest`.*builds the three once/,
    );
    assert.deepEqual(findAssets(undefined, 'full'), { etcd, apiserver }, 'full does not need them');
    const controllerManager = touch('kube-controller-manager');
    const scheduler = touch('kube-scheduler');
    const elsewhere = path.join(dir, 'my-kubemark');
    fs.writeFileSync(elsewhere, '', { mode: 0o755 });
    process.env['TEST_ASSET_KUBEMARK'] = elsewhere;
    assert.deepEqual(findAssets(undefined, 'cluster'), { etcd, apiserver, cluster: { controllerManager, scheduler, kubemark: elsewhere } });
  });

  it('cluster looks in $ENVTEST_DIR/bin only when all five binaries are there', () => {
    process.env['ENVTEST_DIR'] = dir;
    fs.mkdirSync(path.join(dir, 'bin'));
    for (const b of ['etcd', 'kube-apiserver']) fs.writeFileSync(path.join(dir, 'bin', b), '', { mode: 0o755 });
    assert.equal(findAssets(undefined, 'full').apiserver, path.join(dir, 'bin', 'kube-apiserver'));
    assert.throws(() => findAssets(undefined, 'cluster'), /profile cluster\): no binary directory for etcd/);
    for (const b of ['kube-controller-manager', 'kube-scheduler', 'kubemark']) fs.writeFileSync(path.join(dir, 'bin', b), '', { mode: 0o755 });
    assert.equal(findAssets(undefined, 'cluster').cluster?.kubemark, path.join(dir, 'bin', 'kubemark'));
  });

  it('a per-binary override that is not executable is named', () => {
    process.env['KUBEGEN_ENVTEST_1_36_APISERVER'] = path.join(dir, 'nope');
    process.env['KUBEGEN_ENVTEST_1_36_ASSETS'] = dir;
    touch('etcd');
    assert.throws(() => findAssets(undefined, 'crd-only'), /KUBEGEN_ENVTEST_1_36_APISERVER=.*nope is not an executable file/);
  });

  it('parses Go durations and merges flags, later lists winning', () => {
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('45'), 45_000);
    assert.equal(parseDuration('5x'), undefined);
    assert.deepEqual(mergeFlags(['--a=1', '--b=2'], ['--a=3', 'loose']), ['--a=3', '--b=2', 'loose']);
  });
});

describe('envtest profile capabilities', () => {
  it('full serves namespaces, leases and webhooks but not CEL, WatchList or shard selectors; crd-only the reverse, and Leases', () => {
    assert.ok(profileServes('full', 'leases') && profileServes('full', 'admission-webhooks'));
    assert.ok(!profileServes('full', 'cel-validation') && !profileServes('full', 'watch-list') && !profileServes('full', 'shard-selectors'));
    assert.ok(profileServes('crd-only', 'cel-validation') && profileServes('crd-only', 'watch-list') && profileServes('crd-only', 'server-side-apply'));
    assert.ok(profileServes('crd-only', 'leases') && profileServes('crd-only', 'shard-selectors'));
    assert.ok(!profileServes('crd-only', 'namespaces') && !profileServes('crd-only', 'events'));
  });

  it('require names every missing capability and the profile that has them', () => {
    assert.doesNotThrow(() => requireCapabilities('crd-only', ['custom-resources', 'cel-validation']));
    assert.throws(
      () => requireCapabilities('crd-only', ['custom-resources', 'rbac', 'events']),
      /the 'crd-only' profile \(CRD apiserver 1\.36.*\) cannot serve rbac, events; the 'full' profile \(kube-apiserver 1\.20.*\) serves them/,
    );
    assert.throws(() => requireCapabilities('full', ['watch-list']), /the 'full' profile .* cannot serve watch-list; the 'crd-only' profile .* serves it/);
  });

  it('cluster serves what full does and garbage collection, namespace deletion, workloads and nodes; they send full there', () => {
    assert.doesNotThrow(() => requireCapabilities('cluster', ['rbac', 'leases', 'admission-webhooks', 'garbage-collection', 'namespace-deletion', 'workloads', 'nodes']));
    assert.throws(
      () => requireCapabilities('full', ['events', 'garbage-collection', 'namespace-deletion']),
      /the 'full' profile \(kube-apiserver 1\.20 \+ etcd 3\.4\) cannot serve garbage-collection, namespace-deletion; the 'cluster' profile \(kube-apiserver 1\.20 \+ etcd 3\.4 \+ kube-controller-manager \+ kube-scheduler \+ Kubemark hollow nodes\) serves them/,
    );
    assert.throws(() => requireCapabilities('crd-only', ['workloads']), /the 'crd-only' profile .* cannot serve workloads; the 'cluster' profile .* serves it/);
    assert.throws(() => requireCapabilities('cluster', ['cel-validation']), /the 'cluster' profile .* cannot serve cel-validation; the 'crd-only' profile .* serves it/);
    // Nothing serves CEL and nodes together: no profile is named.
    assert.throws(() => requireCapabilities('full', ['cel-validation', 'nodes']), /cannot serve cel-validation, nodes$/);
  });

  it('cluster options are refused on another profile, and a node count must be a whole number', async () => {
    await assert.rejects(Envtest.start({ profile: 'full', cluster: { nodes: 1 } }), /the cluster options need the 'cluster' profile, not 'full'/);
    await assert.rejects(Envtest.start({ profile: 'cluster', cluster: { nodes: 1.5 } }), /cluster\.nodes must be a whole number >= 0, got 1\.5/);
    assert.deepEqual(hollowNodeNames(2), ['hollow-node-0', 'hollow-node-1']);
  });

  it('garbage collection: cluster (kube-controller-manager) and crd-only (kubegen\'s collector), not full', () => {
    assert.ok(profileServes('cluster', 'garbage-collection') && profileServes('crd-only', 'garbage-collection'));
    assert.throws(() => requireCapabilities('full', ['garbage-collection']), /the 'full' profile .* cannot serve garbage-collection; the 'crd-only' profile \(.*garbage collector\) serves it/);
    assert.throws(() => requireCapabilities('crd-only', ['namespace-deletion']), /cannot serve namespace-deletion; the 'cluster' profile/);
  });

  it('the garbageCollector option is refused, before anything starts, with a profile other than crd-only', async () => {
    await assert.rejects(Envtest.start({ profile: 'full', garbageCollector: true }), /the garbageCollector option needs the 'crd-only' profile, not 'full'/);
    await assert.rejects(Envtest.start({ profile: 'cluster', garbageCollector: {} }), /needs the 'crd-only' profile, not 'cluster' \(it runs kube-controller-manager's\)/);
  });
});
