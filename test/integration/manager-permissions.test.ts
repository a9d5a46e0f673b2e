/**
 * A manager whose identity may list one kind but not another, against a real kube-apiserver with RBAC (the manager
 * runs as a ServiceAccount, with a token from the TokenRequest API, bound to a Role in the test's namespace): the
 * controller of the allowed
 * kind reconciles; the other waits alone, its log names the forbidden verb, resource and identity (and the RBAC
 * marker), `/readyz` is not ok and `/readyz/controller-<name>` says why; once the Role grants the kind, it syncs
 * (the informer's relist backoff, no restart) and reconciles, and `/readyz` is ok.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadRestConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { createLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { clusterOf, requestServiceAccountToken } from '@kubegen/runtime/internal/testing/envtest/envtest-rbac.js';
import { until } from '../support/wait.js';
import { sharedEnv, type TestEnv } from './support/env.js';

const ROLES: ResourceInfo = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', listKind: 'RoleList', namespaced: true };
const ROLE_BINDINGS: ResourceInfo = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', listKind: 'RoleBindingList', namespaced: true };
const READ = ['get', 'list', 'watch'];

describe('a manager with a kind it may not list (envtest, RBAC)', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('runs the allowed controller, holds back the other naming the forbidden request, and starts it once granted', async () => {
    const ns = await env.newNamespace('perms');
    const user = `system:serviceaccount:${ns}:manager`;
    await new ResourceClient<KubeObject>(env.transport, builtinResources.serviceAccounts, ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'manager' } });
    const roles = new ResourceClient<KubeObject>(env.transport, ROLES, ns);
    const rule = (resources: string[]) => ({ apiGroups: [''], resources, verbs: READ });
    await roles.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'manager' }, rules: [rule(['configmaps'])] } as KubeObject);
    await new ResourceClient<KubeObject>(env.transport, ROLE_BINDINGS, ns).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'manager' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'manager' },
      subjects: [{ kind: 'ServiceAccount', name: 'manager', namespace: ns }],
    } as KubeObject);
    await new ResourceClient<KubeObject>(env.transport, builtinResources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } });
    await new ResourceClient<KubeObject>(env.transport, builtinResources.services, ns).create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { ports: [{ port: 80 }] },
    } as KubeObject);

    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const token = await requestServiceAccountToken(env.transport, { namespace: ns, name: 'manager' });
    const transport = new HttpTransport({ ...clusterOf(loadRestConfig({ kubeconfig: env.kubeconfigPath })), token });
    const mgr = new Manager({ transport, namespace: ns, metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', logger, registry: new Registry() });
    const seen: string[] = [];
    controllerFor(mgr, builtinResources.configMaps).complete(async (req) => void seen.push(`configmap:${req.name}`));
    controllerFor(mgr, builtinResources.services).complete(async (req) => void seen.push(`service:${req.name}`));
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await until(() => seen.includes('configmap:settings'), 'the allowed controller reconciles', 20_000);
      const refused = `forbidden: list services (core group) in namespace ${ns}, as ${user}; the marker +kubebuilder:rbac:groups="",resources=services,verbs=list grants it`;
      await until(() => lines.some((l) => String(l['error']).includes(refused)), 'a log line naming the forbidden request', 20_000);
      const line = lines.find((l) => String(l['error']).includes(refused))!;
      assert.equal(line['kind'], 'Service', 'the line names the kind');
      const probes = `http://${mgr.healthProbeAddress}`;
      const readyz = await fetch(`${probes}/readyz?verbose`);
      assert.equal(readyz.status, 500);
      const body = await readyz.text();
      assert.match(body, /\[\+\]controller-configmap ok/);
      assert.match(body, /\[-\]controller-service failed/);
      assert.ok((await (await fetch(`${probes}/readyz/controller-service`)).text()).includes(refused));
      assert.ok(!seen.includes('service:web'));

      await roles.update({ ...(await roles.get('manager')), rules: [rule(['configmaps', 'services'])] } as KubeObject);
      await until(() => seen.includes('service:web'), 'the held-back controller reconciles once the Role grants services', 60_000);
      assert.equal((await fetch(`${probes}/readyz`)).status, 200);
    } finally {
      stop.abort();
      await running;
      transport.close();
    }
  });
});
