/**
 * Multi-cluster manager on the fake transport: request keys, the kubeconfig Secret and static providers, per-cluster
 * lanes (a member that cannot list or is slow does not hold back another, a member disengaged mid-reconcile drains),
 * fan-out of hub objects to members (including one engaged later), reporting back to the hub, and the cluster ring.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import type { Secret } from '@kubegen/runtime/internal/builtin/types.js';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { RestConfig } from '@kubegen/runtime/internal/client/rest-config.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { Cluster } from '@kubegen/runtime/internal/cluster/cluster.js';
import { enqueueForObject } from '@kubegen/runtime/internal/handler/handler.js';
import { nullLogger, type Logger } from '@kubegen/runtime/internal/log.js';
import { newMultiClusterControllerManagedBy } from '@kubegen/runtime/internal/multicluster/builder.js';
import { clusterFenceLeaseName, clusterOwner } from '@kubegen/runtime/internal/multicluster/cluster-sharding.js';
import type { ClusterRequest } from '@kubegen/runtime/internal/multicluster/request.js';
import { enqueueInHub } from '@kubegen/runtime/internal/multicluster/handlers.js';
import { MultiClusterManager } from '@kubegen/runtime/internal/multicluster/manager.js';
import { ClusterNotEngagedError, type ClusterAware } from '@kubegen/runtime/internal/multicluster/provider.js';
import { KubeconfigSecretProvider, KUBECONFIG_SECRET_LABEL } from '@kubegen/runtime/internal/multicluster/providers/kubeconfig-secrets.js';
import { StaticKubeconfigProvider } from '@kubegen/runtime/internal/multicluster/providers/static.js';
import { clusterRequestFromKey, clusterRequestKey, formatClusterRequest, HUB_CLUSTER } from '@kubegen/runtime/internal/multicluster/request.js';
import { HashRing } from '@kubegen/runtime/internal/sharding/ring.js';
import { newFakeTransport, type FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import type { RequestSink } from '@kubegen/runtime/internal/handler/handler.js';
import { MultiClusterController } from '@kubegen/runtime/internal/multicluster/controller.js';
import type { Source } from '@kubegen/runtime/internal/source/source.js';
import { duringEvent } from '@kubegen/runtime/internal/tracing/event-links.js';
import { setDeliveringOrigin } from '@kubegen/runtime/internal/tracing/event-origin.js';
import { disableTracing, enableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';
import { until } from '../support/wait.js';

const cm = builtinResources.configMaps;
const secrets = builtinResources.secrets;

const configMap = (name: string, data: Record<string, string> = {}, namespace = 'ns'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data }) as KubeObject;

function kubeconfig(server: string, token = 't'): string {
  return [
    'apiVersion: v1', 'kind: Config', 'current-context: c',
    'clusters: [{name: c, cluster: {server: "' + server + '"}}]',
    'users: [{name: u, user: {token: "' + token + '"}}]',
    'contexts: [{name: c, context: {cluster: c, user: u}}]', '',
  ].join('\n');
}

function kubeconfigSecret(name: string, text: string | undefined): Secret {
  return {
    apiVersion: 'v1', kind: 'Secret',
    metadata: { name, namespace: 'fleet', labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
    data: text === undefined ? {} : { kubeconfig: Buffer.from(text).toString('base64') },
  } as Secret;
}

/** A `ClusterAware` that records engagements and holds each until its signal aborts. */
class RecordingAware implements ClusterAware {
  readonly events: string[] = [];
  readonly live = new Map<string, Cluster>();
  async engage(name: string, cluster: Cluster, signal: AbortSignal): Promise<void> {
    this.events.push(`engage ${name}`);
    this.live.set(name, cluster);
    await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    if (this.live.get(name) === cluster) this.live.delete(name);
    this.events.push(`disengage ${name}`);
  }
}

