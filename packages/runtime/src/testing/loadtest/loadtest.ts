/**
 * `runLoadTest`: the load, stress and fault harness users run against their own controller (`kubegen loadtest` is
 * the CLI over it). Against a control plane (an envtest it starts, or a cluster from a kubeconfig) it:
 *
 * 1. installs the CRDs, makes a namespace, starts a {@link FaultProxy} and the controller command with a kubeconfig
 *    pointing at the proxy (placeholders `{kubeconfig}`, `{namespace}`, `{metricsPort}` in the command; `KUBECONFIG`
 *    and `LOADTEST_NAMESPACE` in its environment);
 * 2. creates `count` objects from the template and waits until the convergence check passes for all of them;
 * 3. for `durationSeconds`, merge-patches random objects at `churnPerSecond` while injecting the faults asked for
 *    (apiserver SIGKILL + restart with etcd compacted while it is down, silent watches, dropped connections, latency);
 * 4. waits for convergence again: the objects still unconverged then are the run's `unreconciled` (want 0);
 * 5. deletes the objects and waits until they are gone, stops the controller (SIGTERM to its process group).
 *
 * Every second it samples unconverged objects, the controller's queue depth (from its `/metrics`, when given), CPU
 * and RSS, and, where Pods run (the envtest `cluster` profile with its hollow nodes, or a real cluster), the Pods
 * Running in the run's namespace: a workload operator's objects become real Pods there. The report (`report.json`), a
 * plot (`plot.svg`), the controller's log and the proxy kubeconfig are written to `outDir`. Faults that need control
 * of the apiserver need the envtest control plane.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HttpTransport } from '../../client/http-transport.js';
import { loadRestConfig } from '../../client/kubeconfig.js';
import { isAlreadyExists, isNotFound } from '../../client/errors.js';
import { ResourceClient } from '../../client/resource-client.js';
import type { KubeObject } from '../../client/types.js';
import { Envtest } from '../envtest/envtest.js';
import { DEFAULT_CLUSTER_NODES } from '../envtest/envtest-cluster.js';
import { installCrds, readCrdPaths } from '../envtest/envtest-crds.js';
import { NAMESPACE_RESOURCE } from '../envtest/envtest-namespace.js';
import { builtinResources } from '../../builtin/resources.js';
import type { EnvtestProfile } from '../envtest/envtest-profiles.js';
import { freePort } from '../envtest/envtest-ports.js';
import { ControllerProcess } from './controller-process.js';
import { FaultProxy } from './fault-proxy.js';
import { checkContext, DEFAULT_CHURN_PATCH, discoverResource, observedGenerationCheck, renderChurnPatch, type ConvergenceCheck, type ObjectTemplate } from './load-objects.js';
import { MetricsReader } from './metrics-reader.js';
import { writeReport, type LoadTestReport, type Sample } from './report.js';
import { scheduleFaults, type FaultOptions } from './faults.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';

/** Settings of {@link runLoadTest}; `template`, `count`, `command` and `outDir` are required. */
export interface LoadTestOptions {
  /**
   * Start an envtest control plane (default when no `kubeconfig`): profile, assets folder, and on the `cluster`
   * profile the number of hollow nodes (default 3).
   */
  envtest?: { profile?: EnvtestProfile; assetsDir?: string; nodes?: number };
  /** Use this cluster instead of an envtest (apiserver faults are not available then). */
  kubeconfig?: string;
  /** CRD files or folders installed before the run. */
  crdPaths?: string[];
  template: ObjectTemplate;
  count: number;
  /** Merge patches per second during the churn window (default 0). */
  churnPerSecond?: number;
  /** The churn patch (JSON merge patch text with placeholders; default: an annotation with `{{seq}}`). */
  churnPatch?: string;
  /** Length of the churn and fault window in seconds (default 0: none). */
  durationSeconds?: number;
  faults?: FaultOptions;
  /** The controller command (argv); see the module comment for placeholders. */
  command: string[];
  cwd?: string;
  /**
   * The controller's `/metrics` URL, which may use `{metricsPort}` too (default with `{metricsPort}` in the command:
   * `http://127.0.0.1:<port>/metrics`). An `https:` URL is scraped without verifying the certificate, with
   * `metricsToken`, else the admin's bearer token when the control plane's credentials are one (envtest `full`).
   */
  metricsUrl?: string;
  /** Bearer token for a secured (HTTPS) `/metrics`. */
  metricsToken?: string;
  /** Default {@link observedGenerationCheck}. */
  check?: ConvergenceCheck;
  outDir: string;
  /** Limit of each wait for convergence and for the deletes (default 300 s). */
  convergeTimeoutSeconds?: number;
  /** Creates and deletes in flight at once (default 16). */
  concurrency?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}


