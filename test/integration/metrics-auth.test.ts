/**
 * Secured metrics against a real apiserver (kube-apiserver 1.20 with RBAC, the `full` profile; no stubs): a Manager
 * with `metricsSecureServing` serves `/metrics` over HTTPS and asks the apiserver about every scraper with a
 * TokenReview and a SubjectAccessReview. Anonymous → 401, a ServiceAccount token (TokenRequest API) without RBAC →
 * 403, the same token once a ClusterRole granting `get` on `/metrics` is bound to it → 200 with the metrics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { sharedEnv, uniqueName, type TestEnv } from './support/env.js';
import { scrape } from '../support/scrape.js';
import { eventually } from '../support/wait.js';

const rbac = (resource: string, kind: string): ResourceInfo => ({
  group: 'rbac.authorization.k8s.io', version: 'v1', resource, kind, listKind: `${kind}List`, namespaced: false,
});
const CLUSTER_ROLES = rbac('clusterroles', 'ClusterRole');
const CLUSTER_ROLE_BINDINGS = rbac('clusterrolebindings', 'ClusterRoleBinding');

describe('secured metrics (envtest)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('answers 401 anonymously, 403 to a ServiceAccount without RBAC, and 200 once metrics-reader is bound to it', async () => {
    const ns = await env.newNamespace('metrics-auth');
    const sa = 'scraper';
    await new ResourceClient<KubeObject>(env.transport, builtinResources.serviceAccounts, ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } });
    const tokenRequest = await env.transport.request<{ status: { token: string } }>({
      verb: 'create',
      resource: builtinResources.serviceAccounts,
      namespace: ns,
      name: sa,
      subresource: 'token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    });
    const token = tokenRequest.status.token;
    assert.ok(token, 'the TokenRequest API issued a token');

    const roleName = uniqueName('metrics-reader');
    const roles = new ResourceClient<KubeObject>(env.transport, CLUSTER_ROLES);
    const bindings = new ResourceClient<KubeObject>(env.transport, CLUSTER_ROLE_BINDINGS);
    const stop = new AbortController();
    const mgr = new Manager({
      transport: env.transport,
      namespace: ns,
      metricsBindAddress: '127.0.0.1:0',
      metricsSecureServing: true,
      // A denial is kept 10 s by default; 500 ms keeps this test short once the role is bound.
      metricsAuth: { deniedTtlMs: 500 },
      registry: new Registry(),
      logger: nullLogger,
    });
    const running = mgr.start(stop.signal);
    try {
      const address = await eventually('the metrics server to listen', async () => mgr.metricsAddress);

      const anonymous = await scrape(address);
      assert.deepEqual([anonymous.status, anonymous.body], [401, 'Unauthorized\n']);
      assert.equal((await scrape(address, { token: 'not-a-token' })).status, 401, 'the apiserver does not authenticate it');
      const forbidden = await scrape(address, { token });
      assert.deepEqual([forbidden.status, forbidden.body], [403, `Authorization denied for user system:serviceaccount:${ns}:${sa}\n`]);
      assert.doesNotMatch(forbidden.body, /process_cpu/);

      await roles.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: roleName },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      } as KubeObject);
      await bindings.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: roleName },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
      } as KubeObject);
      const allowed = await eventually('the scrape to be allowed once the role is bound', async () => {
        const res = await scrape(address, { token });
        return res.status === 200 ? res : undefined;
      });
      assert.match(allowed.body, /^process_cpu_user_seconds_total \d/m);
      assert.match(allowed.body, /^# TYPE rest_client_requests_total counter$/m, 'the manager registry, with the review requests it made');
      assert.equal((await scrape(address)).status, 401, 'still nothing for anonymous requests');
    } finally {
      stop.abort();
      await running;
      await bindings.delete(roleName).catch(() => undefined);
      await roles.delete(roleName).catch(() => undefined);
    }
  });
});
