/**
 * The manager's per-kind cache options on a real kube-apiserver 1.20: a controller whose `for` kind is cached in
 * two namespaces (one list + watch each) and by a label selector, an owned kind cached without managedFields, and a
 * field index that the cached client lists by. Unit-level cases: test/unit/manager-cache.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { controllerFor } from '@kubegen/runtime/internal/builder/builder.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { Manager } from '@kubegen/runtime/internal/manager/manager.js';
import { CountingTransport } from './support/counting-transport.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { until } from '../support/wait.js';

const DEPLOYMENTS = builtinResources.deployments;
const CONFIGMAPS = builtinResources.configMaps;
const configMap = (name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: name } }) as KubeObject;
const deployment = (name: string, owner: KubeObject, image: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true }] },
    spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } } },
  }) as KubeObject;

describe('Manager cache options on kube-apiserver 1.20', () => {
  let env: TestEnv;
  before(async () => {
    env = await sharedEnv();
  });
  after(async () => {
    await env?.release();
  });

  it('caches the for() kind in two namespaces by label, the owned kind without managedFields, and lists by a field index', { timeout: 60_000 }, async () => {
    const [ns1, ns2, ns3] = [await env.newNamespace('cache-a'), await env.newNamespace('cache-b'), await env.newNamespace('cache-c')];
    const cms = new Map<string, KubeObject>();
    for (const ns of [ns1, ns2, ns3]) {
      for (const [name, labels] of [['in', { team: 'x' }], ['out', { team: 'y' }]] as const) {
        cms.set(`${ns}/${name}`, await new ResourceClient<KubeObject>(env.transport, CONFIGMAPS, ns).create(configMap(name, labels)));
      }
    }
    const transport = new CountingTransport(env.transport);
    const mgr = new Manager({
      transport,
      metricsBindAddress: '0',
      logger: nullLogger,
      registry: new Registry(),
      cache: { byObject: [{ resource: CONFIGMAPS, namespaces: [ns1, ns2], labelSelector: 'team=x' }, { resource: DEPLOYMENTS, namespaces: [ns1, ns2] }] },
    });
    const seen = new Set<string>();
    const client = mgr.getClient();
    controllerFor(mgr, CONFIGMAPS)
      .owns(DEPLOYMENTS)
      .complete(async (req) => {
        seen.add(`${req.namespace}/${req.name}`);
        const owner = cms.get(`${req.namespace}/${req.name}`)!;
        await client.resource(DEPLOYMENTS, req.namespace).create(deployment(`d-${req.name}`, owner, req.namespace === ns1 ? 'nginx' : 'redis')).catch(() => undefined);
      });
    mgr.indexField(DEPLOYMENTS, 'spec.image', (d) => (d as { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } }).spec?.template?.spec?.containers?.map((c) => c.image ?? '') ?? []);
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await until(() => seen.size >= 2, 'reconciles', 20_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual([...seen].sort(), [`${ns1}/in`, `${ns2}/in`], 'only labelled ConfigMaps of the two namespaces');
      const deployments = mgr.getInformers(DEPLOYMENTS);
      await until(() => deployments.reduce((n, i) => n + i.lister().list().length, 0) === 2, 'both Deployments cached', 20_000);
      for (const i of deployments) for (const d of i.lister().list()) assert.equal(d.metadata?.managedFields, undefined, 'owned kind: managedFields dropped');
      for (const i of mgr.getInformers(CONFIGMAPS)) for (const c of i.lister().list()) assert.ok(c.metadata?.managedFields, 'for() kind: managedFields kept');

      const before = transport.lists;
      const byImage = async (ns: string | undefined, image: string): Promise<string[]> =>
        (await client.resource(DEPLOYMENTS, ns).list({ fieldSelector: `spec.image=${image}` })).items.map((d) => `${d.metadata?.namespace}/${d.metadata?.name}`);
      assert.deepEqual(await byImage(undefined, 'nginx'), [`${ns1}/d-in`]);
      assert.deepEqual(await byImage(ns2, 'redis'), [`${ns2}/d-in`]);
      assert.deepEqual(await byImage(ns1, 'redis'), []);
      assert.equal(transport.lists, before, 'field-selected lists were answered from the index');
    } finally {
      stop.abort();
      await run;
    }
  });
});