/** Runs a load test (module comment) and resolves with its report, also written to `<outDir>/report.json`. */
export async function runLoadTest(opts: LoadTestOptions): Promise<LoadTestReport> {
  const log = opts.log ?? (() => undefined);
  const faults = opts.faults ?? {};
  const usesEnvtest = opts.kubeconfig === undefined;
  if (!usesEnvtest && (faults.restartApiserverEverySeconds ?? 0) > 0) throw new Error('apiserver restarts need the envtest control plane (--envtest), not --kubeconfig');
  if (!(opts.count >= 0) || !Number.isInteger(opts.count)) throw new Error(`count must be a whole number, got ${opts.count}`);
  const churnText = opts.churnPatch ?? DEFAULT_CHURN_PATCH;
  renderChurnPatch(churnText, { name: 'x', i: 0, seq: 0 }, 'churn patch'); // fail before anything starts
  fs.mkdirSync(opts.outDir, { recursive: true });
  const t0 = Date.now();
  const at = (): number => (Date.now() - t0) / 1000;
  const say = (s: string): void => log(`[${at().toFixed(1).padStart(6)} s] ${s}`);

  let env: Envtest | undefined;
  let proxy: FaultProxy | undefined;
  let controller: ControllerProcess | undefined;
  const admin = { transport: undefined as unknown as HttpTransport };
  try {
    let kubeconfigPath: string;
    if (usesEnvtest) {
      const profile = opts.envtest?.profile ?? 'full';
      if (opts.envtest?.nodes !== undefined && profile !== 'cluster') throw new Error(`hollow nodes need the envtest 'cluster' profile, not '${profile}'`);
      say(`starting envtest (${describeEnvtest(profile, opts.envtest?.nodes)})`);
      env = await Envtest.start({
        profile,
        ...(opts.envtest?.assetsDir ? { assetsDir: opts.envtest.assetsDir } : {}),
        ...(profile === 'cluster' ? { cluster: { ...(opts.envtest?.nodes !== undefined ? { nodes: opts.envtest.nodes } : {}) } } : {}),
        crdPaths: opts.crdPaths ?? [],
        attachOutput: false,
      });
      kubeconfigPath = env.kubeconfigPath;
    } else {
      kubeconfigPath = opts.kubeconfig!;
    }
    const upstream = loadRestConfig({ kubeconfig: kubeconfigPath });
    let renewedAt = 0;
    const renewAdmin = (): void => {
      // Many requests fail together while the apiserver is away: one new connection for all of them.
      if (Date.now() - renewedAt < 2000) return;
      renewedAt = Date.now();
      const old = admin.transport;
      admin.transport = new HttpTransport(upstream, { timeoutMs: 30_000, userAgent: 'kubegen-loadtest', http2: false });
      setTimeout(() => old?.close(), 35_000).unref();
    };
    renewAdmin();
    if (!usesEnvtest && (opts.crdPaths?.length ?? 0) > 0) await installCrds(admin.transport, readCrdPaths(opts.crdPaths!), 60_000);
    const resource = await discoverResource(admin.transport, opts.template.apiVersion, opts.template.kind);
    const namespace = resource.namespaced ? await makeNamespace(admin.transport) : '';
    const clientNow = (): ResourceClient<KubeObject> => new ResourceClient<KubeObject>(admin.transport, resource, namespace || undefined);
    // Pods run only where there are nodes: on the cluster profile, or a real cluster.
    const countsPods = namespace !== '' && (env ? env.serves('workloads') : true);
    const podsRunning = async (): Promise<number | null> => {
      if (!countsPods) return null;
      const pods = new ResourceClient<KubeObject>(admin.transport, builtinResources.pods, namespace);
      return pods.list({ fieldSelector: 'status.phase=Running' }).then((l) => l.items.length, () => null);
    };

    proxy = await FaultProxy.start({ upstream, latencyMs: faults.latencyMs ?? 0 });
    const proxyKubeconfig = path.join(opts.outDir, 'kubeconfig');
    proxy.writeKubeconfig(proxyKubeconfig, namespace || 'default');
    const metricsPort = [...opts.command, opts.metricsUrl ?? ''].some((a) => a.includes('{metricsPort}')) ? await freePort() : undefined;
    const metricsUrl = opts.metricsUrl?.replaceAll('{metricsPort}', String(metricsPort)) ?? (metricsPort !== undefined ? `http://127.0.0.1:${metricsPort}/metrics` : undefined);
    const command = opts.command.map((a) => a.replaceAll('{kubeconfig}', proxyKubeconfig).replaceAll('{namespace}', namespace).replaceAll('{metricsPort}', String(metricsPort ?? '')));
    const logFile = path.join(opts.outDir, 'controller.log');
    fs.writeFileSync(logFile, '');
    say(`starting the controller: ${command.join(' ')} (log: ${logFile})`);
    controller = new ControllerProcess(command, logFile, {
      env: { ...process.env, KUBECONFIG: proxyKubeconfig, LOADTEST_NAMESPACE: namespace },
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      onEarlyExit: (exit) => say(`the controller exited (${exit}) before the end of the run: see ${logFile}`),
    });
    const metrics = metricsUrl !== undefined ? new MetricsReader(metricsUrl, opts.metricsToken ?? upstream.token) : undefined;

    const check = opts.check ?? observedGenerationCheck;
    const ctx = checkContext(() => admin.transport, namespace);
    /** The last answer of `unconverged()` and when it was asked. */
    let latest: { at: number; left: string[] | undefined } = { at: 0, left: undefined };
    /** Names not converged now, or undefined when the apiserver could not be asked. */
    const unconverged = async (): Promise<string[] | undefined> => {
      const asked = Date.now();
      let left: string[] | undefined;
      try {
        left = await check((await clientNow().list()).items, ctx);
      } catch {
        renewAdmin(); // the apiserver is away (a restart): next time on a new connection
      }
      latest = { at: asked, left };
      return left;
    };
    const samples: Sample[] = [];
    const events: { t: number; event: string }[] = [];
    let sampling = false;
    const sampler = setInterval(() => {
      if (sampling) return; // the previous sample is still waiting on the apiserver or the controller
      sampling = true;
      void (async () => {
        const t = at();
        const { cpuSeconds, rssMB } = controller!.stats();
        // While a phase waits for convergence it asks twice a second: take its answer rather than list all again.
        const recent = Date.now() - latest.at < 1000;
        const [depth, left, pods] = await Promise.all([metrics?.queueDepth(), recent ? latest.left : unconverged(), podsRunning()]);
        samples.push({ t, unconverged: left === undefined ? null : left.length, queueDepth: depth ?? null, rssMB, cpuSeconds, ...(countsPods ? { podsRunning: pods } : {}) });
      })().finally(() => (sampling = false));
    }, 1000);

    const timeoutMs = (opts.convergeTimeoutSeconds ?? 300) * 1000;
    const waitConverged = async (phase: string): Promise<{ seconds: number; left: string[] }> => {
      const start = Date.now();
      let left: string[] = [];
      for (;;) {
        const now = await unconverged();
        if (now !== undefined) {
          left = now;
          if (now.length === 0) break;
        }
        if (Date.now() - start > timeoutMs || !controller!.running) break;
        await sleep(realClock, 500);
      }
      const seconds = (Date.now() - start) / 1000;
      say(`${phase}: ${left.length === 0 ? 'converged' : `${left.length} not converged`} after ${seconds.toFixed(1)} s`);
      return { seconds, left };
    };

    // 2. create
    const metricsBefore = metrics ? await metrics.waitForFirstScrape(30_000) : undefined;
    say(`creating ${opts.count} ${resource.kind} in ${namespace || '(cluster)'}`);
    let start = Date.now();
    await inParallel(opts.count, opts.concurrency ?? 16, (i) => retrying(() => clientNow().create(opts.template.render(i, namespace)), renewAdmin, true));
    const create = { seconds: (Date.now() - start) / 1000 };
    const converge = await waitConverged('converge');

    // 3. churn + faults
    let patches = 0;
    let patchErrors = 0;
    start = Date.now();
    const windowMs = (opts.durationSeconds ?? 0) * 1000;
    if (windowMs > 0) {
      say(`churn ${opts.churnPerSecond ?? 0}/s and faults for ${opts.durationSeconds} s`);
      const end = start + windowMs;
      const faultRun = scheduleFaults(faults, { env, proxy, end, onEvent: (event) => (events.push({ t: at(), event }), say(event)) });
      const rate = opts.churnPerSecond ?? 0;
      let seq = 0;
      while (Date.now() < end) {
        if (rate <= 0 || opts.count === 0) {
          await sleep(realClock, Math.min(1000, end - Date.now()));
          continue;
        }
        const i = Math.floor(Math.random() * opts.count);
        const name = `${opts.template.baseName}-${i}`;
        const patch = renderChurnPatch(churnText, { name, i, seq: seq++ }, 'churn patch');
        const sent = Date.now();
        clientNow()
          .patch(name, { type: 'merge', patch })
          .then(
            () => void patches++,
            () => void (patchErrors++, renewAdmin()),
          );
        await sleep(realClock, Math.max(0, 1000 / rate - (Date.now() - sent)));
      }
      await faultRun;
    }
    const churn = { seconds: (Date.now() - start) / 1000, patches, patchErrors };
    const reconverge = windowMs > 0 ? await waitConverged('reconverge') : { seconds: 0, left: converge.left };
    const metricsAfter = metrics ? await metrics.scrape() : undefined;

    // 5. delete
    start = Date.now();
    say(`deleting the ${opts.count} objects`);
    await inParallel(opts.count, opts.concurrency ?? 16, (i) => retrying(() => clientNow().delete(`${opts.template.baseName}-${i}`), renewAdmin, false));
    let remaining = opts.count;
    while (Date.now() - start < timeoutMs) {
      const left = await clientNow().list().then((l) => l.items.length, () => undefined);
      if (left !== undefined) remaining = left;
      if (remaining === 0) break;
      await sleep(realClock, 500);
    }
    const del = { seconds: (Date.now() - start) / 1000, left: remaining };
    clearInterval(sampler);
    const controllerRun = await controller.stop();
    say(`controller stopped (exit ${controllerRun.exit})`);

    const report: LoadTestReport = {
      kind: { apiVersion: opts.template.apiVersion, kind: resource.kind, resource: resource.resource },
      controlPlane: usesEnvtest ? `envtest ${describeEnvtest(env!.profile, opts.envtest?.nodes)}` : `kubeconfig ${kubeconfigPath}`,
      namespace,
      objects: opts.count,
      churnPerSecond: opts.churnPerSecond ?? 0,
      durationSeconds: opts.durationSeconds ?? 0,
      faults: { ...faults, events },
      phases: { create, converge: { seconds: converge.seconds, left: converge.left.length }, churn, reconverge: { seconds: reconverge.seconds, left: reconverge.left.length }, delete: del },
      unreconciled: reconverge.left.length,
      unreconciledNames: reconverge.left.slice(0, 20),
      reconcile: metricsAfter ? MetricsReader.reconcileSummary(metricsAfter, metricsBefore ?? []) : null,
      maxQueueDepth: samples.reduce<number | null>((m, s) => (s.queueDepth === null ? m : Math.max(m ?? 0, s.queueDepth)), null),
      maxPodsRunning: samples.reduce<number | null>((m, s) => (s.podsRunning === undefined || s.podsRunning === null ? m : Math.max(m ?? 0, s.podsRunning)), null),
      controller: controllerRun,
      apiRequests: proxy.counts,
      samples,
      totalSeconds: at(),
    };
    writeReport(opts.outDir, report);
    return report;
  } finally {
    if (controller) await controller.stop(2_000);
    await proxy?.close();
    admin.transport?.close();
    await env?.stop();
  }
}

/** `full`, `crd-only`, or `cluster (N hollow nodes)`, for the log and the report. */
function describeEnvtest(profile: EnvtestProfile, nodes: number | undefined): string {
  return profile === 'cluster' ? `cluster, ${nodes ?? DEFAULT_CLUSTER_NODES} hollow nodes` : profile;
}

/** A fresh namespace `loadtest-<random>`; where namespaces are not served (envtest crd-only) just the name. */
async function makeNamespace(transport: HttpTransport): Promise<string> {
  const name = `loadtest-${Math.random().toString(36).slice(2, 8)}`;
  const nsClient = new ResourceClient<KubeObject>(transport, NAMESPACE_RESOURCE);
  await nsClient.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
  return name;
}

/** Runs `fn(0..n-1)` with at most `limit` in flight. */
async function inParallel(n: number, limit: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** `fn` retried up to 10 times, 1 s apart, on a fresh connection (creates: "already exists" counts as done; deletes: "not found"). */
async function retrying(fn: () => Promise<unknown>, renew: () => void, create: boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fn();
      return;
    } catch (err) {
      if (create ? isAlreadyExists(err) : isNotFound(err)) return;
      if (attempt >= 10) throw err;
      renew();
      await sleep(realClock, 1000);
    }
  }
}
