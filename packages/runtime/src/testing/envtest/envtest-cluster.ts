/**
 * The `cluster` envtest profile's processes beyond etcd and kube-apiserver: kube-controller-manager, kube-scheduler
 * and N Kubemark hollow nodes, each a plain child process (`ManagedProcess`: its own process group, never outliving
 * the test process) from the binaries `hack/setup-envtest.sh` builds, each with its own client certificate and
 * kubeconfig (`envtest-cluster-pki.ts`). Nothing needs root or containers.
 *
 * - kube-controller-manager runs {@link CLUSTER_CONTROLLERS} (or the caller's list) with
 *   `--use-service-account-credentials` (every controller as its own ServiceAccount, its token signed with the
 *   envtest's service-account key, as in a real cluster), no leader election, its secure port on a free loopback port.
 * - kube-scheduler: default scheduling profile, no leader election, a free loopback port.
 * - A hollow node is `kubemark --morph=kubelet`: a real kubelet (registration, Node status and Lease heartbeats, pod
 *   lifecycle, volumes, status) over a fake container runtime, so Pods reach Running without containers. Its files
 *   (root dir, runtime socket) live under `<envtest dir>/nodes/<name>` (`TMPDIR`), its API port is a free one.
 *
 * kube-controller-manager and kube-scheduler get `--port=0` only in the versions that have it (`envtest-flags.ts`).
 *
 * Ready means: both controllers answer `/healthz`, every node is `Ready` with no `not-ready` taint left (the node
 * lifecycle controller lifts it), and the `default` ServiceAccount of namespace `default` has its token (the
 * ServiceAccount admission plugin, on in this profile, refuses Pods until it has). A component that exits while
 * starting fails the start with its last output.
 */
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import type { HttpTransport } from '../../client/http-transport.js';
import type { ClusterAssets } from './envtest-assets.js';
import { mergeFlags } from './envtest-assets.js';
import type { ClusterPki } from './envtest-cluster-pki.js';
import { versionedFlags } from './envtest-flags.js';
import { binaryVersion } from './envtest-versions.js';
import { freePorts } from './envtest-ports.js';
import { ManagedProcess } from './envtest-process.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';

/** The controllers the `cluster` profile's kube-controller-manager runs unless `controllers` says otherwise. */
export const CLUSTER_CONTROLLERS: readonly string[] = [
  'serviceaccount-token',
  'serviceaccount',
  'garbagecollector',
  'namespace',
  'deployment',
  'replicaset',
  'statefulset',
  'persistentvolume-binder',
  'pvc-protection',
  'pv-protection',
  'daemonset',
  'job',
  'cronjob',
  'endpoint',
  'endpointslice',
  'nodelifecycle',
  'podgc',
];

/** How many hollow nodes the `cluster` profile starts unless told otherwise. */
export const DEFAULT_CLUSTER_NODES = 3;

/** Settings of the `cluster` profile (`EnvtestOptions.cluster`); all optional. */
export interface ClusterOptions {
  /** Hollow nodes to start (default 3; 0 runs the controllers without nodes: Pods stay Pending). */
  nodes?: number;
  /** kube-controller-manager's `--controllers` (default {@link CLUSTER_CONTROLLERS}). */
  controllers?: readonly string[];
  /** Extra/overriding kube-controller-manager flags (`--name=value`). */
  controllerManagerArgs?: string[];
  /** Extra/overriding kube-scheduler flags. */
  schedulerArgs?: string[];
  /** Extra/overriding flags of every hollow node (`kubemark --morph=kubelet ...`), e.g. `--node-labels=a=b`. */
  nodeArgs?: string[];
  /** How long to wait for the components and the nodes to be ready (default 90 s). */
  readyTimeoutMs?: number;
}

/** The names of `count` hollow nodes: `hollow-node-0` ... */
export function hollowNodeNames(count: number): string[] {
  if (!Number.isInteger(count) || count < 0) throw new Error(`envtest: cluster.nodes must be a whole number >= 0, got ${count}`);
  return Array.from({ length: count }, (_, i) => `hollow-node-${i}`);
}

