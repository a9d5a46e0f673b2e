/**
 * `Envtest`: a real etcd + kube-apiserver for integration tests, as controller-runtime's `envtest.Environment`.
 *
 * `Envtest.start()` creates a temp dir, starts etcd and an apiserver on free loopback ports (each in its own process
 * group, killed if this process exits or dies), waits for `/readyz`, writes an admin kubeconfig, and installs CRDs.
 * Three profiles (see `envtest-profiles.ts`): `full` runs kube-apiserver 1.20 (admin by bearer token; a
 * service-account key pair is generated), `crd-only` runs the CRD apiserver of Kubernetes 1.36 (admin by a client
 * certificate in `system:masters`, made with `@peculiar/x509`), and `cluster` runs `full` plus a controller-manager,
 * a scheduler and hollow nodes (`envtest-cluster.ts`), started after the CRDs are installed and ready when the nodes
 * are. `requireCapabilities(...)` fails clearly when a test needs what its profile cannot serve. Only `cluster` has a
 * controller-manager; `crd-only` runs kubegen's own garbage collector (`testing/gc`) unless told not to; on `full`
 * nothing is garbage collected, and namespaces finish deleting on `cluster` only.
 * `installProjectRbac(dir)` (`full` only) binds a project's config/rbac to its ServiceAccount and returns a kubeconfig
 * for it, so that a manager under test runs with the permissions it has when deployed.
 *
 * Each binary is given only the flags its version accepts (`envtest-flags.ts`; the version is read from the binary,
 * `envtest-versions.ts`), so newer binaries than the setup scripts build start too.
 *
 * Fault injection for informer tests: `stopApiServer()`/`startApiServer()` restart the apiserver on the same port
 * with the same data; `compactEtcd()` compacts etcd to its current revision. `stop()` kills both and removes the dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpTransport, type TransportOptions } from '../../client/http-transport.js';
import { KubeConfig } from '../../client/kubeconfig-model.js';
import type { RestConfig } from '../../client/rest-config.js';
import { nullLogger } from '../../log.js';
import { envAttachOutput, envStartTimeoutMs, envStopTimeoutMs, findAssets, mergeFlags, type EnvtestAssets } from './envtest-assets.js';
import { installCrds, parseCrds, readCrdPaths, type CrdObject } from './envtest-crds.js';
import { freePorts } from './envtest-ports.js';
import { ClusterProcesses, DEFAULT_CLUSTER_NODES, hollowNodeNames, type ClusterContext, type ClusterOptions, type EnvtestProcessInfo } from './envtest-cluster.js';
import { writeComponentKubeconfigs } from './envtest-cluster-pki.js';
import { CONTROL_PLANES, type AdminCredentials, type ControlPlaneProfile } from './envtest-profile-setup.js';
import { profileServes, requireCapabilities, type EnvtestCapability, type EnvtestProfile } from './envtest-profiles.js';
import { EtcdProcess } from './envtest-etcd.js';
import { ManagedProcess, onAbnormalExit, waitUntilReady } from './envtest-process.js';
import { versionedFlags } from './envtest-flags.js';
import { binaryVersion } from './envtest-versions.js';
import { clusterOf, runAsServiceAccount, type ServiceAccountIdentity } from './envtest-rbac.js';
import { readProjectRbac, type ProjectRbacOptions } from './project-rbac.js';
import { GarbageCollector, type GarbageCollectorOptions } from '../gc/garbage-collector.js';

/** Settings of {@link Envtest.start}: binaries, CRDs to install, timeouts and extra flags; all optional. */
export interface EnvtestOptions {
  /**
   * Which control plane to run (default `full`, kube-apiserver 1.20); `crd-only` runs the CRD apiserver 1.36,
   * `cluster` adds a controller-manager, a scheduler and hollow nodes to `full`.
   */
  profile?: EnvtestProfile;
  /** The `cluster` profile's settings (nodes, controllers, extra flags); refused with another profile. */
  cluster?: ClusterOptions;
  /**
   * The `crd-only` profile's garbage collector (`testing/gc`, kubegen's own, as kube-controller-manager's): on by
   * default there, started once the apiserver is up and the CRDs installed; `false` turns it off (the profile then
   * lacks `garbage-collection`), an object sets its options. Refused with another profile.
   */
  garbageCollector?: boolean | GarbageCollectorOptions;
  /**
   * Folder with `etcd` and the profile's apiserver (default `$KUBEBUILDER_ASSETS` for `full`,
   * `$KUBEGEN_ENVTEST_1_36_ASSETS` for `crd-only`; see `findAssets`).
   */
  assetsDir?: string;
  /** CRD files or folders to install once the apiserver is ready. */
  crdPaths?: string[];
  /** CRD objects to install (apiextensions.k8s.io/v1). */
  crds?: object[];
  /** Fail when a `crdPaths` entry does not exist (default true). */
  errorIfCrdPathMissing?: boolean;
  /** Default 20 s or `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT`. */
  startTimeoutMs?: number;
  /** Default 20 s or `KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT`. */
  stopTimeoutMs?: number;
  /** Extra/overriding apiserver flags (`--name=value`). */
  apiserverArgs?: string[];
  /** Extra/overriding etcd flags. */
  etcdArgs?: string[];
  /** Copy the control plane's output to stderr (default `KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true`). */
  attachOutput?: boolean;
  /** The apiserver's port on 127.0.0.1 (default: a free port). */
  apiserverPort?: number;
  /** etcd's client port on 127.0.0.1 (default: a free port; its peer port is always a free one). */
  etcdPort?: number;
}


