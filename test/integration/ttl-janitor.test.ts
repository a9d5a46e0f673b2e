/**
 * The built TTL janitor (`examples/ttl-janitor/dist/main.js`) as a process against the `full` control plane
 * (kube-apiserver 1.20), watching every kind it serves (namespaced ones in the test's namespace): objects of four
 * kinds — ConfigMap and Deployment, a CRD's Gizmos installed before it started and a cluster-scoped CRD's Gadgets
 * installed 5 s after — are deleted within 10 s of their TTL; objects without the annotation, or whose TTL has not
 * run out, are left alone; a bad TTL gets a Warning event; the Gizmo CRD deleted while it runs is let go of within
 * 10 s with at most one warning line, and re-creating it resumes the janitor's work on Gizmos; per-resource metrics
 * count it all; `--dry-run` deletes nothing; SIGTERM exits 0.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { installCrds, type CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { sharedEnv, type TestEnv } from './support/env.js';
import { ensureExampleBuilt, freePort, SampleControllerProcess, type LogLine } from './support/sample-controller-process.js';
import { scrape } from '../support/scrape.js';
import { until } from '../support/wait.js';

const TTL = 'janitor.kubegen.io/ttl';
const GROUP = `j${randomBytes(3).toString('hex')}.janitor.kubegen.dev`;
const GIZMOS: ResourceInfo = { group: GROUP, version: 'v1', resource: 'gizmos', kind: 'Gizmo', listKind: 'GizmoList', namespaced: true };
const GADGETS: ResourceInfo = { group: GROUP, version: 'v1', resource: 'gadgets', kind: 'Gadget', listKind: 'GadgetList', namespaced: false };
const CRDS: ResourceInfo = builtinResources.customResourceDefinitions;

function crd(info: ResourceInfo): CrdObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${info.resource}.${info.group}` },
    spec: {
      group: info.group,
      scope: info.namespaced ? 'Namespaced' : 'Cluster',
      names: { plural: info.resource, singular: info.kind.toLowerCase(), kind: info.kind, listKind: info.listKind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  } as CrdObject;
}

function deployment(name: string, annotations: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  } as KubeObject;
}

/** A janitor log line about `resource` (its own field, or the controller's source naming the kind). */
const about = (l: LogLine, resource: string, kind: string): boolean => l['resource'] === resource || String(l['source'] ?? '').startsWith(`${kind}.`);

