/**
 * The sample controller's reconciler against the generated fake clientset, after Go's `controller_test.go`
 * (TestCreatesDeployment, TestDoNothing, TestUpdateDeployment, TestNotControlledByUs), plus status writes,
 * events, handleObject routing, requeue on failure and flag parsing.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { allBuiltinResources } from '@kubegen/runtime/internal/testing/fake/builtin-resources.js';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { KubeInformers } from '@kubegen/runtime/internal/builtin/informers.js';
import type { Deployment } from '@kubegen/runtime/internal/builtin/types.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { EventBroadcaster } from '@kubegen/runtime/internal/events/event-recorder.js';
import { FakeEventRecorder } from '@kubegen/runtime/internal/testing/fake/fake-recorder.js';
import type { FakeAction } from '@kubegen/runtime/internal/testing/fake/fake-actions.js';
import { RateLimitingQueue } from '@kubegen/runtime/internal/workqueue/rate-limiting-queue.js';
import { ItemExponentialFailureRateLimiter } from '@kubegen/runtime/internal/workqueue/rate-limiter.js';
import { Controller, messageResourceExists } from '../../examples/sample-controller/src/controller.js';
import { createFakeClientset, type FakeClientset } from '../../examples/sample-controller/src/generated/fake.js';
import { InformerFactory } from '../../examples/sample-controller/src/generated/informers.js';
import type { Foo } from '../../examples/sample-controller/src/generated/samplecontroller.k8s.io/v1alpha1/index.js';
import { newDeployment } from '../../examples/sample-controller/src/new-deployment.js';
import { parseOptions } from '../../examples/sample-controller/src/options.js';
import { fooConversion, fooDefaulter, fooValidator } from '../../examples/sample-controller/src/webhooks.js';
import { settle } from '../support/wait.js';

function newFoo(name: string, replicas: number | undefined): Foo {
  return {
    apiVersion: 'samplecontroller.k8s.io/v1alpha1',
    kind: 'Foo',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { deploymentName: `${name}-deployment`, ...(replicas === undefined ? {} : { replicas }) },
  };
}

interface Fixture {
  client: FakeClientset;
  controller: Controller;
  recorder: FakeEventRecorder;
  factory: SharedInformerFactory;
}

const fixtures: Fixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    f.controller.queue.shutDown();
    await f.factory.shutdown();
  }
});

/** Seeds the fake, syncs the informers, then clears the recorded list/watch actions (like Go's `filterInformerActions`). */
async function fixture(objects: object[], queue?: RateLimitingQueue<string>): Promise<Fixture> {
  const client = createFakeClientset(objects as Foo[], allBuiltinResources);
  const factory = new SharedInformerFactory(client.transport, { logger: nullLogger });
  const recorder = new FakeEventRecorder();
  const controller = new Controller({
    kubeClientset: new KubeClientset(client.transport),
    sampleClientset: client,
    deploymentInformer: new KubeInformers(factory).appsV1.deployments(),
    fooInformer: new InformerFactory(factory).samplecontrollerV1alpha1.foos(),
    recorder,
    logger: nullLogger,
    ...(queue ? { queue } : {}),
  });
  factory.start();
  await factory.waitForCacheSync({ timeoutMs: 5000 });
  client.fake.clearActions();
  const f = { client, controller, recorder, factory };
  fixtures.push(f);
  return f;
}

const until = (cond: () => boolean): Promise<void> => settle(cond, 'condition', 1000);

/** Writes only: list and watch come from the informers. */
function writes(client: FakeClientset): FakeAction[] {
  return client.fake.actions().filter((a) => a.verb !== 'list' && a.verb !== 'watch');
}

function summary(a: FakeAction): string {
  return `${a.verb} ${a.resource}${a.subresource ? '/' + a.subresource : ''} ${a.namespace}`;
}