describe('cluster requests', () => {
  it('encode every cluster name unambiguously and decode to the same request', () => {
    const reqs: ClusterRequest[] = [
      { cluster: HUB_CLUSTER, namespace: 'ns', name: 'a' },
      { cluster: 'member-1', namespace: '', name: 'cluster-scoped' },
      { cluster: 'a/b', namespace: 'ns', name: 'x' },
      { cluster: 'a', namespace: 'b/ns', name: 'x' } as ClusterRequest,
      { cluster: '100%/é', namespace: 'ns', name: 'x' },
    ];
    const keys = reqs.map(clusterRequestKey);
    assert.equal(new Set(keys).size, reqs.length, 'distinct requests, distinct keys');
    for (const r of reqs.slice(0, 3).concat(reqs.slice(4))) assert.deepEqual(clusterRequestFromKey(clusterRequestKey(r)), r);
    assert.equal(clusterRequestKey({ cluster: 'a/b', namespace: 'ns', name: 'x' }), 'a%2Fb/ns/x');
    assert.throws(() => clusterRequestFromKey('ns/name'), /not a cluster request key.*"ns\/name"/);
    assert.equal(formatClusterRequest({ cluster: 'm1', namespace: 'ns', name: 'a' }), 'cluster://m1/ns/a');
    assert.equal(formatClusterRequest({ cluster: '', namespace: '', name: 'a' }), 'cluster:///a');
  });
});

describe('KubeconfigSecretProvider', () => {
  it('engages on a Secret added, re-engages when its kubeconfig changes, keeps it on a bad one, disengages on delete', async () => {
    const hub = newFakeTransport([secrets]);
    const made: { cluster: string; config: RestConfig }[] = [];
    const provider = new KubeconfigSecretProvider({
      transport: hub, namespace: 'fleet', logger: nullLogger,
      newTransport: (config, cluster) => {
        made.push({ cluster, config });
        return newFakeTransport([cm]);
      },
    });
    const aware = new RecordingAware();
    const stop = new AbortController();
    const run = provider.start(aware, stop.signal);
    const client = new KubeClientset(hub).coreV1.secrets('fleet');
    await client.create(kubeconfigSecret('m1', kubeconfig('https://m1.example:6443')));
    await until(() => aware.live.has('m1'), 'm1 engaged', 5000);
    assert.equal(made[0]!.config.server, 'https://m1.example:6443');
    assert.equal(provider.get('m1'), aware.live.get('m1'));
    assert.deepEqual(provider.list(), ['m1']);
    const first = aware.live.get('m1');

    // A change of another field (a label) with the same kubeconfig: nothing happens.
    const current = await client.get('m1');
    await client.update({ ...current, metadata: { ...current.metadata, annotations: { touched: 'yes' } } });
    // A new kubeconfig: the old cluster is disengaged, a new one engaged under the same name.
    const again = await client.get('m1');
    await client.update({ ...again, data: { kubeconfig: Buffer.from(kubeconfig('https://m1-new.example:6443')).toString('base64') } });
    await until(() => aware.live.get('m1') !== undefined && aware.live.get('m1') !== first, 'm1 engaged anew', 5000);
    assert.deepEqual(aware.events, ['engage m1', 'disengage m1', 'engage m1']);
    assert.equal(made.at(-1)!.config.server, 'https://m1-new.example:6443');

    // Broken: logged, the earlier engagement stays; a Secret without the key engages nothing.
    const third = await client.get('m1');
    await client.update({ ...third, data: { kubeconfig: Buffer.from('clusters: [').toString('base64') } });
    await client.create(kubeconfigSecret('empty', undefined));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(aware.events, ['engage m1', 'disengage m1', 'engage m1']);

    await client.delete('m1');
    await until(() => !aware.live.has('m1'), 'm1 disengaged', 5000);
    assert.throws(() => provider.get('m1'), ClusterNotEngagedError);
    stop.abort();
    await run;
  });

  it('on stop disengages every cluster and resolves', async () => {
    const hub = newFakeTransport([secrets], kubeconfigSecret('a', kubeconfig('https://a:1')), kubeconfigSecret('b', kubeconfig('https://b:1')));
    const provider = new KubeconfigSecretProvider({ transport: hub, namespace: 'fleet', logger: nullLogger, newTransport: () => newFakeTransport([cm]) });
    const aware = new RecordingAware();
    const stop = new AbortController();
    const run = provider.start(aware, stop.signal);
    await until(() => aware.live.size === 2, 'both engaged', 5000);
    stop.abort();
    await run;
    assert.equal(aware.live.size, 0);
    assert.deepEqual(provider.list(), []);
  });

  it('does not engage a kubeconfig whose user is an exec plugin (it would run a command the Secret names), and says so', async () => {
    const execKubeconfig = [
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://x:1"}}]',
      'users: [{name: sneaky, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/rm, args: [-rf, /], interactiveMode: Never}}}]',
      'contexts: [{name: c, context: {cluster: c, user: sneaky}}]',
    ].join('\n');
    const hub = newFakeTransport([secrets], kubeconfigSecret('x', execKubeconfig), kubeconfigSecret('ok', kubeconfig('https://ok:1')));
    const errors: string[] = [];
    const logger: Logger = { ...nullLogger, error: (_msg, fields) => void errors.push(String(fields?.['error'])), child: () => logger };
    const provider = new KubeconfigSecretProvider({ transport: hub, namespace: 'fleet', logger, newTransport: () => newFakeTransport([cm]) });
    const aware = new RecordingAware();
    const stop = new AbortController();
    const run = provider.start(aware, stop.signal);
    await until(() => aware.live.has('ok') && errors.length === 1, 'ok engaged, x refused', 5000);
    assert.deepEqual(provider.list(), ['ok']);
    assert.equal(errors[0], 'Secret fleet/x key "kubeconfig": kubeconfig user "sneaky": exec plugin "/bin/rm": exec credential plugins are not run for kubeconfigs from Secrets');
    stop.abort();
    await run;
  });
});

