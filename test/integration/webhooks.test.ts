/**
 * Admission and conversion webhooks called by a real kube-apiserver (issue 11): a WebhookServer in this process, a
 * two-version Foo (fixtures/test-crds/foos.webhooks.kubegen.dev.yaml, v1alpha1 stored), webhook configurations and
 * the CRD's conversion pointed at the server by the envtest helpers. The tests run in order: the last one takes the
 * server down.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nullLogger, ResourceClient } from '@kubegen/runtime';
import {
  conversionWebhook, defaultingWebhook, generateServingCertificate, validatingWebhook, WebhookServer,
  writeServingCertificate,
} from '@kubegen/runtime/webhook';
import type { KubeObject } from '@kubegen/runtime';
import type { ResourceInfo } from '@kubegen/runtime/client';
import type { ServingCertificate } from '@kubegen/runtime/webhook';
import { CRD_RESOURCE, eventually, installWebhooks, MUTATING_WEBHOOK_RESOURCE, setConversionWebhook, VALIDATING_WEBHOOK_RESOURCE, waitForWebhook } from '@kubegen/runtime/testing';
import { sharedEnv, type TestEnv } from './support/env.js';

interface FooV1alpha1 extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
}
interface FooV1 extends KubeObject {
  spec?: { deployment?: { name?: string; replicas?: number } };
}

const GROUP = 'webhooks.kubegen.dev';
const info = (version: string): ResourceInfo => ({ group: GROUP, version, resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true });
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function configurations(suffix: string, failurePolicy: 'Fail' | 'Ignore'): object[] {
  const common = {
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy,
    matchPolicy: 'Equivalent',
    timeoutSeconds: 5,
    rules: [{ apiGroups: [GROUP], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['foos'] }],
  };
  return [
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: `foo-defaulter-${suffix}` }, webhooks: [{ ...common, name: 'mfoo.webhooks.kubegen.dev', clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/mutate-foo' } } }] },
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `foo-validator-${suffix}` }, webhooks: [{ ...common, name: 'vfoo.webhooks.kubegen.dev', clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/validate-foo' } } }] },
  ];
}

describe('webhooks through kube-apiserver (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let dir: string;
  let certs: ServingCertificate;
  let server: WebhookServer;
  let url: string;
  let uninstall: () => Promise<void> = async () => undefined;
  const suffix = crypto.randomBytes(3).toString('hex');
  let v1alpha1: ResourceClient<FooV1alpha1>;
  let v1: ResourceClient<FooV1>;

  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('webhooks');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-webhook-certs-'));
    certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(dir, certs);
    server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: nullLogger });
    server.register('/mutate-foo', defaultingWebhook<FooV1alpha1>((foo) => {
      foo.spec ??= {};
      foo.spec.replicas ??= 1;
    }));
    server.register('/validate-foo', validatingWebhook<FooV1alpha1>({
      validateCreate(foo) {
        validateSpec(foo);
      },
      validateUpdate(old, foo) {
        validateSpec(foo);
        if (old.spec?.deploymentName !== foo.spec?.deploymentName) throw new Error('spec.deploymentName may not change');
      },
    }));
    server.register('/convert', conversionWebhook({
      hub: `${GROUP}/v1alpha1`,
      spokes: {
        [`${GROUP}/v1`]: {
          convertTo: (foo: FooV1): FooV1alpha1 => {
            const { deployment, ...rest } = foo.spec ?? {};
            return { ...foo, spec: { ...rest, ...(deployment?.name !== undefined ? { deploymentName: deployment.name } : {}), ...(deployment?.replicas !== undefined ? { replicas: deployment.replicas } : {}) } } as FooV1alpha1;
          },
          convertFrom: (hub: FooV1alpha1): FooV1 => {
            const { deploymentName, replicas, ...rest } = hub.spec ?? {};
            const deployment = { ...(deploymentName !== undefined ? { name: deploymentName } : {}), ...(replicas !== undefined ? { replicas } : {}) };
            return { ...hub, spec: { ...rest, ...(Object.keys(deployment).length > 0 ? { deployment } : {}) } } as FooV1;
          },
        },
      },
    }));
    url = `https://${await server.listen()}`;
    await setConversionWebhook(env.transport, `foos.${GROUP}`, { url, caCert: certs.caCert, path: '/convert' });
    uninstall = await installWebhooks(env.transport, { url, caCert: certs.caCert, configurations: configurations(suffix, 'Fail') });
    v1alpha1 = new ResourceClient<FooV1alpha1>(env.transport, info('v1alpha1'), ns);
    v1 = new ResourceClient<FooV1>(env.transport, info('v1'), ns);
    const probe = { apiVersion: `${GROUP}/v1alpha1`, kind: 'Foo', metadata: { name: 'probe' }, spec: { deploymentName: 'probe' } };
    await waitForWebhook(server, '/validate-foo', () => v1alpha1.create(probe, { dryRun: true }));
    // A v1 write is converted to the storage version v1alpha1: the apiserver calls /convert.
    await waitForWebhook(server, '/convert', () => v1.create({ apiVersion: `${GROUP}/v1`, kind: 'Foo', metadata: { name: 'probe' }, spec: { deployment: { name: 'probe' } } }, { dryRun: true }));
  });

  after(async () => {
    await uninstall().catch(() => undefined);
    // The shared control plane outlives this file: no conversion webhook left pointing at a stopped server.
    await new ResourceClient<KubeObject>(env.transport, CRD_RESOURCE)
      .patch(`foos.${GROUP}`, { type: 'merge', patch: { spec: { conversion: { strategy: 'None', webhook: null } } } })
      .catch(() => undefined);
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await env?.release();
  });

  function validateSpec(foo: FooV1alpha1): void {
    const name = foo.spec?.deploymentName ?? '';
    if (!DNS1123_LABEL.test(name) || name.length > 63) throw new Error(`spec.deploymentName "${name}" must be a DNS-1123 label`);
    const replicas = foo.spec?.replicas ?? 1;
    if (replicas < 0 || replicas > 10) throw new Error(`spec.replicas ${replicas} must be between 0 and 10`);
  }

  const fooV1alpha1 = (name: string, spec: FooV1alpha1['spec']): FooV1alpha1 => ({ apiVersion: `${GROUP}/v1alpha1`, kind: 'Foo', metadata: { name }, spec });

  it("refuses an invalid Foo with the validator's message, and an update that changes deploymentName", async () => {
    await assert.rejects(v1alpha1.create(fooV1alpha1('bad', { deploymentName: 'Not_A_Label' })), /denied the request: spec\.deploymentName "Not_A_Label" must be a DNS-1123 label/);
    await assert.rejects(v1alpha1.create(fooV1alpha1('many', { deploymentName: 'many', replicas: 11 })), /spec\.replicas 11 must be between 0 and 10/);
    // Through v1 as well: the apiserver converts the object to v1alpha1 for the webhooks (matchPolicy Equivalent).
    await assert.rejects(v1.create({ apiVersion: `${GROUP}/v1`, kind: 'Foo', metadata: { name: 'bad1' }, spec: { deployment: { name: 'UPPER' } } }), /must be a DNS-1123 label/);
    const ok = await v1alpha1.create(fooV1alpha1('immutable', { deploymentName: 'first' }));
    await assert.rejects(v1alpha1.update({ ...ok, spec: { ...ok.spec, deploymentName: 'second' } }), /spec\.deploymentName may not change/);
  });

  it('stores a Foo without replicas with replicas 1 (defaulting webhook)', async () => {
    const created = await v1alpha1.create(fooV1alpha1('defaulted', { deploymentName: 'defaulted' }));
    assert.equal(created.spec?.replicas, 1);
    assert.equal((await v1alpha1.get('defaulted')).spec?.replicas, 1);
    const explicit = await v1alpha1.create(fooV1alpha1('zero', { deploymentName: 'zero', replicas: 0 }));
    assert.equal(explicit.spec?.replicas, 0, 'an explicit 0 is kept');
  });

  it('a Foo written as v1 reads back as v1alpha1 and the other way round, no field lost (random objects)', async () => {
    let seed = 7;
    const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 20; i++) {
      const name = `rt-${i}`;
      const deploymentName = `d${rnd(1000)}-${'x'.repeat(rnd(5))}${rnd(10)}`;
      const replicas = rnd(11);
      const labels = rnd(2) === 0 ? { tier: `t${rnd(3)}` } : undefined;
      const metadata = { name, ...(labels ? { labels } : {}) };
      if (i % 2 === 0) {
        await v1.create({ apiVersion: `${GROUP}/v1`, kind: 'Foo', metadata, spec: { deployment: { name: deploymentName, replicas } } });
        const old = await v1alpha1.get(name);
        assert.deepEqual(old.spec, { deploymentName, replicas }, `v1 → v1alpha1 (${name})`);
        assert.deepEqual(old.metadata?.labels, labels);
      } else {
        await v1alpha1.create(fooV1alpha1(name, { deploymentName, replicas }));
        const now = await v1.get(name);
        assert.equal(now.apiVersion, `${GROUP}/v1`);
        assert.deepEqual(now.spec, { deployment: { name: deploymentName, replicas } }, `v1alpha1 → v1 (${name})`);
      }
      // And back again through the other version: the object is unchanged.
      const viaV1 = await v1.get(name);
      await v1.update(viaV1);
      assert.deepEqual((await v1alpha1.get(name)).spec, { deploymentName, replicas });
    }
    const listed = await v1.list();
    assert.ok(listed.items.filter((f) => f.metadata?.name?.startsWith('rt-')).every((f) => f.spec?.deployment?.name !== undefined), 'a v1 list converts every item');
  });

  it('picks up a rotated certificate on disk without a restart', async () => {
    const served = server.served('/validate-foo');
    const next = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(dir, next);
    // The apiserver trusts the new CA only: a call succeeds only if the running server now serves the new pair.
    await uninstall();
    uninstall = await installWebhooks(env.transport, { url, caCert: next.caCert, configurations: configurations(suffix, 'Fail') });
    await setConversionWebhook(env.transport, `foos.${GROUP}`, { url, caCert: next.caCert, path: '/convert' });
    certs = next;
    await eventually(async () => {
      await assert.rejects(v1alpha1.create(fooV1alpha1('rotated', { deploymentName: 'Bad_Again' })), /denied the request: spec\.deploymentName/);
    }, { timeoutMs: 20_000 });
    assert.ok(server.served('/validate-foo') > served);
  });

  it('with the server down, failurePolicy Fail refuses writes and Ignore lets them through', async () => {
    await server.close();
    await assert.rejects(v1alpha1.create(fooV1alpha1('down', { deploymentName: 'down' })), /failed calling webhook/);
    for (const [resource, name] of [[MUTATING_WEBHOOK_RESOURCE, `foo-defaulter-${suffix}`], [VALIDATING_WEBHOOK_RESOURCE, `foo-validator-${suffix}`]] as const) {
      const client = new ResourceClient<KubeObject & { webhooks: { failurePolicy?: string }[] }>(env.transport, resource);
      const config = await client.get(name);
      await client.update({ ...config, webhooks: config.webhooks.map((w) => ({ ...w, failurePolicy: 'Ignore' })) });
    }
    const created = await eventually(() => v1alpha1.create(fooV1alpha1('ignored', { deploymentName: 'Not_Checked' })), { timeoutMs: 20_000 });
    assert.equal(created.spec?.deploymentName, 'Not_Checked', 'admitted unvalidated');
    assert.equal(created.spec?.replicas, undefined, 'and not defaulted');
  });
});
