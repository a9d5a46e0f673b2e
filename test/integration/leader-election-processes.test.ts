/**
 * Leader election between sample-controller processes on one apiserver, with the default Lease timings (15 s lease,
 * 10 s renew deadline, 2 s retry; the example has no flags to shorten them):
 * - of two `--leader-elect` processes only the Lease holder starts workers and syncs Foos;
 * - `kill -9` of the leader: the follower leads within leaseDuration + retry (plus client-go's retry jitter);
 * - SIGTERM of the leader: it releases the Lease on the way out and exits 0; the follower leads on its next retry.
 * Which process leads is read from the Lease's `holderIdentity` and each process's log (identity field).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { Deployment } from '@kubegen/runtime/internal/builtin/types.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';
import { sharedEnv, uniqueName, type TestEnv } from './support/env.js';
import { ensureSampleControllerBuilt, SampleControllerProcess, type LogLine } from './support/sample-controller-process.js';

/** Lease duration and retry period the example runs with (controller-runtime defaults). */
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;
/**
 * Worst case after a kill -9: the follower may see the last renewal up to one jittered retry (2 s × 2.2) late, the
 * lease then runs 15 s on its clock, and the next jittered retry may come 4.4 s after expiry: about 24 s. Typical is
 * 15–19 s. The bound asserts "about a lease duration", not performance.
 */
const KILL_TAKEOVER_BOUND_MS = LEASE_DURATION_MS + 2 * RETRY_PERIOD_MS * 2.2 + 1_500;
/** After a release the follower takes over on its next retry (≤ 2 s × 2.2) plus the leader's shutdown. */
const RELEASE_TAKEOVER_BOUND_MS = 6_000;

const ACQUIRED = 'successfully acquired lease';

describe('sample-controller leader election across processes (envtest)', () => {
  let env: TestEnv;
  let ns: string;
  let leaseName: string;
  let kube: KubeClientset;
  let sample: Clientset;
  const procs: SampleControllerProcess[] = [];

  before(async () => {
    ensureSampleControllerBuilt();
    env = await sharedEnv();
    ns = await env.newNamespace('le-procs');
    leaseName = uniqueName('sample-controller-lock');
    kube = new KubeClientset(env.transport);
    sample = new Clientset(env.transport);
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await env?.release();
  });

  function startController(name: string): SampleControllerProcess {
    const p = new SampleControllerProcess(name, [
      `--kubeconfig=${env.kubeconfigPath}`,
      `--namespace=${ns}`,
      '--workers=2',
      '--leader-elect',
      `--leader-election-id=${leaseName}`,
      `--leader-election-namespace=${ns}`,
    ]);
    procs.push(p);
    return p;
  }

  const holder = async (): Promise<string | undefined> => (await kube.coordinationV1.leases(ns).get(leaseName)).spec?.holderIdentity;

  /** The elector's identity, from its "successfully acquired lease" line. */
  const acquiredBy = (l: LogLine): boolean => l.msg === ACQUIRED && typeof l['identity'] === 'string';
  const observedLeader = (id: string) => (l: LogLine) => l.msg === 'new leader elected' && l['leader'] === id;
  const synced = (key: string) => (l: LogLine) => l.msg === 'Successfully synced' && l['resourceName'] === key;

  async function createFooAndWaitForDeployment(name: string): Promise<Deployment> {
    await sample.samplecontrollerV1alpha1.foos(ns).create({
      apiVersion: 'samplecontroller.k8s.io/v1alpha1',
      kind: 'Foo',
      metadata: { name },
      spec: { deploymentName: `${name}-deploy`, replicas: 1 },
    });
    const deadline = performance.now() + 20_000;
    for (;;) {
      try {
        return await kube.appsV1.deployments(ns).get(`${name}-deploy`);
      } catch (err) {
        if (!isNotFound(err) || performance.now() > deadline) throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  let a: SampleControllerProcess;
  let b: SampleControllerProcess;
  let idA: string;
  let idB: string;

  it('only the Lease holder reconciles', async () => {
    a = startController('A');
    idA = (await a.waitForLog(acquiredBy, 'lease acquisition')).identity as string;
    b = startController('B');
    await b.waitForLog(observedLeader(idA), `B observing A (${idA}) as leader`);
    assert.equal(await holder(), idA);

    await createFooAndWaitForDeployment('first');
    await a.waitForLog(synced(`${ns}/first`), 'sync of the first Foo');
    // Give B every chance to (wrongly) sync too: its informers see the same Foo.
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(b.logged('Successfully synced').length, 0, `the follower synced:\n${b.tail()}`);
    assert.equal(b.logged('Starting workers').length, 0, `the follower started workers:\n${b.tail()}`);
    assert.equal(b.logged(ACQUIRED).length, 0);
    assert.equal(a.logged('Starting workers').length, 1);
    assert.equal(await holder(), idA);
  });

  it('kill -9 of the leader: the follower leads within about a lease duration', async () => {
    assert.ok(a.running && b.running, a.tail() + b.tail());
    const killedAt = performance.now();
    a.child.kill('SIGKILL');
    assert.equal((await a.exited).signal, 'SIGKILL');
    const line = await b.waitForLog(acquiredBy, 'lease acquisition after the kill', KILL_TAKEOVER_BOUND_MS + 5_000);
    const takeoverMs = Math.round(performance.now() - killedAt);
    idB = line.identity as string;
    assert.notEqual(idB, idA);
    assert.ok(takeoverMs < KILL_TAKEOVER_BOUND_MS, `takeover after kill -9 took ${takeoverMs} ms (bound ${KILL_TAKEOVER_BOUND_MS} ms)`);
    assert.ok(takeoverMs > 3_000, `takeover after kill -9 took only ${takeoverMs} ms: the dead leader's lease was not respected`);
    process.stdout.write(`# takeover after kill -9: ${takeoverMs} ms\n`);
    assert.equal(await holder(), idB);

    await createFooAndWaitForDeployment('second');
    await b.waitForLog(synced(`${ns}/second`), 'sync of the second Foo by the new leader');
  });

  it('SIGTERM of the leader releases the Lease: the follower leads within seconds and the old leader exits 0', async () => {
    const c = startController('C');
    await c.waitForLog(observedLeader(idB), `C observing B (${idB}) as leader`);
    const termAt = performance.now();
    b.child.kill('SIGTERM');
    const line = await c.waitForLog(acquiredBy, 'lease acquisition after SIGTERM', RELEASE_TAKEOVER_BOUND_MS + 10_000);
    const takeoverMs = Math.round(performance.now() - termAt);
    process.stdout.write(`# takeover after SIGTERM (release): ${takeoverMs} ms\n`);
    assert.ok(takeoverMs < RELEASE_TAKEOVER_BOUND_MS, `takeover after SIGTERM took ${takeoverMs} ms (bound ${RELEASE_TAKEOVER_BOUND_MS} ms)`);
    const idC = line.identity as string;
    assert.notEqual(idC, idB);

    assert.deepEqual(await b.waitForExit(), { code: 0, signal: null }, b.tail());
    assert.equal(b.logged('released leader lease').length, 1, b.tail());
    assert.equal(await holder(), idC);

    await createFooAndWaitForDeployment('third');
    await c.waitForLog(synced(`${ns}/third`), 'sync of the third Foo by the newest leader');
  });
});