describe('sample-controller syncHandler', () => {
  it('creates the Deployment of a new Foo, then writes its status (TestCreatesDeployment)', async () => {
    const foo = newFoo('test', 1);
    const { client, controller, recorder } = await fixture([foo]);
    await controller.syncHandler('default/test');
    const acts = writes(client);
    assert.deepEqual(acts.map(summary), ['create deployments default', 'update foos/status default']);
    assert.deepEqual(acts[0]!.object, newDeployment(foo));
    const created = acts[0]!.object as Deployment;
    assert.deepEqual(created.metadata?.labels, undefined);
    assert.deepEqual(created.spec?.selector.matchLabels, { app: 'nginx', controller: 'test' });
    assert.deepEqual(created.spec?.template.metadata?.labels, { app: 'nginx', controller: 'test' });
    assert.deepEqual(created.spec?.template.spec?.containers, [{ name: 'nginx', image: 'nginx:latest' }]);
    assert.equal(created.spec?.replicas, 1);
    assert.deepEqual(created.metadata?.ownerReferences, [
      { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'test', uid: 'uid-test', blockOwnerDeletion: true, controller: true },
    ]);
    assert.deepEqual((acts[1]!.object as Foo).status, { availableReplicas: 0 });
    assert.deepEqual(recorder.events, ['Normal Synced Foo synced successfully']);
  });

  it('only writes the status when the Deployment is already right (TestDoNothing)', async () => {
    const foo = newFoo('test', 1);
    const { client, controller, recorder } = await fixture([foo, newDeployment(foo)]);
    await controller.syncHandler('default/test');
    assert.deepEqual(writes(client).map(summary), ['update foos/status default']);
    assert.deepEqual(recorder.events, ['Normal Synced Foo synced successfully']);
  });

  it('updates the Deployment when replicas differ (TestUpdateDeployment)', async () => {
    const foo = newFoo('test', 2);
    const d = newDeployment(foo);
    d.spec!.replicas = 1;
    const { client, controller } = await fixture([foo, d]);
    await controller.syncHandler('default/test');
    const acts = writes(client);
    assert.deepEqual(acts.map(summary), ['update deployments default', 'update foos/status default']);
    assert.equal((acts[0]!.object as Deployment).spec?.replicas, 2);
    const stored = await new KubeClientset(client.transport).appsV1.deployments('default').get('test-deployment');
    assert.equal(stored.spec?.replicas, 2);
  });

  it('leaves a Deployment it does not control alone and records a warning (TestNotControlledByUs)', async () => {
    const foo = newFoo('test', 1);
    const d = newDeployment(foo);
    d.metadata!.ownerReferences = [];
    const { client, controller, recorder } = await fixture([foo, d]);
    await assert.rejects(controller.syncHandler('default/test'), { message: 'Resource "test-deployment" already exists and is not managed by Foo' });
    assert.deepEqual(writes(client), []);
    assert.deepEqual(recorder.events, [`Warning ErrResourceExists ${messageResourceExists('test-deployment')}`]);
    assert.equal(recorder.recorded[0]!.object.metadata?.name, 'test');
    assert.equal(recorder.recorded[0]!.object.kind, 'Foo');
  });

  it('copies availableReplicas from the Deployment into the Foo status through the status subresource', async () => {
    const foo = newFoo('test', 3);
    const d = newDeployment(foo);
    d.status = { availableReplicas: 3 };
    const { client, controller } = await fixture([foo, d]);
    await controller.syncHandler('default/test');
    const stored = await client.samplecontrollerV1alpha1.foos('default').get('test');
    assert.equal(stored.status?.availableReplicas, 3);
    assert.equal(stored.spec?.replicas, 3);
  });

  it('deletes the Deployment an earlier spec named (deploymentName changed, then removed), as explore --faults mutate asks', async () => {
    const foo = newFoo('test', 1);
    const old = newDeployment(foo);
    const other = { ...newDeployment(newFoo('other', 1)), metadata: { ...newDeployment(newFoo('other', 1)).metadata, ownerReferences: [] } };
    foo.spec!.deploymentName = 'renamed';
    foo.status = { availableReplicas: 1 };
    const { client, controller } = await fixture([foo, old, other]);
    await controller.syncHandler('default/test');
    const names = (await new KubeClientset(client.transport).appsV1.deployments('default').list()).items.map((d) => d.metadata?.name).sort();
    assert.deepEqual(names, ['other-deployment', 'renamed']);
    // No name at all: its Deployments go and the status no longer counts any replica, as for a Foo made without one.
    await until(() => controller['deployments'].lister.namespace('default').list().length === 2);
    delete foo.spec!.deploymentName;
    await client.samplecontrollerV1alpha1.foos('default').update(foo);
    await until(() => controller['foos'].lister.namespace('default').get('test')?.spec?.deploymentName === undefined);
    await controller.syncHandler('default/test');
    const left = (await new KubeClientset(client.transport).appsV1.deployments('default').list()).items.map((d) => d.metadata?.name);
    assert.deepEqual(left, ['other-deployment']);
    assert.deepEqual((await client.samplecontrollerV1alpha1.foos('default').get('test')).status ?? {}, {});
  });

  it('does nothing for a Foo that is gone or names no Deployment', async () => {
    const foo = newFoo('test', 1);
    delete foo.spec!.deploymentName;
    const { client, controller, recorder } = await fixture([foo]);
    await controller.syncHandler('default/missing');
    await controller.syncHandler('default/test');
    assert.deepEqual(writes(client), []);
    assert.deepEqual(recorder.events, []);
  });
});