/**
 * A running etcd + apiserver for integration tests (controller-runtime's `envtest.Environment`); see the
 * module comment. Create it with `Envtest.start()`; always `stop()` it. `kubeConfig` (the kubeconfig at
 * `kubeconfigPath`) and `restConfig` connect as `admin` (`system:masters`).
 */
export class Envtest {
  /** The control plane this runs (`full`, `crd-only` or `cluster`). */
  readonly profile: EnvtestProfile;
  /** What its profile starts and polls (see `CONTROL_PLANES`). */
  private readonly controlPlane: ControlPlaneProfile;
  readonly dir: string;
  readonly apiserverUrl: string;
  readonly etcdUrl: string;
  readonly kubeconfigPath: string;
  /** The admin kubeconfig, as read from `kubeconfigPath`. */
  readonly kubeConfig: KubeConfig;
  /** Its context resolved: what `transport()` connects with. */
  readonly restConfig: RestConfig;
  /** The admin's credentials (user `admin`, group `system:masters`): a bearer token, or a client certificate. */
  private readonly credentials: AdminCredentials;
  /** The CA that signed the apiserver's serving certificate (the `cluster` profile); else TLS is not verified. */
  private readonly caFile: string | undefined;
  private cluster: ClusterProcesses | undefined;
  private gc: { collector: GarbageCollector; transport: HttpTransport } | undefined;
  private readonly assets: EnvtestAssets;
  private readonly opts: EnvtestOptions;
  private readonly apiserverArgs: string[];
  /** etcd's flags besides the ports and data dir: the versioned ones, then `opts.etcdArgs`. */
  private readonly etcdArgs: string[];
  private readonly admin: HttpTransport;
  private etcd: EtcdProcess | undefined;
  private apiserver: ManagedProcess | undefined;
  private stopped = false;
  private readonly unregisterCleanup: () => void;

  private constructor(init: {
    dir: string;
    assets: EnvtestAssets;
    opts: EnvtestOptions;
    etcdPort: number;
    apiPort: number;
    credentials: AdminCredentials;
    apiserverArgs: string[];
    etcdArgs: string[];
    caFile?: string;
  }) {
    this.profile = init.opts.profile ?? 'full';
    this.controlPlane = CONTROL_PLANES[this.profile];
    this.dir = init.dir;
    this.assets = init.assets;
    this.opts = init.opts;
    this.credentials = init.credentials;
    this.caFile = init.caFile;
    this.etcdUrl = `http://127.0.0.1:${init.etcdPort}`;
    this.apiserverUrl = `https://127.0.0.1:${init.apiPort}`;
    this.kubeconfigPath = path.join(init.dir, 'kubeconfig');
    this.apiserverArgs = init.apiserverArgs;
    this.etcdArgs = init.etcdArgs;
    this.kubeConfig = this.writeKubeconfig();
    this.restConfig = this.kubeConfig.restConfig();
    // Quiet: polling /readyz of an apiserver that is still starting times out (2 s) by design, and each timeout would
    // otherwise log "a request to the apiserver stalled" into every test run.
    this.admin = new HttpTransport(this.restConfig, { userAgent: 'kubegen-envtest', logger: nullLogger });
    const dir = this.dir;
    this.unregisterCleanup = onAbnormalExit(() => fs.rmSync(dir, { recursive: true, force: true }));
  }