describe('StaticKubeconfigProvider', () => {
  it('engages every readable kubeconfig/context and names the one it cannot read', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mc-static-'));
    const file = path.join(dir, 'config');
    fs.writeFileSync(file, kubeconfig('https://one:6443'));
    const made: string[] = [];
    const provider = new StaticKubeconfigProvider({
      clusters: [{ name: 'one', kubeconfig: file }, { name: 'two', kubeconfig: file, context: 'c' }, { name: 'bad', kubeconfig: file, context: 'missing' }],
      logger: nullLogger,
      newTransport: (config, name) => {
        made.push(`${name}=${config.server}`);
        return newFakeTransport([cm]);
      },
    });
    const aware = new RecordingAware();
    const stop = new AbortController();
    const run = provider.start(aware, stop.signal);
    await until(() => aware.live.size === 2, 'two engaged', 5000);
    assert.deepEqual(made.sort(), ['one=https://one:6443', 'two=https://one:6443']);
    assert.deepEqual(provider.list(), ['one', 'two']);
    stop.abort();
    await run;
    assert.deepEqual(provider.list(), []);

    const none = new StaticKubeconfigProvider({ clusters: [{ name: 'x', kubeconfig: path.join(dir, 'nope') }], logger: nullLogger });
    await assert.rejects(none.start(new RecordingAware(), new AbortController().signal), /no cluster could be engaged:\n {2}cluster "x" \(kubeconfig .*nope\)/);
    assert.throws(() => new StaticKubeconfigProvider({ clusters: [{ name: 'a', kubeconfig: file }, { name: 'a', kubeconfig: file }] }), /"a" is listed twice/);
  });

  it('engages a kubeconfig file whose user is an exec plugin (the plugin runs with the first request)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mc-static-exec-'));
    const file = path.join(dir, 'config');
    fs.writeFileSync(
      file,
      ['current-context: c', 'clusters: [{name: c, cluster: {server: "https://eks:443"}}]', 'users: [{name: e, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}}]', 'contexts: [{name: c, context: {cluster: c, user: e}}]'].join('\n'),
    );
    const made: RestConfig[] = [];
    const provider = new StaticKubeconfigProvider({ clusters: [{ name: 'eks', kubeconfig: file }], logger: nullLogger, newTransport: (config) => (made.push(config), newFakeTransport([cm])) });
    const aware = new RecordingAware();
    const stop = new AbortController();
    const run = provider.start(aware, stop.signal);
    await until(() => aware.live.has('eks'), 'eks engaged', 5000);
    assert.deepEqual(made[0]!.exec, { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'aws', interactiveMode: 'IfAvailable', user: 'e' });
    stop.abort();
    await run;
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