describe('sample-controller work loop and event routing', () => {
  it('requeues a failed sync with rate limiting and forgets it once it succeeds', async () => {
    const queue = new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter<string>(60_000, 60_000) });
    const foo = newFoo('test', 1);
    const { client, controller } = await fixture([foo], queue);
    let failures = 1;
    client.fake.prependReactor('create', 'deployments', () =>
      failures-- > 0 ? { handled: true, error: new ApiError(newStatus(500, 'InternalError', 'boom')) } : undefined,
    );
    // The informer's add handler enqueues the Foo (handlers are notified asynchronously).
    await until(() => queue.len() === 1);
    assert.equal(await controller.processNextWorkItem(), true);
    assert.equal(queue.numRequeues('default/test'), 1);
    assert.equal(queue.len(), 0, 'a failed key waits out its backoff');
    queue.add('default/test');
    assert.equal(await controller.processNextWorkItem(), true);
    assert.equal(queue.numRequeues('default/test'), 0);
    assert.deepEqual(writes(client).map(summary), ['create deployments default', 'create deployments default', 'update foos/status default']);
  });

  it('enqueues the controlling Foo of a Deployment, also from a tombstone, and ignores others', async () => {
    const foo = newFoo('test', 1);
    const { controller } = await fixture([foo]);
    const queue = controller.queue;
    const drain = async (): Promise<string[]> => {
      const keys: string[] = [];
      while (queue.len() > 0) {
        const next = await queue.get();
        if (next.shutdown) break;
        keys.push(next.item);
        queue.done(next.item);
      }
      return keys;
    };
    await until(() => queue.len() === 1);
    await drain();
    const owned = newDeployment(foo);
    controller.handleObject(owned);
    assert.deepEqual(await drain(), ['default/test']);
    controller.handleObject(new DeletedFinalStateUnknown('default/test-deployment', owned));
    assert.deepEqual(await drain(), ['default/test']);
    const otherKind = newDeployment(foo);
    otherKind.metadata!.ownerReferences![0]!.kind = 'Bar';
    const orphan = newDeployment(newFoo('gone', 1));
    const unowned = newDeployment(foo);
    delete unowned.metadata!.ownerReferences;
    for (const d of [otherKind, orphan, unowned]) controller.handleObject(d);
    assert.deepEqual(await drain(), []);
  });

  it('writes its events as events.k8s.io/v1 Events (served by the fake, as by any current cluster) through a real broadcaster', async () => {
    const foo = newFoo('test', 1);
    const client = createFakeClientset([foo], allBuiltinResources);
    const factory = new SharedInformerFactory(client.transport, { logger: nullLogger });
    const broadcaster = new EventBroadcaster({ transport: client.transport, logger: nullLogger });
    const controller = new Controller({
      kubeClientset: new KubeClientset(client.transport),
      sampleClientset: client,
      deploymentInformer: new KubeInformers(factory).appsV1.deployments(),
      fooInformer: new InformerFactory(factory).samplecontrollerV1alpha1.foos(),
      recorder: broadcaster.newRecorder('sample-controller'),
      logger: nullLogger,
    });
    fixtures.push({ client, controller, recorder: new FakeEventRecorder(), factory });
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 5000 });
    await controller.syncHandler('default/test');
    await broadcaster.flush();
    const events = client.fake.actions().filter((a) => a.resource === 'events' && a.verb === 'create');
    assert.deepEqual(events.map((a) => a.group), ['events.k8s.io']);
    const ev = events[0]!.object as { reason: string; type: string; note: string; action: string; regarding: { kind: string; name: string; uid: string }; reportingController: string };
    assert.equal(ev.reason, 'Synced');
    assert.equal(ev.action, 'Synced');
    assert.equal(ev.type, 'Normal');
    assert.equal(ev.note, 'Foo synced successfully');
    assert.deepEqual([ev.regarding.kind, ev.regarding.name, ev.regarding.uid], ['Foo', 'test', 'uid-test']);
    assert.equal(ev.reportingController, 'sample-controller');
    await broadcaster.shutdown();
  });

  it('run() starts workers after the caches sync and resolves after the signal with the queue shut down', async () => {
    const foo = newFoo('test', 1);
    const { client, controller } = await fixture([foo]);
    const stop = new AbortController();
    const running = controller.run(2, stop.signal);
    await until(() => writes(client).length >= 2);
    assert.deepEqual(writes(client).map(summary).slice(0, 2), ['create deployments default', 'update foos/status default']);
    stop.abort();
    await running;
    assert.equal(controller.queue.shuttingDown(), true);
  });
});

