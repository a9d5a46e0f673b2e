/**
 * examples/fleet-config as a user runs it — `node examples/fleet-config/dist/main.js --kubeconfig HUB
 * --clusters-namespace NS` — against a hub (the shared `full` control plane, with the FleetConfig CRD) and two member
 * control planes of their own (`full`: the members hold ConfigMaps, which the CRD-only profile does not serve). The
 * members are kubeconfig Secrets in NS.
 *
 * - A FleetConfig becomes a managed ConfigMap of the same namespace and name in both members, and each member's
 *   entry of status.clusters says synced for its generation; a spec change reaches both members.
 * - Drift in a member (its ConfigMap edited, or deleted) is undone.
 * - A ConfigMap of that name that fleet-config does not manage is left alone and reported (synced false, naming
 *   it) in that member's entry only; the other member syncs.
 * - A member whose Secret is removed is disengaged and its entry dropped at the next reconcile; a member added at
 *   runtime gets every FleetConfig.
 * - Deleting the FleetConfig deletes the managed ConfigMaps; SIGTERM exits 0.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import type { ConfigMap, Secret } from '@kubegen/runtime/internal/builtin/types.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { KUBECONFIG_SECRET_LABEL } from '@kubegen/runtime/internal/multicluster/providers/kubeconfig-secrets.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { fleetConfigResource } from '../../examples/fleet-config/src/generated/fleet.kubegen.io/v1alpha1/register.js';
import type { FleetConfig } from '../../examples/fleet-config/src/generated/fleet.kubegen.io/v1alpha1/types.js';
import { REPO_ROOT } from '../support/paths.js';
import { eventually } from '../support/wait.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureExampleBuilt, freePort, SampleControllerProcess } from './support/sample-controller-process.js';

const CRD = path.join(REPO_ROOT, 'examples/fleet-config/config/crd/fleet.kubegen.io_fleetconfigs.yaml');
const MEMBERS = ['m1', 'm2'] as const;
type Member = (typeof MEMBERS)[number];
const MANAGED = 'fleet.kubegen.io/managed';

describe('examples/fleet-config with a hub and two member control planes', () => {
  let hub: TestEnv;
  const members = new Map<Member, Envtest>();
  let main: string;

  before(async () => {
    main = ensureExampleBuilt('fleet-config');
    const started = await Promise.allSettled([
      sharedEnv({ crdPaths: [CRD] }),
      ...MEMBERS.map((m) => Envtest.start({ profile: 'full', startTimeoutMs: 120_000 }).then((e) => members.set(m, e))),
    ]);
    if (started[0]!.status === 'fulfilled') hub = started[0]!.value;
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  });

  after(async () => {
    await Promise.all([...members.values()].map((e) => e.stop()));
    await hub?.release();
  });

  const memberConfigMaps = (m: Member, ns: string) => new KubeClientset(members.get(m)!.transport()).coreV1.configMaps(ns);
  const secrets = (ns: string) => new KubeClientset(hub.transport).coreV1.secrets(ns);
  const kubeconfigSecret = (ns: string, m: Member): Secret => ({
    apiVersion: 'v1', kind: 'Secret',
    metadata: { name: m, namespace: ns, labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
    data: { kubeconfig: Buffer.from(fs.readFileSync(members.get(m)!.kubeconfigPath)).toString('base64') },
  });
  /** The member's ConfigMap once its data is `data` (and it carries the managed label). */
  const memberHas = (m: Member, ns: string, name: string, data: Record<string, string>): Promise<ConfigMap> =>
    eventually(`ConfigMap ${ns}/${name} in ${m} holding ${JSON.stringify(data)}`, async () => {
      const cm = await memberConfigMaps(m, ns).get(name);
      return JSON.stringify(cm.data ?? {}) === JSON.stringify(data) && cm.metadata?.labels?.[MANAGED] === 'true' ? cm : undefined;
    }, 30_000);
  const statusOf = async (ns: string, name: string) =>
    (await new ResourceClient<FleetConfig>(hub.transport, fleetConfigResource, ns).get(name)).status?.clusters ?? [];

  it('writes each FleetConfig into both members, reports per cluster, undoes drift, leaves foreign ConfigMaps alone and follows members coming and going', async () => {
    const ns = await hub.newNamespace('fleet');
    for (const m of MEMBERS) {
      await new KubeClientset(members.get(m)!.transport()).coreV1.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    for (const m of MEMBERS) await secrets(ns).create(kubeconfigSecret(ns, m));
    const probePort = await freePort();
    const proc = new SampleControllerProcess('fleet-config', [
      '--kubeconfig', hub.kubeconfigPath, '--clusters-namespace', ns,
      '--metrics-bind-address=0', `--health-probe-bind-address=127.0.0.1:${probePort}`, '--member-timeout=5s',
    ], {}, main);
    const configs = new ResourceClient<FleetConfig>(hub.transport, fleetConfigResource, ns);
    try {
      // Created: both members get the ConfigMap, both entries say synced for generation 1.
      await configs.create({ apiVersion: 'fleet.kubegen.io/v1alpha1', kind: 'FleetConfig', metadata: { name: 'app', namespace: ns }, spec: { data: { color: 'blue' } } });
      for (const m of MEMBERS) await memberHas(m, ns, 'app', { color: 'blue' });
      await eventually('both clusters synced at generation 1', async () => {
        const s = await statusOf(ns, 'app');
        return s.length === 2 && s.every((c) => c.synced && c.observedGeneration === 1) ? s : undefined;
      });
      assert.deepEqual((await statusOf(ns, 'app')).map((c) => c.name).sort(), ['m1', 'm2']);

      // Changed: both members follow; entries move to generation 2.
      const current = await configs.get('app');
      await configs.update({ ...current, spec: { data: { color: 'green', size: 'L' } } });
      for (const m of MEMBERS) await memberHas(m, ns, 'app', { color: 'green', size: 'L' });
      await eventually('both clusters synced at generation 2', async () => {
        const s = await statusOf(ns, 'app');
        return s.length === 2 && s.every((c) => c.synced && c.observedGeneration === 2) ? s : undefined;
      });

      // Drift in a member: edited in m1, deleted in m2; both restored.
      const drifted = await memberConfigMaps('m1', ns).get('app');
      await memberConfigMaps('m1', ns).update({ ...drifted, data: { color: 'red' } });
      await memberConfigMaps('m2', ns).delete('app');
      for (const m of MEMBERS) await memberHas(m, ns, 'app', { color: 'green', size: 'L' });

      // A ConfigMap fleet-config does not manage, in m2 only: left alone and reported there; m1 syncs.
      await memberConfigMaps('m2', ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', namespace: ns }, data: { owner: 'someone else' } });
      await configs.create({ apiVersion: 'fleet.kubegen.io/v1alpha1', kind: 'FleetConfig', metadata: { name: 'taken', namespace: ns }, spec: { data: { owner: 'fleet' } } });
      await memberHas('m1', ns, 'taken', { owner: 'fleet' });
      const refused = await eventually('m2 reported not synced for "taken"', async () => {
        const s = await statusOf(ns, 'taken');
        const m2 = s.find((c) => c.name === 'm2');
        return m2 && !m2.synced && s.find((c) => c.name === 'm1')?.synced ? m2 : undefined;
      });
      assert.match(refused.message ?? '', new RegExp(`ConfigMap ${ns}/taken in cluster m2 exists and is not managed by fleet-config`));
      assert.deepEqual((await memberConfigMaps('m2', ns).get('taken')).data, { owner: 'someone else' });

      // /readyz/clusters names both members.
      const readyz = await (await fetch(`http://127.0.0.1:${probePort}/readyz/clusters`)).text();
      assert.match(readyz, /m1: fleet-config ok/);
      assert.match(readyz, /m2: fleet-config ok/);

      // m2's Secret removed: disengaged; its entry goes at the next reconcile of the FleetConfig.
      await secrets(ns).delete('m2');
      await proc.waitForLog((l) => l.msg === 'cluster disengaged' && l['cluster'] === 'm2', 'm2 disengaged');
      const app = await configs.get('app');
      await configs.update({ ...app, spec: { data: { color: 'green', size: 'XL' } } });
      await memberHas('m1', ns, 'app', { color: 'green', size: 'XL' });
      await eventually('only m1 in the status of app', async () => {
        const s = await statusOf(ns, 'app');
        return s.length === 1 && s[0]!.name === 'm1' && s[0]!.observedGeneration === 3 ? s : undefined;
      });
      // Added again at runtime: it gets the current data of every FleetConfig.
      await secrets(ns).create(kubeconfigSecret(ns, 'm2'));
      await memberHas('m2', ns, 'app', { color: 'green', size: 'XL' });

      // Deleted in the hub: the managed ConfigMaps go; the foreign one stays.
      await configs.delete('app');
      await configs.delete('taken');
      for (const m of MEMBERS) {
        await eventually(`ConfigMap app deleted in ${m}`, async () => ((await memberConfigMaps(m, ns).get('app').catch(() => undefined)) ? undefined : true));
      }
      await eventually('ConfigMap taken deleted in m1', async () => ((await memberConfigMaps('m1', ns).get('taken').catch(() => undefined)) ? undefined : true));
      assert.deepEqual((await memberConfigMaps('m2', ns).get('taken')).data, { owner: 'someone else' });

      proc.child.kill('SIGTERM');
      const exit = await proc.waitForExit(30_000);
      assert.deepEqual(exit, { code: 0, signal: null }, proc.tail());
    } catch (err) {
      console.log(proc.tail(8000));
      throw err;
    } finally {
      await proc.kill();
    }
  });

  it('exits 2 naming the flag when --clusters-namespace is missing', async () => {
    const proc = new SampleControllerProcess('fleet-config', ['--kubeconfig', hub.kubeconfigPath], {}, main);
    const exit = await proc.waitForExit(30_000);
    assert.equal(exit.code, 2);
    assert.match(proc.tail(), /--clusters-namespace is required/);
  });
});
