/**
 * A request for a resource the server does not serve: the one line of `ResourceNotServedError` for each case (a
 * version the release does not have yet, one it removed, one it has turned off, a group it does not serve, a
 * resource or subresource missing from a served group version, discovery failing, a CRD not installed); which 404s
 * are "not served" and which are an object's NotFound; the fake's own; and a reflector reporting the line and
 * retrying until the kind is served. Against real apiservers: test/integration/not-served.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ApiError, isNotFound, isNotServed, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { explainError } from '@kubegen/runtime/internal/client/forbidden.js';
import { isNotServedAnswer, NOT_SERVED_MESSAGE, notServedLine, type NotServedFacts } from '@kubegen/runtime/internal/client/not-served.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceDescriptor } from '@kubegen/runtime/internal/client/types.js';
import { Indexer } from '@kubegen/runtime/internal/cache/indexer.js';
import { Reflector } from '@kubegen/runtime/internal/cache/reflector.js';
import type { Logger } from '@kubegen/runtime/internal/log.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { settle } from '../support/wait.js';
import { PDB_V1, PDB_V1BETA1 } from '../support/pdb-descriptors.js';

const FOO: ResourceDescriptor = { group: 'example.com', version: 'v1', resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true, statusSubresource: true };
const release = (gitVersion: string) => {
  const [major, minor, patch] = gitVersion.slice(1).split('.').map(Number);
  return { major: major!, minor: minor!, patch: patch!, gitVersion };
};
const line = (facts: Partial<NotServedFacts> & Pick<NotServedFacts, 'resource'>): string => notServedLine({ served: { groupVersions: [] }, ...facts });

describe('the not-served line', () => {
  it('a version newer than the server: names the kind, what the group serves and the release it needs', () => {
    const facts = { resource: PDB_V1, served: { groupVersions: ['policy/v1beta1'] } };
    const expected = 'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves policy/v1beta1); policy/v1 PodDisruptionBudget needs Kubernetes 1.21 or later';
    assert.equal(line({ ...facts, serverVersion: release('v1.20.2') }), expected);
    assert.equal(line(facts), expected, 'without the server version too');
  });

  it('a version the server’s release removed: says when, and what replaces it', () => {
    assert.equal(
      line({ resource: PDB_V1BETA1, served: { groupVersions: ['policy/v1'] }, serverVersion: release('v1.36.4') }),
      'PodDisruptionBudget policy/v1beta1 is not served by this apiserver (it serves policy/v1); policy/v1beta1 PodDisruptionBudget was removed in Kubernetes 1.25 (use policy/v1 PodDisruptionBudget)',
    );
  });

  it('a version the server’s release has but does not serve: turned off, and how to turn it on (or the caller’s hint; or: not a kube-apiserver)', () => {
    const facts = { resource: PDB_V1, served: { groupVersions: ['policy/v1beta1'] }, serverVersion: release('v1.22.0') };
    assert.equal(
      line(facts),
      'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves policy/v1beta1); policy/v1 PodDisruptionBudget is in Kubernetes 1.21 and later, so this apiserver (v1.22.0) has it turned off (kube-apiserver --runtime-config=policy/v1=true turns it on)',
    );
    assert.match(line({ ...facts, turnedOffHint: 'register it' }), /\(it serves policy\/v1beta1\); register it$/);
    assert.equal(
      line({ resource: PDB_V1, served: { groupVersions: [], coreServed: false }, serverVersion: release('v1.36.4') }),
      'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves no version of policy); policy/v1 PodDisruptionBudget is in Kubernetes 1.21 and later, but this apiserver (v1.36.4) serves no built-in kinds: it is not a kube-apiserver (a CRD or aggregated apiserver)',
    );
  });

  it('a group the server does not serve at all, and the core group on a server without it', () => {
    assert.equal(line({ resource: PDB_V1, serverVersion: release('v1.36.4'), served: { groupVersions: [] }, turnedOffHint: 'x' }), 'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves no version of policy); x');
    const cm: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true };
    assert.equal(line({ resource: cm }), 'ConfigMap v1 is not served by this apiserver (it serves no version of the core group)');
  });

  it('a custom resource: asks whether its CRD is installed; a resource missing from a served group version says so', () => {
    assert.equal(
      line({ resource: FOO, served: { groupVersions: ['example.com/v2'] } }),
      'Foo example.com/v1 is not served by this apiserver (it serves example.com/v2); is the CustomResourceDefinition foos.example.com installed and established, with version v1 served?',
    );
    assert.equal(
      line({ resource: FOO, served: { groupVersions: ['example.com/v1'], resources: new Map([['bars', []]]) } }),
      'Foo example.com/v1 is not served by this apiserver (it serves example.com/v1, and example.com/v1 has no foos); is the CustomResourceDefinition foos.example.com installed and established, with version v1 served?',
    );
  });

  it('a subresource of a served resource names the ones it has; a failed discovery says why; no kind: the resource', () => {
    const served = { groupVersions: ['example.com/v1'], resources: new Map([['foos', ['status']]]) };
    assert.equal(line({ resource: FOO, subresource: 'scale', served }), 'the scale subresource of Foo example.com/v1 is not served by this apiserver (foos has status)');
    assert.equal(
      line({ resource: PDB_V1, served: { error: 'GET /apis: connect ECONNREFUSED' } }),
      'PodDisruptionBudget policy/v1 is not served by this apiserver (discovery could not say what it serves: GET /apis: connect ECONNREFUSED); policy/v1 PodDisruptionBudget needs Kubernetes 1.21 or later',
    );
    assert.match(line({ resource: { ...FOO, kind: '' } }), /^foos example\.com\/v1 is not served by this apiserver/);
  });
});

describe('which 404s say "not served"', () => {
  it('a bare 404 and the NotFound of an unknown path do; an object’s NotFound and other codes do not', () => {
    assert.equal(isNotServedAnswer(404, undefined), true);
    assert.equal(isNotServedAnswer(404, newStatus(404, 'NotFound', NOT_SERVED_MESSAGE, {})), true);
    assert.equal(isNotServedAnswer(404, newStatus(404, 'NotFound', 'pods "x" not found', { name: 'x', kind: 'pods' })), false);
    assert.equal(isNotServedAnswer(404, newStatus(404, 'NotFound', 'foos "x" not found')), false, 'even without details');
    assert.equal(isNotServedAnswer(405, undefined), false);
  });
});

describe('the fake', () => {
  it('an unregistered kind is a ResourceNotServedError with the line; a missing object stays a plain NotFound', async () => {
    const transport = newFakeTransport([PDB_V1BETA1]);
    const err = await new ResourceClient(transport, PDB_V1, 'ns').list().catch((e: unknown) => e);
    assert.ok(isNotServed(err) && isNotFound(err));
    assert.equal(
      err.message,
      'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves policy/v1beta1); the fake serves only the resources it was given (createFakeClientset, ObjectTracker.register)',
    );
    assert.deepEqual(err.servedVersions, ['policy/v1beta1']);
    const missing = await new ResourceClient(transport, PDB_V1BETA1, 'ns').get('nope').catch((e: unknown) => e);
    assert.ok(missing instanceof ApiError && isNotFound(missing) && !isNotServed(missing));
    assert.equal(missing.message, 'poddisruptionbudgets.policy "nope" not found');
  });
});

describe('a reflector of a kind that is not served', () => {
  it('reports the line (onError and the log) and keeps retrying with its backoff until the kind is served', async () => {
    const transport = newFakeTransport([PDB_V1BETA1]);
    const clock = new FakeClock(0);
    const errors: unknown[] = [];
    const logged: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (msg, fields) => void logged.push({ msg, fields }),
      child: () => logger,
    };
    const store = new Indexer<KubeObject>();
    const r = new Reflector<KubeObject>(new ResourceClient<KubeObject>(transport, PDB_V1, 'ns'), store, {
      clock,
      logger,
      random: () => 0,
      backoff: { random: () => 0 },
      watchList: false,
      onError: (e) => errors.push(e),
    });
    void r.run();
    await settle(() => errors.length === 1, 'the first list error', 1000);
    const expected = 'PodDisruptionBudget policy/v1 is not served by this apiserver (it serves policy/v1beta1); the fake serves only the resources it was given (createFakeClientset, ObjectTracker.register)';
    assert.ok(isNotServed(errors[0]));
    assert.equal(explainError(errors[0]), expected);
    assert.deepEqual(logged.map((l) => [l.msg, l.fields?.['error']]), [['list failed', expected]]);
    const lists = () => transport.actions().filter((a) => a.verb === 'list').length;
    assert.equal(lists(), 1);
    clock.step(800);
    await settle(() => errors.length === 2, 'the retry after the backoff', 1000);
    transport.tracker.register(PDB_V1); // served from now on: the next retry syncs
    transport.tracker.create(PDB_V1, 'ns', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb' } });
    clock.step(1600);
    await settle(() => store.list().length === 1, 'the store synced once served', 1000);
    assert.equal(lists(), 3);
    await r.stop();
  });
});