const pick = <T extends object, K extends keyof T>(o: T, ...keys: K[]): Pick<T, K> => Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;

describe('sample-controller newDeployment with sharding', () => {
  it('puts extra labels (the shard label) on the Deployment only, not on its selector or pod template', () => {
    const foo = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f', namespace: 'n', uid: 'u' }, spec: { deploymentName: 'd', replicas: 1 } } as never;
    const d = newDeployment(foo, { 'shard.kubegen.io/sample-controller': 'r0' });
    assert.deepEqual(d.metadata?.labels, { 'shard.kubegen.io/sample-controller': 'r0' });
    assert.deepEqual(d.spec?.selector?.matchLabels, { app: 'nginx', controller: 'f' });
    assert.deepEqual(d.spec?.template?.metadata?.labels, { app: 'nginx', controller: 'f' });
    assert.equal(newDeployment(foo).metadata?.labels, undefined);
  });
});

describe('sample-controller flags', () => {
  it('parses GNU and Go style flags with the Go defaults', () => {
    assert.deepEqual(parseOptions(['--kubeconfig=/k']), {
      kubeconfig: '/k',
      context: undefined,
      namespace: undefined,
      workers: 2,
      leaderElect: false,
      leaderElectionId: 'sample-controller-lock',
      leaderElectionNamespace: undefined,
      sharding: false,
      identity: undefined,
      shardingNamespace: undefined,
      shardLeaseDurationMs: undefined,
      shardRenewDeadlineMs: undefined,
      shardRetryPeriodMs: undefined,
      metricsBindAddress: '0',
      metricsSecure: false,
      metricsCertDir: undefined,
      healthProbeBindAddress: '0',
      webhookPort: 0,
      webhookCertDir: undefined,
      logging: { 'log-level': undefined, 'log-format': undefined },
    });
    const o = parseOptions(['-kubeconfig', '/k', '--workers=4', '--leader-elect', '--metrics-bind-address=:9090', '--log-level=warn', '--log-format', 'text']);
    assert.deepEqual({ ...o.logging }, { 'log-level': 'warn', 'log-format': 'text' });
    assert.equal(o.kubeconfig, '/k');
    assert.equal(o.workers, 4);
    assert.equal(o.leaderElect, true);
    assert.equal(o.metricsBindAddress, ':9090');
    assert.throws(() => parseOptions(['--workers=0']), /positive integer/);
    assert.throws(() => parseOptions(['--bogus']));
  });

  it('takes --metrics-secure (Go style =true/false too) and --metrics-cert-dir only with it', () => {
    assert.equal(parseOptions(['--metrics-secure']).metricsSecure, true);
    assert.equal(parseOptions(['-metrics-secure=true']).metricsSecure, true);
    assert.equal(parseOptions(['--metrics-secure=false']).metricsSecure, false);
    assert.deepEqual(pick(parseOptions(['--metrics-secure', '--metrics-cert-dir=/certs']), 'metricsSecure', 'metricsCertDir'), { metricsSecure: true, metricsCertDir: '/certs' });
    assert.throws(() => parseOptions(['--metrics-cert-dir=/certs']), /--metrics-cert-dir needs --metrics-secure/);
    assert.throws(() => parseOptions(['--metrics-secure=on']), /--metrics-secure takes true or false/);
  });

  it('takes --sharding with its identity, Lease namespace and durations, only with --sharding and not with --leader-elect', () => {
    const o = parseOptions(['--sharding', '--identity=r1', '--sharding-namespace=ops', '--shard-lease-duration=8s', '--shard-renew-deadline=5000ms', '--shard-retry-period=1']);
    assert.deepEqual(pick(o, 'sharding', 'identity', 'shardingNamespace', 'shardLeaseDurationMs', 'shardRenewDeadlineMs', 'shardRetryPeriodMs'), {
      sharding: true, identity: 'r1', shardingNamespace: 'ops', shardLeaseDurationMs: 8000, shardRenewDeadlineMs: 5000, shardRetryPeriodMs: 1000,
    });
    assert.throws(() => parseOptions(['--identity=r1']), /--identity needs --sharding/);
    assert.throws(() => parseOptions(['--sharding', '--leader-elect']), /exclude each other/);
    assert.throws(() => parseOptions(['--sharding', '--shard-lease-duration=soon']), /duration/);
  });
});

