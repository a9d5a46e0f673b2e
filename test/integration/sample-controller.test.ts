/**
 * The compiled sample controller (`examples/sample-controller/dist/main.js`) against a real apiserver: Foos get their
 * Deployments (owner reference, labels, nginx), replica changes are followed, a deleted Deployment comes back, a
 * Deployment the Foo does not own gets a `Warning ErrResourceExists` event and is left alone, the Deployment's
 * `availableReplicas` reaches the Foo status, and SIGTERM exits 0. There is no controller-manager, so the test
 * writes the Deployment status itself. The controller is confined to the test's namespace (`--namespace`).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { Deployment, Event } from '@kubegen/runtime/internal/builtin/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import type { Foo } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/index.js';
import { REPO_ROOT } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { eventually } from '../support/wait.js';

const MAIN = path.join(REPO_ROOT, 'examples/sample-controller/dist/main.js');


function foo(name: string, deploymentName: string, replicas: number): Foo {
  return { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name }, spec: { deploymentName, replicas } };
}

describe('sample-controller against envtest', () => {
  let env: TestEnv;
  let ns: string;
  let kube: KubeClientset;
  let sample: Clientset;
  let child: ChildProcess;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let output = '';

  before(async () => {
    if (!fs.existsSync(MAIN)) {
      const tsc = spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-p', 'examples/sample-controller/tsconfig.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
      assert.equal(tsc.status, 0, 'building the example failed (npm run build:examples)');
    }
    env = await sharedEnv();
    ns = await env.newNamespace('sample-controller');
    kube = new KubeClientset(env.transport);
    sample = new Clientset(env.transport);
    // A Deployment that exists before its Foo and is owned by nobody.
    await kube.appsV1.deployments(ns).create({
      metadata: { name: 'taken' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'other' } },
        template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    child = spawn(process.execPath, [MAIN, `--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, '--workers=2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBEGEN_LOG_LEVEL: 'info' },
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  });

  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await env?.release();
  });

  const getDeployment = async (name: string): Promise<Deployment | undefined> => {
    try {
      return await kube.appsV1.deployments(ns).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const eventsFor = async (fooName: string, reason: string): Promise<Event[] | undefined> => {
    const list = await kube.coreV1.events(ns).list();
    const found = list.items.filter((e) => e.involvedObject.name === fooName && e.involvedObject.kind === 'Foo' && e.reason === reason);
    return found.length > 0 ? found : undefined;
  };

  it('creates the Deployment of a Foo, owned by it, with the sample labels and an nginx container', async () => {
    const created = await sample.samplecontrollerV1alpha1.foos(ns).create(foo('example-foo', 'example-foo', 1));
    const d = await eventually('the Deployment', () => getDeployment('example-foo'));
    assert.deepEqual(d.metadata?.ownerReferences, [
      { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'example-foo', uid: created.metadata!.uid!, controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(d.spec?.selector.matchLabels, { app: 'nginx', controller: 'example-foo' });
    assert.deepEqual(d.spec?.template.metadata?.labels, { app: 'nginx', controller: 'example-foo' });
    assert.deepEqual(d.spec?.template.spec?.containers.map((c) => [c.name, c.image]), [['nginx', 'nginx:latest']]);
    assert.equal(d.spec?.replicas, 1);
    const synced = await eventually('a Synced event', () => eventsFor('example-foo', 'Synced'));
    assert.equal(synced[0]!.type, 'Normal');
    assert.equal(synced[0]!.message, 'Foo synced successfully');
    // An events.k8s.io/v1 Event (the apiserver serves it), read through core/v1: its writer is reportingComponent.
    assert.equal(synced[0]!.reportingComponent, 'sample-controller');
  });

  it('follows a change of spec.replicas', async () => {
    const current = await sample.samplecontrollerV1alpha1.foos(ns).get('example-foo');
    await sample.samplecontrollerV1alpha1.foos(ns).update({ ...current, spec: { ...current.spec, replicas: 3 } });
    await eventually('replicas 3', async () => ((await getDeployment('example-foo'))?.spec?.replicas === 3 ? true : undefined));
  });

  it('recreates a deleted Deployment', async () => {
    const before = await kube.appsV1.deployments(ns).get('example-foo');
    await kube.appsV1.deployments(ns).delete('example-foo');
    const again = await eventually('the recreated Deployment', async () => {
      const d = await getDeployment('example-foo');
      return d && d.metadata?.uid !== before.metadata?.uid ? d : undefined;
    });
    assert.equal(again.spec?.replicas, 3);
    assert.equal(again.metadata?.ownerReferences?.[0]?.name, 'example-foo');
  });

  it("writes the Deployment's availableReplicas into the Foo status", async () => {
    const d = await kube.appsV1.deployments(ns).get('example-foo');
    await kube.appsV1.deployments(ns).updateStatus({ ...d, status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 } });
    const f = await eventually('Foo status availableReplicas 2', async () => {
      const f = await sample.samplecontrollerV1alpha1.foos(ns).get('example-foo');
      return f.status?.availableReplicas === 2 ? f : undefined;
    });
    assert.equal(f.spec?.replicas, 3, 'the status write leaves the spec alone');
  });

  it('leaves a Deployment it does not own alone and records ErrResourceExists', async () => {
    await sample.samplecontrollerV1alpha1.foos(ns).create(foo('intruder', 'taken', 5));
    const warnings = await eventually('an ErrResourceExists event', () => eventsFor('intruder', 'ErrResourceExists'));
    assert.equal(warnings[0]!.type, 'Warning');
    assert.equal(warnings[0]!.message, 'Resource "taken" already exists and is not managed by Foo');
    const taken = await kube.appsV1.deployments(ns).get('taken');
    assert.equal(taken.metadata?.ownerReferences, undefined);
    assert.equal(taken.spec?.replicas, 1);
    assert.deepEqual(taken.spec?.selector.matchLabels, { app: 'other' });
  });

  it('exits 0 on SIGTERM', async () => {
    assert.equal(child.exitCode, null, `controller exited early:\n${output}`);
    child.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000).unref());
    const result = await Promise.race([exited, timeout]);
    assert.notEqual(result, 'timeout', `controller did not exit after SIGTERM:\n${output.slice(-4000)}`);
    assert.deepEqual(result, { code: 0, signal: null }, output.slice(-4000));
    assert.match(output, /"msg":"Shutting down workers"/);
    assert.match(output, /"msg":"Successfully synced"/);
  });
});
