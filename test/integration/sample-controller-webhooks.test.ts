/**
 * The sample controller's webhooks (examples/sample-controller/src/webhooks.ts) served by the example process itself
 * (`--webhook-port`, `--webhook-cert-dir`) and called by the real kube-apiserver for Foos of this test's namespace
 * only (a namespaceSelector keeps the shared control plane's other tests out): an invalid Foo is refused with the
 * validator's message, a Foo without replicas is stored with 1, an update may not change deploymentName. The
 * v1 ↔ v1alpha1 conversion through a real apiserver is in webhooks.test.ts (a CRD of its own).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isConflict, ResourceClient } from '@kubegen/runtime';
import { generateServingCertificate, writeServingCertificate } from '@kubegen/runtime/webhook';
import type { KubeObject } from '@kubegen/runtime';
import { createTestNamespace, installWebhooks } from '@kubegen/runtime/testing';
import { FOO } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureSampleControllerBuilt, freePort, SampleControllerProcess } from './support/sample-controller-process.js';

interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
}

describe('sample-controller webhooks through kube-apiserver (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let dir: string;
  let proc: SampleControllerProcess | undefined;
  let uninstall: () => Promise<void> = async () => undefined;
  let foos: ResourceClient<Foo>;

  before(async () => {
    ensureSampleControllerBuilt();
    env = await sharedEnv();
    const suffix = crypto.randomBytes(3).toString('hex');
    // kube-apiserver 1.20 does not label namespaces with their name yet: a label of our own selects this one.
    ns = await createTestNamespace(env.transport, 'sc-webhooks', { 'kubegen.dev/webhook-test': suffix });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sc-webhook-certs-'));
    const certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
    await writeServingCertificate(dir, certs);
    const port = await freePort();
    proc = new SampleControllerProcess('webhooks', [`--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, `--webhook-port=${port}`, `--webhook-cert-dir=${dir}`]);
    await proc.waitForLog((l) => l.msg === 'serving webhooks', 'the webhook server');
    const common = {
      sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', matchPolicy: 'Equivalent',
      namespaceSelector: { matchLabels: { 'kubegen.dev/webhook-test': suffix } },
      rules: [{ apiGroups: ['samplecontroller.k8s.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['foos'] }],
    };
    uninstall = await installWebhooks(env.transport, {
      url: `https://127.0.0.1:${port}`,
      caCert: certs.caCert,
      configurations: [
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: `sc-defaulter-${suffix}` }, webhooks: [{ ...common, name: 'mfoo.samplecontroller.k8s.io', clientConfig: { service: { name: 's', namespace: 's', path: '/mutate-samplecontroller-k8s-io-v1alpha1-foo' } } }] },
        { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `sc-validator-${suffix}` }, webhooks: [{ ...common, name: 'vfoo.samplecontroller.k8s.io', clientConfig: { service: { name: 's', namespace: 's', path: '/validate-samplecontroller-k8s-io-v1alpha1-foo' } } }] },
      ],
    });
    foos = new ResourceClient<Foo>(env.transport, FOO, ns);
  });

  after(async () => {
    await uninstall().catch(() => undefined);
    if (proc?.running) {
      proc.child.kill('SIGTERM');
      await proc.waitForExit();
    }
    fs.rmSync(dir, { recursive: true, force: true });
    await env?.release();
  });

  const foo = (name: string, spec: Foo['spec']): Foo => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name }, spec });

  it('refuses an invalid deploymentName with the validator\'s message, defaults replicas to 1, keeps deploymentName fixed', async () => {
    // The apiserver picks new configurations up asynchronously: retry until the validator answers.
    const deadline = performance.now() + 20_000;
    for (;;) {
      const err = await foos.create(foo('bad', { deploymentName: 'Not_A_Label' })).then(
        async (created) => {
          await foos.delete(created.metadata!.name!);
          return undefined;
        },
        (e: unknown) => e as Error,
      );
      if (err) {
        assert.match(err.message, /denied the request: spec\.deploymentName "Not_A_Label" must be a DNS-1123 label/);
        break;
      }
      assert.ok(performance.now() < deadline, 'the apiserver never called the validating webhook');
      await new Promise((r) => setTimeout(r, 200));
    }
    const created = await foos.create(foo('defaulted', { deploymentName: 'defaulted' }));
    assert.equal(created.spec?.replicas, 1);
    // The running controller writes the new Foo's status: an update from a read it raced is refused as a conflict
    // before admission, so the rename is sent from a fresh read until the webhook is what answers.
    const rename = async (): Promise<Foo> => {
      for (;;) {
        const current = await foos.get('defaulted');
        try {
          return await foos.update({ ...current, spec: { ...current.spec, deploymentName: 'other' } });
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
    };
    await assert.rejects(rename(), /spec\.deploymentName may not change/);
  });
});