/** What {@link ClusterProcesses.start} needs from the envtest that runs it. */
export interface ClusterContext {
  dir: string;
  apiserverUrl: string;
  pki: ClusterPki;
  /** The service-account signing key the apiserver verifies (`--service-account-private-key-file`). */
  serviceAccountKeyFile: string;
  assets: ClusterAssets;
  admin: HttpTransport;
  attachOutput: boolean;
}

/** A process of the envtest control plane and its id, e.g. to read its memory from `/proc/<pid>/status`. */
export interface EnvtestProcessInfo {
  name: string;
  pid: number;
}


/** The running controller-manager, scheduler and hollow nodes of one `cluster` envtest (module comment). */
export class ClusterProcesses {
  private constructor(
    private readonly controllerManager: ManagedProcess,
    private readonly scheduler: ManagedProcess,
    private readonly nodes: ManagedProcess[],
    private readonly healthUrls: { proc: ManagedProcess; url: string }[],
  ) {}

  /** Starts every component and resolves once the cluster is ready; on failure stops what it started and throws. */
  static async start(ctx: ClusterContext, opts: ClusterOptions = {}): Promise<ClusterProcesses> {
    const nodeNames = ctx.pki.nodes.map((n) => n.nodeName);
    const [cmPort, schedPort, ...kubeletPorts] = (await freePorts(2 + nodeNames.length)) as [number, number, ...number[]];
    // Each is given only the flags its version accepts (envtest-flags.ts).
    const [cmVersion, schedVersion] = await Promise.all([binaryVersion(ctx.assets.controllerManager), binaryVersion(ctx.assets.scheduler)]);
    const started: ManagedProcess[] = [];
    const spawn = (name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): ManagedProcess => {
      const proc = new ManagedProcess({ name, command, args, cwd: ctx.dir, attachOutput: ctx.attachOutput, ...(env ? { env } : {}) });
      started.push(proc);
      return proc;
    };
    try {
      const cm = spawn('kube-controller-manager', ctx.assets.controllerManager, controllerManagerArgs(ctx, cmPort, opts, versionedFlags('kube-controller-manager', cmVersion)));
      const sched = spawn('kube-scheduler', ctx.assets.scheduler, schedulerArgs(ctx, schedPort, opts, versionedFlags('kube-scheduler', schedVersion)));
      const nodes = ctx.pki.nodes.map((node, i) => {
        const home = path.join(ctx.dir, 'nodes', node.nodeName);
        fs.mkdirSync(home, { recursive: true });
        const args = mergeFlags(
          ['--morph=kubelet', `--name=${node.nodeName}`, `--kubeconfig=${node.kubeconfigPath}`, `--kubelet-port=${kubeletPorts[i]}`, '--kubelet-read-only-port=0'],
          opts.nodeArgs ?? [],
        );
        // kubemark puts its kubelet root dir, and (patched by setup-envtest.sh) its fake runtime's socket, in TMPDIR.
        return spawn(node.nodeName, ctx.assets.kubemark, args, { ...process.env, TMPDIR: home });
      });
      const cluster = new ClusterProcesses(cm, sched, nodes, [
        { proc: cm, url: `https://127.0.0.1:${cmPort}/healthz` },
        { proc: sched, url: `https://127.0.0.1:${schedPort}/healthz` },
      ]);
      await cluster.waitReady(ctx.admin, nodeNames, opts.readyTimeoutMs ?? 90_000);
      return cluster;
    } catch (err) {
      await Promise.all(started.map((p) => p.stop(2_000)));
      throw err;
    }
  }

  /** The processes with their ids (those still running). */
  processes(): EnvtestProcessInfo[] {
    return [this.controllerManager, this.scheduler, ...this.nodes].filter((p) => !p.done && p.pid !== undefined).map((p) => ({ name: p.name, pid: p.pid! }));
  }

