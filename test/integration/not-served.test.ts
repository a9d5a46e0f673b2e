/**
 * A typed request for a kind the server does not serve, on real apiservers: kube-apiserver 1.20 (`full`) serves
 * `policy/v1beta1` but not `policy/v1`, so a hand-written `policy/v1` PodDisruptionBudget descriptor (lifecycle
 * introduced 1.21) fails get, list, create, watch and delete with one line naming the kind, what `policy` serves and
 * the release it needs; a reflector listing it reports the same line; an object that does not exist stays a plain
 * NotFound. The CRD apiserver 1.36 (`crd-only`) serves no built-in group at all, and says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isNotFound, isNotServed } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceDescriptor } from '@kubegen/runtime/internal/client/types.js';
import { Indexer } from '@kubegen/runtime/internal/cache/indexer.js';
import { Reflector } from '@kubegen/runtime/internal/cache/reflector.js';
import type { Logger } from '@kubegen/runtime/internal/log.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { until } from '../support/wait.js';
import { rejection } from '../support/rejection.js';
import { PDB_V1, PDB_V1BETA1 } from '../support/pdb-descriptors.js';

const POD: ResourceDescriptor = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', listKind: 'PodList', namespaced: true };
const pdb = (name: string): KubeObject & { spec: object } => ({ metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } });

describe('a kind kube-apiserver 1.20 does not serve (full profile)', () => {
  let env: TestEnv;
  let ns: string;
  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('not-served');
  });
  after(() => env.release());

  const LINE = 'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves policy/v1beta1); policy/v1 PodDisruptionBudget needs Kubernetes 1.21 or later';

  it('get, list, create, delete and watch fail with the one line; it is still a 404 NotFound', async () => {
    const client = new ResourceClient<KubeObject>(env.transport, PDB_V1, ns);
    const errors = [
      await rejection(client.get('x')),
      await rejection(client.list()),
      await rejection(client.create(pdb('x'))),
      await rejection(client.delete('x')),
      await rejection(client.watch()),
    ];
    for (const [i, err] of errors.entries()) {
      assert.ok(isNotServed(err), `request ${i}: ${String(err)}`);
      assert.equal(err.message, LINE);
      assert.ok(isNotFound(err));
      assert.deepEqual(err.servedVersions, ['policy/v1beta1']);
      assert.equal(err.notServed.answer, 'the server could not find the requested resource');
    }
    assert.deepEqual(errors.map((e) => (isNotServed(e) ? e.request?.verb : undefined)), ['get', 'list', 'create', 'delete', 'watch']);
  });

  it('an object that does not exist in a served version stays a plain NotFound', async () => {
    const err = await rejection(new ResourceClient<KubeObject>(env.transport, PDB_V1BETA1, ns).get('nope'));
    assert.ok(isNotFound(err));
    assert.ok(!isNotServed(err));
    assert.equal((err as Error).message, 'poddisruptionbudgets.policy "nope" not found');
    // ... and the served version works.
    const created = await new ResourceClient<KubeObject>(env.transport, PDB_V1BETA1, ns).create(pdb('served'));
    assert.equal(created.apiVersion, 'policy/v1beta1');
  });

  it('a subresource the kind does not have names the ones it has', async () => {
    const err = await rejection(new ResourceClient<KubeObject>(env.transport, PDB_V1BETA1, ns).getSubresource('served', 'scale'));
    assert.ok(isNotServed(err));
    assert.equal(err.message, 'the scale subresource of PodDisruptionBudget policy/v1beta1 is not served by this apiserver (poddisruptionbudgets has status)');
  });

  it('a reflector listing it reports the same line (onError and its log) and keeps retrying', async () => {
    const errors: unknown[] = [];
    const logged: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (msg, fields) => void logged.push(`${msg}: ${String(fields?.['error'])}`),
      child: () => logger,
    };
    const r = new Reflector<KubeObject>(new ResourceClient<KubeObject>(env.transport, PDB_V1, ns), new Indexer<KubeObject>(), {
      logger,
      backoff: { initialMs: 50, maxMs: 100 },
      onError: (e) => errors.push(e),
    });
    void r.run();
    try {
      await until(() => errors.length >= 3, 'three reports: the WatchList attempt, the list, the list retried', 20_000);
    } finally {
      await r.stop();
    }
    for (const err of errors) assert.equal(isNotServed(err) ? err.message : String(err), LINE);
    assert.equal(logged[0], `list failed: ${LINE}`);
  });
});

describe('built-in kinds on the CRD apiserver 1.36 (crd-only profile)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv({ profile: 'crd-only' });
  });
  after(() => env.release());

  it('no core group and no policy: the line says it is not a kube-apiserver', async () => {
    const pods = await rejection(new ResourceClient<KubeObject>(env.transport, POD, 'ns').list());
    assert.ok(isNotServed(pods));
    assert.equal(pods.message, 'Pod v1 is not served by this apiserver (it serves no version of the core group)');
    assert.deepEqual(pods.servedVersions, []);
    const pdbs = await rejection(new ResourceClient<KubeObject>(env.transport, PDB_V1, 'ns').create(pdb('x')));
    assert.ok(isNotServed(pdbs) && isNotFound(pdbs));
    assert.equal(
      pdbs.message,
      'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves no version of policy); policy/v1 PodDisruptionBudget is in Kubernetes 1.21 and later, but this apiserver (v1.36.4) serves no built-in kinds: it is not a kube-apiserver (a CRD or aggregated apiserver)',
    );
    assert.equal(pdbs.notServed.answer, '404 page not found');
  });
});