describe('sample-controller webhooks', () => {
  const foo = (spec: Record<string, unknown>): any => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f' }, spec });
  const req = { operation: 'CREATE' } as never;

  it('defaults replicas to 1 and validates deploymentName, replicas and a fixed deploymentName', async () => {
    const f = foo({ deploymentName: 'd' });
    await fooDefaulter(f, req);
    assert.equal(f.spec.replicas, 1);
    const zero = foo({ deploymentName: 'd', replicas: 0 });
    await fooDefaulter(zero, req);
    assert.equal(zero.spec.replicas, 0, 'an explicit 0 stays');
    assert.throws(() => fooValidator.validateCreate!(foo({ deploymentName: 'Bad_Name' }), req), /must be a DNS-1123 label/);
    assert.throws(() => fooValidator.validateCreate!(foo({ deploymentName: 'ok', replicas: 11 }), req), /between 0 and 10/);
    assert.doesNotThrow(() => fooValidator.validateCreate!(foo({ deploymentName: 'ok', replicas: 0 }), req));
    assert.throws(() => fooValidator.validateUpdate!(foo({ deploymentName: 'a' }), foo({ deploymentName: 'b' }), req), /may not change/);
  });

  it('converts v1alpha1 ↔ v1 without losing a field (random objects)', () => {
    let seed = 3;
    const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 200; i++) {
      const spec: Record<string, unknown> = {};
      if (rnd(4) > 0) spec['deploymentName'] = `d${rnd(100)}`;
      if (rnd(4) > 0) spec['replicas'] = rnd(11);
      const old = { ...foo(spec), metadata: { name: `f${i}`, ...(rnd(2) ? { labels: { a: 'b' } } : {}) } };
      const up = fooConversion.convert({ uid: 'u', desiredAPIVersion: 'samplecontroller.k8s.io/v1', objects: [old] });
      assert.equal(up.result.status, 'Success');
      const back = fooConversion.convert({ uid: 'u', desiredAPIVersion: 'samplecontroller.k8s.io/v1alpha1', objects: up.convertedObjects });
      assert.deepEqual(back.convertedObjects[0], old, `case ${i}`);
    }
  });
});

