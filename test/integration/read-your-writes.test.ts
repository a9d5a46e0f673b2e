/**
 * Read-your-writes on a real kube-apiserver 1.20 (issue 28, item 3): a controller that rewrites a Foo's status and
 * reads it back through the manager's cached client never reads a stale Foo and never conflicts, whatever the cache's
 * lag (a read either waits for the cache or, past the bound, goes to the apiserver): each reconcile starts from the
 * state the previous one wrote, and its `get` and `list` right after its write show it. The off switch and the
 * fallback are covered on the fake transport: test/unit/read-your-writes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { isConflict } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { FOO } from './support/crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';

type Foo = KubeObject & { spec?: { deploymentName?: string; replicas?: number }; status?: { availableReplicas?: number } };
const WRITES = 40;

describe('read-your-writes on kube-apiserver 1.20', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('a controller rewriting status and reading it back through the cache sees every write and never conflicts', { timeout: 120_000 }, async () => {
    const ns = await env.newNamespace('ryw');
    await new ResourceClient<Foo>(env.transport, FOO, ns).create({ metadata: { name: 'foo' }, spec: { deploymentName: 'foo', replicas: 1 } });
    const registry = new Registry();
    const transport = env.newTransport();
    const mgr = new Manager({ transport, namespace: ns, metricsBindAddress: '0', healthProbeBindAddress: '0', logger: nullLogger, registry });
    const seen = { writes: 0, staleStarts: 0, staleReads: 0, conflicts: 0, last: 0 };
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    controllerFor(mgr, FOO).complete(async (req) => {
      if (seen.writes >= WRITES) return;
      const client = mgr.getClient().resource<Foo>(FOO, req.namespace);
      const current = await client.get(req.name);
      const count = current.status?.availableReplicas ?? 0;
      if (count < seen.last) seen.staleStarts++;
      let written: Foo;
      try {
        written = await client.updateStatus({ ...current, status: { availableReplicas: count + 1 } });
      } catch (err) {
        if (isConflict(err)) seen.conflicts++;
        throw err;
      }
      seen.last = written.status?.availableReplicas ?? 0;
      seen.writes++;
      const back = await client.get(req.name);
      if (back.status?.availableReplicas !== seen.last) seen.staleReads++;
      if ((await client.list()).items[0]?.status?.availableReplicas !== seen.last) seen.staleReads++;
      if (seen.writes >= WRITES) finished();
      else return { requeueAfterMs: 1 };
    });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await done;
    } finally {
      stop.abort();
      await run;
      transport.close();
    }
    assert.deepEqual(
      { writes: seen.writes, staleStarts: seen.staleStarts, staleReads: seen.staleReads, conflicts: seen.conflicts },
      { writes: WRITES, staleStarts: 0, staleReads: 0, conflicts: 0 },
    );
    const foo = await new ResourceClient<Foo>(env.transport, FOO, ns).get('foo');
    assert.equal(foo.status?.availableReplicas, WRITES, 'the apiserver holds the last write');
  });
});
