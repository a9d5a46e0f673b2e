/**
 * The `crd-only` envtest profile started for real: the CRD apiserver of Kubernetes 1.36 with a client-certificate
 * admin, a clear error for what it cannot serve, Leases and shard selectors, custom resources in any namespace name, and the same fault hooks
 * as the `full` profile (apiserver restart on the same data, etcd compaction).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ResourceClient } from '@kubegen/runtime';
import type { KubeObject } from '@kubegen/runtime';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { LeaderElector } from '@kubegen/runtime/internal/leaderelection/leader-elector.js';
import { HASH_SPACE_END, inRanges, shardHash, shardRangeSelector } from '@kubegen/runtime/internal/sharding/shard-hash.js';
import { createLogger, getLogger, setLogger } from '@kubegen/runtime/internal/log.js';
import { createTestNamespace, testNamespaceName } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { installWebhooks } from '@kubegen/runtime/internal/testing/envtest/envtest-webhooks.js';
import { SAMPLE_CRD } from '../support/paths.js';
import { FOO } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';

describe('envtest profile crd-only (CRD apiserver 1.36)', () => {
  let env: Envtest;
  before(async () => {
    env = await Envtest.start({ profile: 'crd-only', crdPaths: [SAMPLE_CRD] });
  });
  after(async () => env?.stop());

  it('serves Kubernetes 1.36 to an admin authenticated by a client certificate', async () => {
    const transport = env.transport();
    try {
      const version = JSON.parse((await transport.raw('GET', '/version')).body.toString('utf8')) as { major: string; minor: string };
      assert.deepEqual([version.major, version.minor], ['1', '36']);
      const user = JSON.parse(fs.readFileSync(env.kubeconfigPath, 'utf8')).users[0].user as Record<string, string>;
      assert.deepEqual(Object.keys(user).sort(), ['client-certificate-data', 'client-key-data']);
      assert.match(Buffer.from(user['client-certificate-data']!, 'base64').toString(), /BEGIN CERTIFICATE/);
      assert.throws(() => env.token, /authenticates with a client certificate/);
      assert.equal(env.profile, 'crd-only');
    } finally {
      transport.close();
    }
  });

  it('says what it cannot serve when asked for it, and when a helper reaches for it', async () => {
    assert.throws(() => env.requireCapabilities('custom-resources', 'events'), /'crd-only' profile .* cannot serve events; the 'full' profile .* serves it/);
    assert.equal(testNamespaceName('My Test').replace(/-[0-9a-f]{6}$/, ''), 'my-test');
    assert.doesNotThrow(() => env.requireCapabilities('cel-validation', 'watch-list', 'server-side-apply'));
    assert.ok(env.serves('watch-list') && !env.serves('events'));
    // Every request is allowed there: a manager cannot be run as its ServiceAccount against a project's RBAC.
    await assert.rejects(env.installProjectRbac('/nonexistent-project'), /'crd-only' profile .* cannot serve rbac, core-kinds; the 'full' profile .* serves them/);
    const transport = env.transport();
    try {
      await assert.rejects(createTestNamespace(transport, 'x'), /does not serve namespaces \(404\).*use the 'full' profile/);
      const webhook = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'w' }, webhooks: [{ name: 'w.example.com', clientConfig: { service: { path: '/validate' } } }] };
      await assert.rejects(installWebhooks(transport, { url: 'https://127.0.0.1:1', caCert: 'x', configurations: [webhook] }), /does not serve ValidatingWebhookConfiguration.*has no admission-webhooks: use the 'full' profile/);
    } finally {
      transport.close();
    }
  });

  it('serves Leases to leader election, and lists by KEP-5866 shard selector (ShardedListAndWatch on)', async () => {
    assert.doesNotThrow(() => env.requireCapabilities('leases', 'shard-selectors'));
    const transport = env.transport();
    const stop = new AbortController();
    try {
      const ns = testNamespaceName('leases');
      const leader = new Promise<void>((resolve) => {
        const elector = new LeaderElector({ transport, namespace: ns, name: 'lock', identity: 'me', onStartedLeading: () => resolve() });
        void elector.run(stop.signal);
      });
      await leader;
      const lease = await new ResourceClient<KubeObject>(transport, builtinResources.leases, ns).get('lock');
      assert.equal((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity, 'me');
      // Two halves of the hash space: every Foo is listed by exactly one of them, and by the one its UID hashes to.
      const foos = new ResourceClient<KubeObject>(transport, FOO, ns);
      const made = await Promise.all(Array.from({ length: 8 }, (_, i) => foos.create({ metadata: { name: `f${i}` }, spec: { deploymentName: 'd', replicas: 1 } } as KubeObject)));
      const low = [{ start: '0x0000000000000000', end: '0x8000000000000000' }];
      const high = [{ start: '0x8000000000000000', end: HASH_SPACE_END }];
      const names = async (ranges: typeof low): Promise<string[]> => ((await foos.list({ shardSelector: shardRangeSelector(ranges) })).items ?? []).map((f) => f.metadata!.name!).sort();
      const expectLow = made.filter((f) => inRanges(shardHash(f.metadata!.uid!), low)).map((f) => f.metadata!.name!).sort();
      assert.deepEqual(await names(low), expectLow);
      assert.deepEqual(await names(high), made.map((f) => f.metadata!.name!).filter((n) => !expectLow.includes(n)).sort());
    } finally {
      stop.abort();
      transport.close();
    }
  });

  it('stores a namespaced custom resource in any namespace name, and keeps it across an apiserver restart and an etcd compaction', async () => {
    const transport = env.transport();
    try {
      const foos = new ResourceClient<KubeObject>(transport, FOO, testNamespaceName('anywhere'));
      const created = await foos.create({ metadata: { name: 'kept' }, spec: { deploymentName: 'd', replicas: 1 } } as KubeObject);
      await env.stopApiServer();
      await env.startApiServer();
      assert.ok((await env.compactEtcd()) > 0);
      assert.equal((await foos.get('kept')).metadata?.uid, created.metadata?.uid);
    } finally {
      transport.close();
    }
  });
});

describe('envtest profile full (kube-apiserver 1.20)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => env?.release());

  it('starts without logging a stalled request (its readiness polls time out while kube-apiserver starts)', async () => {
    const lines: string[] = [];
    const previous = getLogger();
    setLogger(createLogger({ level: 'debug', format: 'json', write: (l) => void lines.push(l) }));
    let own: Envtest | undefined;
    try {
      own = await Envtest.start();
    } finally {
      setLogger(previous);
      await own?.stop();
    }
    assert.deepEqual(lines.filter((l) => l.includes('stalled')), []);
  });

  it('serves 1.20 and names the profile that has what it lacks', async () => {
    const version = JSON.parse((await env.transport.raw('GET', '/version')).body.toString('utf8')) as { minor: string };
    assert.equal(version.minor, '20');
    assert.equal(env.profile, 'full');
    assert.ok((await env.newNamespace('full')).startsWith('full-'), 'namespaces are created for real');
  });
});