/** A hub and members on fake transports, a fan-out controller writing the hub ConfigMap's data to each member. */
function fleet(opts: { members: string[]; reconcile?: (req: ClusterRequest, signal: AbortSignal) => Promise<void> }) {
  const registry = new Registry();
  const hubTransport = newFakeTransport([cm], configMap('desired', { k: 'v' }));
  const mgr = new MultiClusterManager({ transport: hubTransport, metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0', logger: nullLogger, registry });
  const members = new Map<string, FakeTransport>(opts.members.map((m) => [m, newFakeTransport([cm])]));
  const seen: string[] = [];
  newMultiClusterControllerManagedBy(mgr)
    .named('fleet')
    .for(cm, { clusters: 'hub', fanOut: true })
    .watches(cm, enqueueForObject(), { clusters: 'members' })
    .complete(async (req, ctx) => {
      seen.push(`${req.cluster}:${req.name}`);
      if (opts.reconcile) await opts.reconcile(req, ctx.signal);
      assert.equal(ctx.cluster, mgr.getCluster(req.cluster));
      const desired = mgr.hub.getClient().resource(cm, req.namespace);
      const hubObj = (await desired.get(req.name)) as KubeObject & { data?: Record<string, string> };
      const target = ctx.cluster.getClient().resource(cm, req.namespace);
      try {
        const existing = await target.get(req.name);
        await target.update({ ...existing, data: hubObj.data } as KubeObject);
      } catch {
        await target.create(configMap(req.name, hubObj.data ?? {}, req.namespace));
      }
    });
  const engage = (name: string): AbortController => {
    const stop = new AbortController();
    void mgr.engage(name, new Cluster({ name, transport: members.get(name)!, logger: nullLogger }), stop.signal);
    return stop;
  };
  const memberData = async (name: string): Promise<unknown> => {
    try {
      return ((await new KubeClientset(members.get(name)!).coreV1.configMaps('ns').get('desired')) as { data?: unknown }).data;
    } catch {
      return undefined;
    }
  };
  return { mgr, registry, hubTransport, members, seen, engage, memberData };
}

describe('a multi-cluster controller', () => {
  it('fans a hub object out to every member, one engaged later included, and reports member events in their cluster', async () => {
    const f = fleet({ members: ['m1', 'm2'] });
    const stop = new AbortController();
    const run = f.mgr.start(stop.signal);
    f.engage('m1');
    await until(async () => JSON.stringify(await f.memberData('m1')) === '{"k":"v"}', 'm1 converged', 5000);
    f.engage('m2');
    await until(async () => JSON.stringify(await f.memberData('m2')) === '{"k":"v"}', 'm2 (engaged later) converged', 5000);
    assert.ok(!f.seen.some((s) => s.startsWith(':')), 'the hub lane of a fan-out kind reconciles nothing');
    // A member-side change is seen in that member's lane and undone.
    const m2 = new KubeClientset(f.members.get('m2')!).coreV1.configMaps('ns');
    const drifted = await m2.get('desired');
    await m2.update({ ...drifted, data: { k: 'drift' } });
    await until(async () => JSON.stringify(await f.memberData('m2')) === '{"k":"v"}', 'm2 drift undone', 5000);
    const metrics = await f.registry.metrics();
    assert.match(metrics, /kubegen_multicluster_reconcile_total\{controller="fleet",cluster="m2",result="success"\} [1-9]/);
    assert.match(metrics, /kubegen_multicluster_cluster_engaged\{cluster="m1"\} 1/);
    assert.deepEqual(f.mgr.clusterNames(), ['m1', 'm2']);
    stop.abort();
    await run;
  });

  it('keeps reconciling the other members while one cannot list and one is slow; status and metrics name the parked one', async () => {
    let slowRelease!: () => void;
    const slowGate = new Promise<void>((r) => (slowRelease = r));
    const f = fleet({
      members: ['ok', 'forbidden', 'slow'],
      reconcile: async (req, signal) => {
        if (req.cluster === 'slow') await Promise.race([slowGate, new Promise((r) => signal.addEventListener('abort', r))]);
      },
    });
    f.members.get('forbidden')!.prependReactor('list', 'configmaps', () => ({
      handled: true,
      error: new ApiError(newStatus(403, 'Forbidden', 'configmaps is forbidden: User "x" cannot list resource "configmaps"', { kind: 'configmaps' })),
    }));
    const stop = new AbortController();
    const run = f.mgr.start(stop.signal);
    for (const m of ['ok', 'forbidden', 'slow']) f.engage(m);
    await until(async () => JSON.stringify(await f.memberData('ok')) === '{"k":"v"}', 'ok converged', 5000);
    // The hub keeps changing; the healthy member follows every change while the slow one hangs.
    const hub = new KubeClientset(f.hubTransport).coreV1.configMaps('ns');
    for (let i = 0; i < 3; i++) {
      const d = await hub.get('desired');
      await hub.update({ ...d, data: { k: `v${i}` } });
      await until(async () => JSON.stringify(await f.memberData('ok')) === `{"k":"v${i}"}`, `ok follows change ${i}`, 5000);
    }
    assert.equal(await f.memberData('slow'), undefined, 'the slow member is still in its first reconcile');
    await until(() => f.mgr.clusterStatus().find((s) => s.cluster === 'forbidden')?.controllers[0]?.status.synced === false, 'status', 5000);
    const status = f.mgr.clusterStatus().find((s) => s.cluster === 'forbidden')!.controllers[0]!.status;
    assert.equal(status.healthy, false);
    assert.match(status.reason ?? '', /cluster:\/\/forbidden configmaps.*forbidden/);
    await until(async () => /kubegen_multicluster_cluster_synced\{controller="fleet",cluster="forbidden"\} 0/.test(await f.registry.metrics()), 'parked gauge', 5000);
    await until(async () => /kubegen_multicluster_cluster_synced\{controller="fleet",cluster="ok"\} 1/.test(await f.registry.metrics()), 'healthy gauge', 5000);
    // Readiness: a parked member does not make the replica unready; /readyz/clusters says which is parked and why.
    const probes = `http://${f.mgr.local.healthProbeAddress}`;
    assert.equal((await fetch(`${probes}/readyz`)).status, 200);
    const detail = await fetch(`${probes}/readyz/clusters`);
    const body = await detail.text();
    assert.equal(detail.status, 200);
    assert.match(body, /^ok\n/);
    assert.match(body, /\nforbidden: fleet parked \(cluster:\/\/forbidden configmaps.*forbidden/);
    assert.match(body, /\nok: fleet ok\n/);
    slowRelease();
    await until(async () => JSON.stringify(await f.memberData('slow')) !== undefined && (await f.memberData('slow')) !== undefined, 'slow converges once released', 5000);
    stop.abort();
    await run;
  });

  it('drains a member disengaged while its reconcile is in flight: the signal aborts, the lane and its series go', async () => {
    let inFlight = false;
    let sawAbort = false;
    const f = fleet({
      members: ['m1', 'gone'],
      reconcile: async (req, signal) => {
        if (req.cluster !== 'gone') return;
        inFlight = true;
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
        sawAbort = true;
        throw signal.reason;
      },
    });
    const stop = new AbortController();
    const run = f.mgr.start(stop.signal);
    f.engage('m1');
    const gone = f.engage('gone');
    await until(() => inFlight, 'gone reconciling', 5000);
    gone.abort();
    await until(() => !f.mgr.clusterNames().includes('gone'), 'gone disengaged', 5000);
    assert.ok(sawAbort, 'the in-flight reconcile saw its signal abort');
    assert.throws(() => f.mgr.getCluster('gone'), /cluster "gone" is not engaged/);
    const metrics = await f.registry.metrics();
    assert.doesNotMatch(metrics, /cluster="gone"/);
    await until(async () => JSON.stringify(await f.memberData('m1')) === '{"k":"v"}', 'm1 unaffected', 5000);
    stop.abort();
    await run;
  });

  it('routes a member event to its owner in the hub', async () => {
    const registry = new Registry();
    const hubTransport = newFakeTransport([cm], configMap('owner'));
    const mgr = new MultiClusterManager({ transport: hubTransport, metricsBindAddress: '0', logger: nullLogger, registry });
    const seen: string[] = [];
    newMultiClusterControllerManagedBy(mgr)
      .for(cm, { clusters: 'hub' })
      .watches(cm, enqueueInHub(), { clusters: 'members' })
      .named('report')
      .complete((req) => void seen.push(`${req.cluster === HUB_CLUSTER ? 'hub' : req.cluster}:${req.name}`));
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    const member = newFakeTransport([cm], configMap('report-me'));
    void mgr.engage('m1', new Cluster({ name: 'm1', transport: member, logger: nullLogger }), new AbortController().signal);
    await until(() => seen.includes('hub:owner') && seen.includes('hub:report-me'), 'hub requests from hub and member events', 5000);
    assert.ok(!seen.some((s) => s.startsWith('m1:')));
    await assert.rejects(mgr.engage('', new Cluster({ transport: member, logger: nullLogger }), new AbortController().signal), /"" is the hub/);
    stop.abort();
    await run;
  });
});

describe('a multi-cluster controller, traced', () => {
  const { exporter, provider } = inMemoryTracing();

  it("names the lane's cluster and the for kind on each reconcile span, and links the watch events that caused it", async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    const f = fleet({ members: ['m1'] });
    const stop = new AbortController();
    const run = f.mgr.start(stop.signal);
    f.engage('m1');
    await until(async () => JSON.stringify(await f.memberData('m1')) === '{"k":"v"}', 'm1 converged', 5000);
    const m1 = new KubeClientset(f.members.get('m1')!).coreV1.configMaps('ns');
    const drifted = await m1.update({ ...(await m1.get('desired')), data: { k: 'drift' } });
    await until(async () => JSON.stringify(await f.memberData('m1')) === '{"k":"v"}', 'm1 drift undone', 5000);
    stop.abort();
    await run;
    disableTracing();
    const reconciles = exporter.getFinishedSpans().filter((s) => s.name === 'reconcile fleet');
    assert.ok(reconciles.length >= 2, `${reconciles.length} reconcile spans`);
    for (const s of reconciles) {
      assert.equal(s.attributes['kubegen.cluster'], 'm1', 'only the member lane reconciles (fan-out)');
      assert.equal(s.attributes['k8s.resource.kind'], 'ConfigMap');
      assert.equal(s.attributes['k8s.resource.group'], '');
      assert.equal(s.attributes['k8s.object.name'], 'desired');
    }
    const events = reconciles.flatMap((s) => s.links.map((l) => `${l.attributes?.['k8s.event.type']} ${l.attributes?.['k8s.resource_version']}`));
    assert.ok(events.some((e) => e.startsWith('create ')), `the hub object's fan-out is linked: ${events.join(', ')}`);
    assert.ok(events.includes(`update ${drifted.metadata!.resourceVersion}`), `the member's drift is linked: ${events.join(', ')}`);
  });

  it('links an event that came while the lane was parked to the reconcile once its cluster is back', async () => {
    await enableTracing({ tracerProvider: provider });
    exporter.reset();
    // m1's one source: synced at once, its informer's error set by the test; what it is handed is the lane's sink.
    let sink: RequestSink | undefined;
    let failing: { error: unknown } | undefined;
    const source: Source & { informers(): { name: string; lastError(): { error: unknown } | undefined }[] } = {
      description: 'stub',
      start: (s: RequestSink) => void (sink = s),
      hasSynced: () => true,
      whenSynced: async () => true,
      syncError: () => undefined,
      informers: () => [{ name: 'stub', lastError: () => failing }],
    };
    const reconciled: string[] = [];
    const registry = new Registry();
    const mc = new MultiClusterController({
      name: 'parked',
      reconciler: (req) => void reconciled.push(req.name),
      hub: new Cluster({ transport: newFakeTransport([cm]), logger: nullLogger }),
      sourcesFor: (name) => (name === 'm1' ? [source] : []),
      registry,
      logger: nullLogger,
    });
    // m1's /version fails while it is down: the lane stays parked until the test brings it back.
    const m1 = newFakeTransport([cm]);
    let down = false;
    const raw = m1.raw.bind(m1);
    m1.raw = async (...args) => (down ? Promise.reject(new Error('connection refused')) : raw(...args));
    const stop = new AbortController();
    const run = mc.start(stop.signal);
    void mc.engage('m1', new Cluster({ name: 'm1', transport: m1, logger: nullLogger }), stop.signal);
    const m1Synced = async (): Promise<string | undefined> =>
      /kubegen_multicluster_cluster_synced\{controller="parked",cluster="m1"\} (\d)/.exec(await registry.metrics())?.[1];
    await until(async () => (await m1Synced()) === '1', 'm1 healthy', 5000);
    down = true;
    failing = { error: new Error('connection refused') };
    await until(async () => (await m1Synced()) === '0', 'm1 parked', 5000);
    // A watch event while parked: its request waits outside the queue.
    const watchSpan = provider.getTracer('test').startSpan('watch stub');
    setDeliveringOrigin(watchSpan.spanContext());
    duringEvent('update', 'stub', { metadata: { namespace: 'ns', name: 'held', resourceVersion: '42' } }, () => sink!.add({ namespace: 'ns', name: 'held' }));
    setDeliveringOrigin(undefined);
    watchSpan.end();
    assert.equal(mc.parkedRequests(), 1);
    down = false;
    await until(() => reconciled.includes('held'), 'the held request reconciled once m1 is back', 5000);
    stop.abort();
    await run;
    disableTracing();
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'reconcile parked' && s.attributes['k8s.object.name'] === 'held');
    assert.equal(span?.attributes['kubegen.cluster'], 'm1');
    assert.deepEqual(
      span!.links.map((l) => [l.context.spanId, l.attributes?.['k8s.event.type'], l.attributes?.['k8s.resource_version']]),
      [[watchSpan.spanContext().spanId, 'update', '42']],
    );
  });
});

describe('the cluster ring', () => {
  it('places each cluster on exactly one live replica, the same on every replica, and moves only a dead replica\'s clusters', () => {
    const clusters = Array.from({ length: 60 }, (_, i) => `member-${i}`);
    const three = new HashRing(['replica-a', 'replica-b', 'replica-c']);
    const again = new HashRing(['replica-c', 'replica-a', 'replica-b']);
    const owners = new Map(clusters.map((c) => [c, clusterOwner(three, c)!]));
    for (const c of clusters) assert.equal(clusterOwner(again, c), owners.get(c), 'independent of the order peers are seen');
    const counts = new Map<string, number>();
    for (const o of owners.values()) counts.set(o, (counts.get(o) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), ['replica-a', 'replica-b', 'replica-c'], 'every replica gets clusters');
    const two = new HashRing(['replica-a', 'replica-c']);
    for (const c of clusters) {
      if (owners.get(c) !== 'replica-b') assert.equal(clusterOwner(two, c), owners.get(c), `${c} stays where it was`);
      else assert.notEqual(clusterOwner(two, c), 'replica-b');
    }
    assert.equal(clusterOwner(new HashRing([]), 'x'), undefined);
    assert.equal(clusterFenceLeaseName('clusters', 'member-1'), 'clusters-cluster-member-1');
    assert.match(clusterFenceLeaseName('clusters', 'Team/A'), /^clusters-cluster-team-a-[0-9a-f]{8}$/);
  });
});