  /** Starts a control plane; on failure everything started is torn down and the error names the cause. */
  static async start(opts: EnvtestOptions = {}): Promise<Envtest> {
    const profile = opts.profile ?? 'full';
    const controlPlane = CONTROL_PLANES[profile];
    if (opts.cluster !== undefined && !controlPlane.components) throw new Error(`envtest: the cluster options need the 'cluster' profile, not '${profile}'`);
    if (opts.garbageCollector !== undefined && opts.garbageCollector !== false && !controlPlane.garbageCollector) {
      throw new Error(`envtest: the garbageCollector option needs the 'crd-only' profile, not '${profile}'${controlPlane.components ? ` (it runs kube-controller-manager's)` : ''}`);
    }
    const nodeNames = controlPlane.components ? hollowNodeNames(opts.cluster?.nodes ?? DEFAULT_CLUSTER_NODES) : [];
    const assets = findAssets(opts.assetsDir, profile);
    const crds = [
      ...readCrdPaths(opts.crdPaths ?? [], opts.errorIfCrdPathMissing === false),
      ...(opts.crds ?? []).map((c) => parseCrds(JSON.stringify(c))).flat(),
    ];
    // Each binary is given only the flags its version accepts (envtest-flags.ts).
    const [etcdVersion, apiserverVersion] = await Promise.all([binaryVersion(assets.etcd), binaryVersion(assets.apiserver)]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-envtest-'));
    try {
      const [freeEtcd, peerPort, freeApi] = (await freePorts(3)) as [number, number, number];
      const etcdPort = opts.etcdPort || freeEtcd;
      const apiPort = opts.apiserverPort || freeApi;
      fs.mkdirSync(path.join(dir, 'certs'));
      const common = [
        `--etcd-servers=http://127.0.0.1:${etcdPort}`,
        `--cert-dir=${path.join(dir, 'certs')}`,
        `--secure-port=${apiPort}`,
        '--bind-address=127.0.0.1',
      ];
      const { credentials, args, crds: profileCrds = [], cluster } = await controlPlane.setup(dir, nodeNames);
      const versioned = versionedFlags(controlPlane.apiserver, apiserverVersion);
      const apiserverArgs = mergeFlags(common, args, versioned, opts.apiserverArgs ?? []);
      const etcdArgs = mergeFlags(versionedFlags('etcd', etcdVersion), opts.etcdArgs ?? []);
      const env = new Envtest({ dir, assets, opts, etcdPort, apiPort, credentials, apiserverArgs, etcdArgs, ...(cluster ? { caFile: cluster.pki.caFile } : {}) });
      try {
        await env.startEtcd(etcdPort, peerPort);
        await env.startApiServer();
        // CRDs first: the garbage collector then watches their kinds from its first discovery (it rediscovers every 30 s).
        const all = [...profileCrds.map((c) => parseCrds(JSON.stringify(c))).flat(), ...crds];
        if (all.length > 0) await env.installCrds(all);
        if (cluster) {
          writeComponentKubeconfigs(cluster.pki, env.apiserverUrl);
          const ctx: ClusterContext = {
            dir,
            apiserverUrl: env.apiserverUrl,
            pki: cluster.pki,
            serviceAccountKeyFile: cluster.serviceAccountKeyFile,
            assets: assets.cluster!,
            admin: env.admin,
            attachOutput: opts.attachOutput ?? envAttachOutput(),
          };
          env.cluster = await ClusterProcesses.start(ctx, opts.cluster);
        }
        if (controlPlane.garbageCollector && opts.garbageCollector !== false) await env.startGarbageCollector(opts.garbageCollector === true ? {} : (opts.garbageCollector ?? {}));
        return env;
      } catch (err) {
        await env.stop().catch(() => undefined);
        throw err;
      }
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** The admin bearer token (user `admin`, group `system:masters`); the `full` profile only. */
  get token(): string {
    if (this.credentials.token === undefined) throw new Error(`envtest: the '${this.profile}' profile authenticates with a client certificate, not a token`);
    return this.credentials.token;
  }

  /**
   * The running apiserver's process id (`undefined` while it is stopped), e.g. to read its memory from
   * `/proc/<pid>/status`. It changes when `startApiServer()` restarts it.
   */
  get apiserverPid(): number | undefined {
    return this.apiserver && !this.apiserver.done ? this.apiserver.pid : undefined;
  }

  /**
   * The control plane's running processes with their ids (etcd, the apiserver, and on `cluster` the
   * controller-manager, the scheduler and each hollow node), e.g. to read their memory from `/proc/<pid>/status`.
   */
  processes(): EnvtestProcessInfo[] {
    const own = [
      { name: 'etcd', proc: this.etcd?.process },
      { name: path.basename(this.assets.apiserver), proc: this.apiserver },
    ].flatMap(({ name, proc }) => (proc && !proc.done && proc.pid !== undefined ? [{ name, pid: proc.pid }] : []));
    return [...own, ...(this.cluster?.processes() ?? [])];
  }

  /**
   * Throws a clear error when this profile cannot serve every one of `capabilities` (see `envtest-profiles.ts`), or
   * needs `garbage-collection` from a `crd-only` control plane started with `garbageCollector: false`.
   */
  requireCapabilities(...capabilities: EnvtestCapability[]): void {
    requireCapabilities(this.profile, capabilities);
    if (capabilities.includes('garbage-collection') && this.controlPlane.garbageCollector && !this.gc) {
      throw new Error(`envtest: this '${this.profile}' control plane was started with garbageCollector: false; it cannot serve garbage-collection`);
    }
  }

  /** @deprecated The old name of {@link requireCapabilities} (it read like CommonJS's `require`). */
  require(...capabilities: EnvtestCapability[]): void {
    this.requireCapabilities(...capabilities);
  }

  /** Whether this control plane serves `capability` (its profile does, and on `crd-only` its collector runs). */
  serves(capability: EnvtestCapability): boolean {
    return profileServes(this.profile, capability) && (capability !== 'garbage-collection' || !this.controlPlane.garbageCollector || this.gc !== undefined);
  }

  /** The `crd-only` profile's garbage collector, when it runs (see `EnvtestOptions.garbageCollector`). */
  get garbageCollector(): GarbageCollector | undefined {
    return this.gc?.collector;
  }

  /** A new transport authenticated as the admin user. Callers may `close()` it; `stop()` does not. */
  transport(opts: TransportOptions = {}): HttpTransport {
    return new HttpTransport(this.restConfig, opts);
  }

  /**
   * Installs the RBAC of the project in `projectDir` as `kubectl apply -k config/default` would create it (see
   * `readProjectRbac`: config/rbac with config/default's namespace and namePrefix; the namespace is created) and
   * returns a kubeconfig that authenticates as the project's ServiceAccount, to run the manager under test as
   * deployed. Wrap its transport in `recordForbidden` to name every request its RBAC refuses. Throws naming the file
   * for a layout it cannot read; refused on the `crd-only` profile (no RBAC there: every request is allowed).
   */
  async installProjectRbac(projectDir: string, opts: ProjectRbacOptions & { expirationSeconds?: number } = {}): Promise<ServiceAccountIdentity> {
    this.requireCapabilities('rbac', 'core-kinds');
    const rbac = readProjectRbac(projectDir, opts);
    const kubeconfigPath = path.join(this.dir, `${rbac.serviceAccount.namespace}.${rbac.serviceAccount.name}.kubeconfig`);
    return runAsServiceAccount(this.admin, clusterOf(this.restConfig), rbac, { kubeconfigPath, ...(opts.expirationSeconds !== undefined ? { expirationSeconds: opts.expirationSeconds } : {}) });
  }

  /** Installs CRDs given as objects, or as file/folder paths; resolves once all are Established and served. */
  async installCrds(...sources: (string | object | readonly (string | object)[])[]): Promise<CrdObject[]> {
    const crds: CrdObject[] = [];
    for (const s of sources.flat()) {
      if (typeof s === 'string') crds.push(...readCrdPaths([s]));
      else crds.push(...parseCrds(JSON.stringify(s)));
    }
    return installCrds(this.admin, crds, this.startTimeout());
  }

  /** Starts (or restarts after `stopApiServer()`) the apiserver on the same port and data; waits for `/readyz`. */
  async startApiServer(): Promise<void> {
    if (this.apiserver && !this.apiserver.done) return;
    const proc = new ManagedProcess({
      name: path.basename(this.assets.apiserver),
      command: this.assets.apiserver,
      args: this.apiserverArgs,
      cwd: this.dir,
      attachOutput: this.opts.attachOutput ?? envAttachOutput(),
    });
    this.apiserver = proc;
    await waitUntilReady(
      proc,
      async () => (await this.admin.raw('GET', this.controlPlane.readyPath, { timeoutMs: 2000 })).statusCode === 200,
      this.startTimeout(),
    );
  }

  /**
   * Stops the apiserver (SIGTERM, then SIGKILL after the stop timeout; with `kill`, SIGKILL at once, as a crash),
   * leaving etcd and its data in place.
   */
  async stopApiServer(opts: { kill?: boolean } = {}): Promise<void> {
    await this.apiserver?.stop(opts.kill ? 0 : this.stopTimeout());
  }

  /** Compacts etcd to its current revision; resolves with that revision. */
  async compactEtcd(): Promise<number> {
    if (!this.etcd) throw new Error('envtest: etcd is not running');
    return this.etcd.compact();
  }

  /** Kills the apiserver and etcd and removes the temp dir. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.cluster?.stop(this.stopTimeout());
    await this.gc?.collector.stop();
    this.gc?.transport.close();
    this.admin.close();
    await this.apiserver?.stop(this.stopTimeout());
    await this.etcd?.stop(this.stopTimeout());
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.unregisterCleanup();
  }

  /** Starts the collector on a transport of its own (closed by `stop()`). */
  private async startGarbageCollector(opts: GarbageCollectorOptions): Promise<void> {
    const transport = new HttpTransport(this.restConfig, { userAgent: 'kubegen-envtest-garbage-collector' });
    try {
      this.gc = { collector: await GarbageCollector.start(transport, opts), transport };
    } catch (err) {
      transport.close();
      throw err;
    }
  }

  private async startEtcd(port: number, peerPort: number): Promise<void> {
    this.etcd = new EtcdProcess({
      binary: this.assets.etcd,
      dir: this.dir,
      port,
      peerPort,
      args: this.etcdArgs,
      attachOutput: this.opts.attachOutput ?? envAttachOutput(),
    });
    await this.etcd.ready(this.startTimeout());
  }


  /** Writes the admin kubeconfig to `kubeconfigPath` and reads it back. */
  private writeKubeconfig(): KubeConfig {
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'envtest',
          cluster: this.caFile
            ? { server: this.apiserverUrl, 'certificate-authority-data': fs.readFileSync(this.caFile).toString('base64') }
            : { server: this.apiserverUrl, 'insecure-skip-tls-verify': true },
        },
      ],
      users: [{ name: 'envtest-admin', user: this.credentials.user }],
      contexts: [{ name: 'envtest', context: { cluster: 'envtest', user: 'envtest-admin', namespace: 'default' } }],
      'current-context': 'envtest',
      preferences: {},
    };
    fs.writeFileSync(this.kubeconfigPath, JSON.stringify(config, null, 2), { mode: 0o600 });
    return KubeConfig.fromFiles([this.kubeconfigPath]);
  }

  private startTimeout(): number {
    return this.opts.startTimeoutMs ?? envStartTimeoutMs();
  }

  private stopTimeout(): number {
    return this.opts.stopTimeoutMs ?? envStopTimeoutMs();
  }
}