describe('the TTL janitor example against envtest', () => {
  let env: TestEnv;
  let ns: string;
  let main: string;
  let janitor: SampleControllerProcess;
  let metrics: string;
  let startedAt: number;
  const client = (info: ResourceInfo, namespace?: string) => new ResourceClient<KubeObject>(env.transport, info, info.namespaced ? namespace : undefined);
  const gone = async (info: ResourceInfo, name: string): Promise<boolean> => {
    try {
      await client(info, ns).get(name);
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  };
  const metric = async (series: string): Promise<number | undefined> => {
    const body = (await scrape(metrics, { scheme: 'http' })).body;
    const line = body.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  /**
   * Creates `name` with a TTL, then polls until it is gone; asserts it went within 10 s of `creationTimestamp +
   * ttl` (the timestamp has whole seconds: +1 s).
   */
  const expectDeletedInTime = async (info: ResourceInfo, obj: KubeObject, ttlSeconds: number): Promise<number> => {
    obj.metadata = { ...obj.metadata, annotations: { ...obj.metadata?.annotations, [TTL]: `${ttlSeconds}s` } };
    const created = await client(info, ns).create(obj);
    const deadline = Date.parse(created.metadata!.creationTimestamp!) + (ttlSeconds + 10 + 1) * 1000;
    await until(() => gone(info, created.metadata!.name!), `${info.resource} ${created.metadata!.name} deleted`, 40_000);
    const at = Date.now();
    assert.ok(at <= deadline, `${info.resource}/${created.metadata!.name} deleted ${(at - deadline) / 1000 + 11} s after its TTL\n${janitor.tail()}`);
    return (at - deadline) / 1000 + 11;
  };

  before(async () => {
    main = ensureExampleBuilt('ttl-janitor');
    env = await sharedEnv();
    ns = await env.newNamespace('janitor');
    await installCrds(env.transport, [crd(GIZMOS)], 30_000);
    const port = await freePort();
    metrics = `127.0.0.1:${port}`;
    janitor = new SampleControllerProcess('ttl-janitor', [`--kubeconfig=${env.kubeconfigPath}`, `--namespace=${ns}`, `--metrics-bind-address=${metrics}`, '--log-format=json'], {}, main);
    startedAt = Date.now();
    await janitor.waitForLog((l) => l.msg === 'watching resources', 'its first look at discovery');
  });

  after(async () => {
    await janitor?.kill();
    await client(CRDS).delete(`gizmos.${GROUP}`).catch(() => undefined);
    await client(CRDS).delete(`gadgets.${GROUP}`).catch(() => undefined);
    await env?.release();
  });

  it('deletes objects of 2 built-in and 2 custom kinds (one installed 5 s after it started) within 10 s of their TTL, and no others', async (t) => {
    const watched = janitor.logged('watching resources')[0]!['resources'] as string[];
    for (const r of ['configmaps', 'deployments.apps', `gizmos.${GROUP}`, 'customresourcedefinitions.apiextensions.k8s.io']) assert.ok(watched.includes(r), `${r} in ${watched.join(', ')}`);
    assert.ok(!watched.includes(`gadgets.${GROUP}`));

    const rest = startedAt + 5_000 - Date.now();
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    await installCrds(env.transport, [crd(GADGETS)], 30_000);
    await janitor.waitForLog((l) => l.msg === 'watching more resources' && (l['added'] as string[]).includes(`gadgets.${GROUP}`), 'the Gadget CRD picked up', 15_000);

    // Left alone: no annotation, a TTL that has not run out, a TTL that is no TTL (a Warning event).
    await client(builtinResources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' } });
    await client(builtinResources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later', annotations: { [TTL]: '1h' } } });
    await client(builtinResources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', annotations: { [TTL]: 'soon' } } });
    await client(builtinResources.deployments, ns).create(deployment('plain', {}));
    await client(GIZMOS, ns).create({ apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'plain' } });
    await client(GADGETS).create({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: `plain-${ns}` } });

    const late = await Promise.all([
      expectDeletedInTime(builtinResources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'short' } }, 3),
      expectDeletedInTime(builtinResources.deployments, deployment('short', {}), 4),
      expectDeletedInTime(GIZMOS, { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'short' } }, 3),
      expectDeletedInTime(GADGETS, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: `short-${ns}` } }, 5),
    ]);
    t.diagnostic(`seen gone, after creationTimestamp + TTL (whole seconds, polled every 50 ms): ConfigMap ${late[0]!.toFixed(1)} s, Deployment ${late[1]!.toFixed(1)} s, Gizmo ${late[2]!.toFixed(1)} s, Gadget ${late[3]!.toFixed(1)} s`);
    for (const [info, name] of [[builtinResources.configMaps, 'plain'], [builtinResources.configMaps, 'later'], [builtinResources.configMaps, 'bad'], [builtinResources.deployments, 'plain'], [GIZMOS, 'plain'], [GADGETS, `plain-${ns}`]] as const) {
      assert.equal(await gone(info, name), false, `${info.resource}/${name} is left alone`);
    }
    const events = (await client(builtinResources.events, ns).list()).items as (KubeObject & { reason?: string; type?: string; involvedObject?: { kind?: string; name?: string } })[];
    assert.ok(events.some((e) => e.type === 'Warning' && e.reason === 'InvalidTTL' && e.involvedObject?.name === 'bad'), 'a Warning event names the object with a bad TTL');
    assert.ok(events.some((e) => e.reason === 'TimeToLiveExpired' && e.involvedObject?.kind === 'Gizmo'), 'a TimeToLiveExpired event for a deleted Gizmo');
    assert.equal(janitor.lines.filter((l) => l.msg === 'invalid TTL annotation; the object is left alone').length, 1);

    for (const r of ['configmaps', 'deployments.apps', `gizmos.${GROUP}`, `gadgets.${GROUP}`]) {
      assert.equal(await metric(`ttl_janitor_objects_deleted_total{resource="${r}",dry_run="false"}`), 1, r);
    }
    assert.equal(await metric('ttl_janitor_invalid_ttl_total{resource="configmaps"}'), 1);
    for (const r of ['configmaps', 'deployments.apps', `gizmos.${GROUP}`, `gadgets.${GROUP}`]) assert.equal(await metric(`ttl_janitor_kind_watched{resource="${r}"}`), 1, r);
    // Every built-in list+watch+delete resource of kube-apiserver 1.20 (46) and the CRDs of the shared control plane.
    assert.ok((await metric('ttl_janitor_kinds_watched'))! >= 46 + 2);
  });

  it('lets go of a CRD deleted while it runs within 10 s, with at most one warning, and resumes when it is re-created', async (t) => {
    const from = janitor.lines.length;
    const deleted = Date.now();
    await client(CRDS).delete(`gizmos.${GROUP}`);
    await janitor.waitForLog((l) => l.msg === 'stopped watching a resource' && l['resource'] === `gizmos.${GROUP}`, 'the Gizmo controller removed', 10_000);
    const letGo = Date.now() - deleted;
    assert.ok(letGo <= 10_000);
    assert.equal(await metric(`ttl_janitor_kind_watched{resource="gizmos.${GROUP}"}`), undefined, 'no longer watched');
    assert.equal(await metric(`kubegen_source_kind_served{controller="janitor-gizmos.${GROUP}",source="Gizmo.${GROUP}/v1"}`), undefined, 'its source is gone with the controller');
    await until(async () => (await env.transport.raw('GET', `/apis/${GROUP}/v1`)).body.toString().includes('gizmos') === false, 'the apiserver no longer serves gizmos', 30_000);
    await new Promise((r) => setTimeout(r, 3_000));
    const noise = janitor.lines.slice(from).filter((l) => (l.level === 'warn' || l.level === 'error') && about(l, `gizmos.${GROUP}`, 'Gizmo'));
    assert.ok(noise.length <= 1, `at most one warning line about the deleted kind:\n${noise.map((l) => JSON.stringify(l)).join('\n')}`);
    t.diagnostic(`CRD deleted → controller removed in ${letGo} ms; warning lines about it: ${noise.map((l) => JSON.stringify(l.msg)).join(', ') || 'none'}`);

    await installCrds(env.transport, [crd(GIZMOS)], 30_000);
    await janitor.waitForLog((l) => janitor.lines.indexOf(l) >= from && l.msg === 'watching more resources' && (l['added'] as string[]).includes(`gizmos.${GROUP}`), 'the Gizmo CRD picked up again', 15_000);
    const again = await expectDeletedInTime(GIZMOS, { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: 'again' } }, 2);
    t.diagnostic(`after the CRD came back: a Gizmo seen gone ${again.toFixed(1)} s after its TTL`);
  });

  it('exits 0 on SIGTERM', async () => {
    janitor.child.kill('SIGTERM');
    const status = await janitor.waitForExit(30_000);
    assert.deepEqual(status, { code: 0, signal: null }, janitor.tail());
  });

  it('with --dry-run, reports expired objects and deletes nothing', async () => {
    const dryNs = await env.newNamespace('janitor-dry');
    await client(builtinResources.configMaps, dryNs).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old', annotations: { [TTL]: '1s' } } });
    await new Promise((r) => setTimeout(r, 2_000));
    const port = await freePort();
    const dry = new SampleControllerProcess('ttl-janitor --dry-run', [`--kubeconfig=${env.kubeconfigPath}`, `--namespace=${dryNs}`, '--include-resources=configmaps', '--dry-run', `--metrics-bind-address=127.0.0.1:${port}`], {}, main);
    try {
      await dry.waitForLog((l) => l.msg === 'TTL expired; would delete (dry run)' && l['name'] === 'old', 'the dry-run report');
      assert.deepEqual(dry.logged('watching resources')[0]!['resources'], ['configmaps']);
      assert.equal((await client(builtinResources.configMaps, dryNs).get('old')).metadata?.name, 'old', 'still there');
      const body = (await scrape(`127.0.0.1:${port}`, { scheme: 'http' })).body;
      assert.match(body, /^ttl_janitor_objects_deleted_total\{resource="configmaps",dry_run="true"\} 1$/m);
      assert.ok(!(await client(builtinResources.events, dryNs).list()).items.some((e) => (e as { reason?: string }).reason === 'TimeToLiveExpired'), 'no event: a dry run writes nothing');
    } finally {
      await dry.kill();
    }
  });
});
