/**
 * The compiled sample controller under connection faults, on a control plane of its own (the test restarts its
 * apiserver) with a freezing TCP proxy between controller and apiserver (support/tcp-proxy.ts):
 * - every connection open at some moment goes silent (new ones pass): a Foo created afterwards is still reconciled
 *   within 60 s, and then the workers keep up with new Foos (none of them is stuck on a dead socket);
 * - kube-apiserver crashes (SIGKILL) and comes back four times, 35 s apart: a Foo created after each return is
 *   reconciled within 15 s of it.
 * "Reconciled" is seen from outside: the Foo's Deployment exists. Latencies are printed as diagnostics.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import type { Foo } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/index.js';
import { SHARED_CRD_PATHS } from './support/crds.js';
import { ensureSampleControllerBuilt, SampleControllerProcess } from './support/sample-controller-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { sleep } from '../support/wait.js';

const foo = (name: string): Foo => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name }, spec: { deploymentName: `${name}-dep`, replicas: 1 } });

describe('sample-controller under connection faults (envtest)', { timeout: 600_000 }, () => {
  let env: Envtest;
  let proxy: TcpProxy;
  let sc: SampleControllerProcess;
  let ns: string;
  let admin: HttpTransport;

  before(async () => {
    ensureSampleControllerBuilt();
    env = await Envtest.start({ crdPaths: [SHARED_CRD_PATHS[0]!] });
    proxy = new TcpProxy(Number(new URL(env.apiserverUrl).port));
    const port = await proxy.listen();
    const kubeconfig = path.join(env.dir, 'via-proxy.kubeconfig');
    fs.writeFileSync(kubeconfig, fs.readFileSync(env.kubeconfigPath, 'utf8').replace(env.apiserverUrl, `https://127.0.0.1:${port}`));
    admin = env.transport();
    ns = await createTestNamespace(admin, 'sc-faults');
    sc = new SampleControllerProcess('sample-controller', [`--kubeconfig=${kubeconfig}`, `--namespace=${ns}`, '--workers=2']);
    await sc.waitForLog((l) => l.msg === 'Started workers', 'Started workers');
  });

  after(async () => {
    await sc?.kill();
    admin?.close();
    await proxy?.close();
    await env?.stop();
  });

  /** Creates a Foo (retrying while the apiserver is away) and resolves with the ms until its Deployment exists. */
  async function reconcileLatency(name: string, timeoutMs: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      try {
        await new Clientset(admin).samplecontrollerV1alpha1.foos(ns).create(foo(name));
        break;
      } catch (err) {
        if (Date.now() - started > 10_000) throw err;
        admin.close();
        admin = env.transport();
        await sleep(200);
      }
    }
    const kube = new KubeClientset(admin);
    for (;;) {
      const dep = await kube.appsV1.deployments(ns).get(`${name}-dep`).catch(() => undefined);
      if (dep) return Date.now() - started;
      if (Date.now() - started > timeoutMs) assert.fail(`${name} not reconciled within ${timeoutMs} ms\n${sc.tail()}`);
      await sleep(100);
    }
  }

  it('a frozen connection: a Foo created afterwards is reconciled within 60 s, and no worker stays blocked', async (t) => {
    await reconcileLatency('before-freeze', 30_000);
    assert.ok(proxy.freeze() >= 1, 'the controller had connections to freeze');
    const latency = await reconcileLatency('after-freeze', 60_000);
    t.diagnostic(`Foo created after the freeze reconciled in ${latency} ms`);
    const more = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((n) => reconcileLatency(n, 10_000)));
    t.diagnostic(`then 4 Foos at once: ${more.join(', ')} ms`);
    assert.ok(sc.running, 'the controller kept running');
  });

  it("four apiserver crashes 35 s apart: each new Foo is reconciled within 15 s of the apiserver's return", async (t) => {
    const latencies: number[] = [];
    for (let i = 0; i < 4; i++) {
      const cycle = Date.now();
      await env.stopApiServer({ kill: true });
      await sleep(3_000);
      await env.startApiServer();
      latencies.push(await reconcileLatency(`restart-${i}`, 15_000));
      if (i < 3) await sleep(Math.max(0, cycle + 35_000 - Date.now()));
    }
    t.diagnostic(`new Foo after each return reconciled in ${latencies.join(' / ')} ms`);
    assert.ok(sc.running, 'the controller kept running');
  });
});