  /** Stops the nodes, then the scheduler and the controller-manager (SIGTERM, SIGKILL after `graceMs`). */
  async stop(graceMs: number): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop(graceMs)));
    await Promise.all([this.scheduler.stop(graceMs), this.controllerManager.stop(graceMs)]);
  }

  private async waitReady(admin: HttpTransport, nodeNames: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let waitingFor = 'the controller-manager and scheduler to answer /healthz';
    for (;;) {
      for (const proc of [this.controllerManager, this.scheduler, ...this.nodes]) {
        if (proc.done) throw new Error(`envtest (cluster): ${proc.name} exited during startup:\n${proc.output()}`);
      }
      try {
        waitingFor = await this.notReady(admin, nodeNames);
        if (waitingFor === '') return;
      } catch (err) {
        waitingFor = `the apiserver (${err instanceof Error ? err.message : String(err)})`;
      }
      if (performance.now() > deadline) {
        const tails = [this.controllerManager, this.scheduler, ...this.nodes.slice(0, 1)].map((p) => `--- ${p.name} ---\n${p.output()}`).join('\n');
        throw new Error(`envtest (cluster): not ready after ${timeoutMs} ms, still waiting for ${waitingFor}:\n${tails}`);
      }
      await sleep(realClock, 250);
    }
  }

  /** What the cluster still waits for, in words; '' when ready. */
  private async notReady(admin: HttpTransport, nodeNames: readonly string[]): Promise<string> {
    for (const { proc, url } of this.healthUrls) {
      if ((await healthz(url)) !== 200) return `${proc.name} to answer ${url}`;
    }
    const res = await admin.raw('GET', '/api/v1/nodes', { timeoutMs: 5000 });
    if (res.statusCode !== 200) return `GET /api/v1/nodes (HTTP ${res.statusCode})`;
    const nodes = (JSON.parse(res.body.toString('utf8')) as { items: NodeLike[] }).items;
    const pending = nodeNames.filter((name) => !isSchedulable(nodes.find((n) => n.metadata.name === name)));
    if (pending.length > 0) return `node${pending.length > 1 ? 's' : ''} ${pending.join(', ')} to be Ready and untainted`;
    const sa = await admin.raw('GET', '/api/v1/namespaces/default/serviceaccounts/default', { timeoutMs: 5000 });
    if (sa.statusCode !== 200 || ((JSON.parse(sa.body.toString('utf8')) as { secrets?: unknown[] }).secrets ?? []).length === 0) {
      return 'the ServiceAccount default/default and its token (serviceaccount and serviceaccount-token controllers)';
    }
    return '';
  }
}

interface NodeLike {
  metadata: { name: string };
  spec?: { taints?: { key: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/** A node that is Ready and no longer carries the `not-ready` taint the kubelet registers it with. */
function isSchedulable(node: NodeLike | undefined): boolean {
  if (!node) return false;
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return ready && !(node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready');
}

/** kube-controller-manager's flags: the profile's, the ones of its version (`versioned`), then the caller's. */
function controllerManagerArgs(ctx: ClusterContext, port: number, opts: ClusterOptions, versioned: readonly string[]): string[] {
  const kubeconfig = ctx.pki.controllerManager.kubeconfigPath;
  return mergeFlags(
    [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      `--controllers=${(opts.controllers ?? CLUSTER_CONTROLLERS).join(',')}`,
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${ctx.serviceAccountKeyFile}`,
      `--root-ca-file=${ctx.pki.caFile}`,
      '--leader-elect=false',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${path.join(ctx.dir, 'kube-controller-manager')}`,
    ],
    versioned,
    opts.controllerManagerArgs ?? [],
  );
}

/** kube-scheduler's flags: the profile's, the ones of its version (`versioned`), then the caller's. */
function schedulerArgs(ctx: ClusterContext, port: number, opts: ClusterOptions, versioned: readonly string[]): string[] {
  const kubeconfig = ctx.pki.scheduler.kubeconfigPath;
  return mergeFlags(
    [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      `--cert-dir=${path.join(ctx.dir, 'kube-scheduler')}`,
    ],
    versioned,
    opts.schedulerArgs ?? [],
  );
}

/** Status of a GET of a component's `/healthz` (self-signed serving certificate; an always-allowed path); 0 on error. */
function healthz(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { agent: false, timeout: 2000, rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
  });
}
