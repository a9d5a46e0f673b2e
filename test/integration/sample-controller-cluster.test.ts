/**
 * The sample controller, ours (`examples/sample-controller/dist/main.js`) and the Go original
 * (`$KUBEBUILDER_ASSETS/sample-controller`, as shipped in Kubernetes 1.20), through the same test on the `cluster`
 * envtest profile, where the Deployment a Foo owns is run for real: the deployment controller makes a ReplicaSet,
 * the scheduler places its Pods on hollow nodes, their kubelets run them, and the Foo's `status.availableReplicas`
 * is what the cluster reports (on the `full` profile, sample-controller.test.ts writes the Deployment status itself).
 * Deleting the Foo deletes its Deployment through the garbage collector (the owner reference the controller set).
 *
 * Each runs with the Foo CRD it is written for: ours writes the status through the status subresource
 * (`crd-status-subresource.yaml`, on the shared cluster); the Go original of 1.20 writes it with a plain Update, which
 * the status subresource ignores (its README: switch to UpdateStatus when using that CRD), so it runs on a cluster of
 * its own with `crd.yaml`, the CRD of its README's main steps. One after the other, each in a namespace of its own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { Deployment } from '@kubegen/runtime/internal/builtin/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { defaultAssetDirs } from '@kubegen/runtime/internal/testing/envtest/envtest-assets.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import type { Foo } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/index.js';
import { eventually } from '../support/wait.js';
import { podsOf } from './support/cluster.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { REPO_ROOT } from './support/crds.js';
import { sharedEnv } from './support/env.js';
import { ensureSampleControllerBuilt, SAMPLE_CONTROLLER_MAIN, type ExitStatus } from './support/sample-controller-process.js';

/** The Go sample-controller the setup script built (same folder as kube-apiserver). */
function goSampleController(): string {
  const dirs = [process.env['KUBEBUILDER_ASSETS'] ?? '', ...defaultAssetDirs()].filter(Boolean);
  const found = dirs.map((d) => path.join(d, 'sample-controller')).find((f) => fs.existsSync(f));
  assert.ok(found, `no sample-controller in ${dirs.join(', ')}: run hack/setup-envtest.sh`);
  return found;
}

/** The control plane a variant runs on: its admin transport and kubeconfig, a namespace maker, and a release. */
interface ClusterEnv {
  transport: HttpTransport;
  kubeconfigPath: string;
  newNamespace(prefix: string): Promise<string>;
  release(): Promise<void>;
}

/** A `cluster` envtest of this file's own with the Foo CRD the Go original is written for. */
async function ownCluster(): Promise<ClusterEnv> {
  const envtest = await Envtest.start({ profile: 'cluster', crdPaths: [path.join(REPO_ROOT, 'fixtures/crds/sample-controller/crd.yaml')] });
  const transport = envtest.transport();
  return {
    transport,
    kubeconfigPath: envtest.kubeconfigPath,
    newNamespace: (prefix) => createTestNamespace(transport, prefix),
    async release() {
      transport.close();
      await envtest.stop();
    },
  };
}

/** A controller under test: where it runs and how to start it for one namespace. */
interface Variant {
  name: string;
  env: () => Promise<ClusterEnv>;
  command: (kubeconfig: string, namespace: string) => [string, string[]];
}

const VARIANTS: Variant[] = [
  {
    name: 'ours (TypeScript)',
    env: () => sharedEnv({ profile: 'cluster' }),
    command: (kubeconfig, ns) => [process.execPath, [SAMPLE_CONTROLLER_MAIN, `--kubeconfig=${kubeconfig}`, `--namespace=${ns}`, '--workers=2']],
  },
  { name: 'the Go original', env: ownCluster, command: (kubeconfig) => [goSampleController(), [`-kubeconfig=${kubeconfig}`]] },
];

const fooObject = (name: string, replicas: number): Foo => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { name },
  spec: { deploymentName: `${name}-deploy`, replicas },
});

for (const variant of VARIANTS) {
  describe(`sample-controller on the cluster profile: ${variant.name}`, () => {
    let env: ClusterEnv;
    let ns: string;
    let kube: KubeClientset;
    let sample: Clientset;
    let output = '';
    let child: ReturnType<typeof spawn> | undefined;
    let exited: Promise<ExitStatus>;

    before(async () => {
      ensureSampleControllerBuilt();
      env = await variant.env();
      ns = await env.newNamespace('sample-cluster');
      kube = new KubeClientset(env.transport);
      sample = new Clientset(env.transport);
      const [command, args] = variant.command(env.kubeconfigPath, ns);
      child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBEGEN_LOG_LEVEL: 'info' } });
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      exited = new Promise((resolve) => child!.on('exit', (code, signal) => resolve({ code, signal })));
    });

    after(async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await kube?.coreV1.namespaces().delete(ns).catch(() => undefined);
      await env?.release();
    });

    const deployment = async (name: string): Promise<Deployment | undefined> =>
      kube.appsV1.deployments(ns).get(name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    const fooAvailable = async (want: number): Promise<void> => {
      await eventually(`Foo status.availableReplicas ${want}`, async () => {
        const f = await sample.samplecontrollerV1alpha1.foos(ns).get('web');
        return f.status?.availableReplicas === want ? f : undefined;
      }, 120_000).catch((err: Error) => assert.fail(`${err.message}\n${output.slice(-3000)}`));
    };

    it('reports the availableReplicas of a Deployment run on hollow nodes: 3 Pods Running, then 1 after a scale-down', async () => {
      const foo = await sample.samplecontrollerV1alpha1.foos(ns).create(fooObject('web', 3));
      const d = await eventually('the Deployment', () => deployment('web-deploy'), 60_000);
      assert.deepEqual(d.metadata?.ownerReferences?.map((r) => [r.kind, r.uid, r.controller, r.blockOwnerDeletion]), [['Foo', foo.metadata!.uid, true, true]]);
      await fooAvailable(3);
      const pods = await podsOf(env.transport, ns, 'nginx');
      const running = pods.filter((p) => p.status?.phase === 'Running' && /^hollow-node-\d+$/.test(p.spec?.nodeName ?? ''));
      assert.equal(running.length, 3, `3 Pods Running on hollow nodes: ${JSON.stringify(pods.map((p) => [p.metadata?.name, p.status?.phase, p.spec?.nodeName]))}`);
      const current = await sample.samplecontrollerV1alpha1.foos(ns).get('web');
      await sample.samplecontrollerV1alpha1.foos(ns).update({ ...current, spec: { ...current.spec, replicas: 1 } });
      await fooAvailable(1);
    });

    it('lets the garbage collector delete the Deployment of a deleted Foo, and its Pods', async () => {
      await sample.samplecontrollerV1alpha1.foos(ns).delete('web');
      await eventually('the Deployment gone', async () => ((await deployment('web-deploy')) === undefined ? true : undefined), 90_000);
      await eventually('its Pods gone', async () => ((await podsOf(env.transport, ns, 'nginx')).length === 0 ? true : undefined), 120_000);
      assert.equal(child!.exitCode, null, `the controller is still running:\n${output.slice(-3000)}`);
      assert.equal(await deployment('web-deploy'), undefined, 'the controller did not make it again');
    });
  });
}
