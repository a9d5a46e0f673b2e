/**
 * Shared informers against a real apiserver (the shared control plane): paginated initial sync, lister == server,
 * several handlers over one watch connection, and handlers that throw or hang.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { FOO } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { CountingTransport } from './support/counting-transport.js';
import { until } from '../support/wait.js';

interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
}

const foo = (ns: string, name: string, replicas = 1, labels: Record<string, string> = {}): Foo => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { namespace: ns, name, labels },
  spec: { deploymentName: `${name}-dep`, replicas },
});



/** Creates objects with `parallel` requests in flight. */
async function createAll(client: ResourceClient<Foo>, objs: Foo[], parallel = 32): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < objs.length) await client.create(objs[next++]!);
    }),
  );
}

const summary = (objs: Foo[]): string[] => objs.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();

describe('SharedIndexInformer against kube-apiserver', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('syncs 2,000 objects over several pages and its lister agrees with a direct list', { timeout: 180_000 }, async () => {
    const ns = await env.newNamespace('inf-pages');
    const client = new ResourceClient<Foo>(env.transport, FOO, ns);
    await createAll(
      client,
      Array.from({ length: 2000 }, (_, i) => foo(ns, `foo-${i}`, 1 + (i % 5), { shard: String(i % 4) })),
    );
    const counting = new CountingTransport(env.transport);
    const informer = new SharedIndexInformer<Foo>(new ResourceClient<Foo>(counting, FOO, ns), {
      name: 'pages',
      pageSize: 500,
      initialResourceVersion: '', // consistent read from etcd, paginated (RV "0" would be served whole by the watch cache)
      logger: nullLogger,
    });
    void informer.run();
    await until(() => informer.hasSynced(), 'sync');
    assert.equal(counting.lists, 4, '2,000 objects in pages of 500');
    const direct = await client.list();
    assert.equal(direct.items.length, 2000);
    const lister = informer.lister();
    assert.deepEqual(summary(lister.namespace(ns).list()), summary(direct.items));
    assert.deepEqual(summary(lister.list('shard=1')), summary((await client.list({ labelSelector: 'shard=1' })).items));
    assert.deepEqual(
      summary(lister.namespace(ns).list('shard in (0,3)')),
      summary((await client.list({ labelSelector: 'shard in (0,3)' })).items),
    );
    assert.equal(lister.namespace(ns).get('foo-1234')?.spec?.replicas, 1 + (1234 % 5));
    await informer.stop();
  });

  it('two handlers see create, update and delete over a single watch connection', { timeout: 60_000 }, async () => {
    const ns = await env.newNamespace('inf-handlers');
    const client = new ResourceClient<Foo>(env.transport, FOO, ns);
    await client.create(foo(ns, 'existing'));
    const counting = new CountingTransport(env.transport);
    const factory = new SharedInformerFactory(counting, { namespace: ns, logger: nullLogger });
    const informer = factory.informerFor<Foo>(FOO);
    assert.equal(factory.informerFor<Foo>(FOO), informer, 'a second caller gets the same informer');
    const seen: string[][] = [[], []];
    for (const log of seen) {
      informer.addEventHandler({
        onAdd: (o, initial) => void log.push(`add ${o.metadata!.name}${initial ? ' (initial)' : ''}`),
        onUpdate: (o, n) => void log.push(`update ${n.metadata!.name} ${o.spec!.replicas}->${n.spec!.replicas}`),
        onDelete: (o) => void log.push(`delete ${(o instanceof DeletedFinalStateUnknown ? o.obj : o).metadata!.name}`),
      });
    }
    factory.start();
    await factory.waitForCacheSync({ timeoutMs: 20_000 });
    const created = await client.create(foo(ns, 'new', 1));
    await client.update({ ...created, spec: { ...created.spec, replicas: 3 } });
    await client.delete('new');
    const expected = ['add existing (initial)', 'add new', 'update new 1->3', 'delete new'];
    await until(() => seen.every((l) => l.length >= expected.length), 'both handlers');
    assert.deepEqual(seen[0], expected);
    assert.deepEqual(seen[1], expected);
    assert.equal(counting.watches, 1, 'one watch connection for both handlers');
    assert.equal(counting.lists, 1);
    await factory.shutdown();
  });

  it('a handler that throws and one that hangs do not stop delivery to the others', { timeout: 60_000 }, async () => {
    const ns = await env.newNamespace('inf-bad');
    const client = new ResourceClient<Foo>(env.transport, FOO, ns);
    const informer = new SharedIndexInformer<Foo>(new ResourceClient<Foo>(env.transport, FOO, ns), { logger: nullLogger });
    let throws = 0;
    let hangs = 0;
    const good: string[] = [];
    informer.addEventHandler({
      onAdd: () => {
        throws++;
        throw new Error('bug in handler');
      },
    });
    informer.addEventHandler({ onAdd: () => (hangs++, new Promise<void>(() => undefined)) });
    informer.addEventHandler({ onAdd: (o) => void good.push(o.metadata!.name!) });
    void informer.run();
    await until(() => informer.hasSynced(), 'sync');
    for (let i = 0; i < 20; i++) await client.create(foo(ns, `f${i}`));
    await until(() => good.length === 20, 'the good handler');
    assert.equal(throws, 20, 'the throwing handler is still called for every event');
    assert.equal(hangs, 1, 'the hanging handler never got past its first event');
    assert.equal(informer.getIndexer().size, 20);
    await informer.stop();
  });
});
