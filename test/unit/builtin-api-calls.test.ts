/**
 * The built-in clients' subresource calls (client-go's `+genclient:method`s and expansions) send what client-go's
 * send: the verb, resource, subresource, name and namespace, and the body as given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import type { FakeAction } from '@kubegen/runtime/internal/testing/fake/fake-actions.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';

function recording(): { cs: KubeClientset; sent: FakeAction[]; fake: ReturnType<typeof newFakeTransport> } {
  const sent: FakeAction[] = [];
  const fake = newFakeTransport([]);
  fake.prependReactor('*', '*', (a) => {
    sent.push(a);
    return { handled: true, response: { kind: 'Status', status: 'Success' } };
  });
  return { cs: new KubeClientset(fake), sent, fake };
}

const where = (a: FakeAction): string => `${a.verb} ${a.group || 'core'}/${a.version} ${a.resource}/${a.subresource} ${a.namespace}/${a.name}`;

describe('built-in subresource calls', () => {
  it('evicts, binds, replaces ephemeral containers and resizes a pod; evicts through policy/v1 evictions', async () => {
    const { cs, sent } = recording();
    const pods = cs.coreV1.pods('ns');
    await pods.evict('p', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'ns' } });
    await pods.bind('p', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
    await pods.updateEphemeralContainers('p', { metadata: { name: 'p' }, spec: { containers: [], ephemeralContainers: [{ name: 'debug', image: 'busybox' }] } });
    await pods.updateResize('p', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { limits: { cpu: '2' } } }] } });
    await cs.policyV1.evictions('ns').evict('q', { metadata: { name: 'q', namespace: 'ns' } });
    assert.deepEqual(sent.map(where), [
      'create core/v1 pods/eviction ns/p',
      'create core/v1 pods/binding ns/p',
      'update core/v1 pods/ephemeralcontainers ns/p',
      'update core/v1 pods/resize ns/p',
      'create core/v1 pods/eviction ns/q',
    ]);
    assert.deepEqual((sent[1]!.object as { target: unknown }).target, { kind: 'Node', name: 'n1' });
  });

  it('reads and writes a Deployment\'s scale, requests a ServiceAccount token, finalizes a namespace, approves a CSR', async () => {
    const { cs, sent } = recording();
    await cs.appsV1.deployments('ns').getScale('d');
    await cs.appsV1.deployments('ns').updateScale('d', { spec: { replicas: 3 } });
    await cs.coreV1.serviceAccounts('ns').createToken('sa', { spec: { audiences: ['api'], expirationSeconds: 600 } });
    await cs.coreV1.namespaces().finalize('ns', { metadata: { name: 'ns' }, spec: { finalizers: [] } });
    await cs.certificatesV1.certificateSigningRequests().updateApproval('csr', { metadata: { name: 'csr' }, spec: { request: '', signerName: 'x/y' } });
    assert.deepEqual(sent.map(where), [
      'get apps/v1 deployments/scale ns/d',
      'update apps/v1 deployments/scale ns/d',
      'create core/v1 serviceaccounts/token ns/sa',
      'update core/v1 namespaces/finalize /ns',
      'update certificates.k8s.io/v1 certificatesigningrequests/approval /csr',
    ]);
    assert.deepEqual(sent[1]!.object, { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 }, metadata: { name: 'd' } });
  });

  it('gets a pod\'s log as text with its options as the query', async () => {
    const { cs, fake } = recording();
    await assert.rejects(cs.coreV1.pods('ns').getLogs('p', { container: 'c', tailLines: 5, previous: true }), /404/);
    assert.deepEqual(fake.rawRequests().map((r) => `${r.method} ${r.path}`), ['GET /api/v1/namespaces/ns/pods/p/log?container=c&tailLines=5&previous=true']);
  });
});
