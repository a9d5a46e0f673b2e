/**
 * The cluster `kubegen dev` runs the manager against: a local control plane from the envtest binaries (the default),
 * or an existing cluster (`--kubeconfig`). `sync()` installs what the project's config/ says, and again whenever it
 * changed: the CRDs of config/crd/bases, the RBAC of config/rbac as `kubectl apply -k config/default` creates it
 * (unless the manager runs as the admin), and on the local control plane the webhooks of
 * config/webhook/manifests.yaml and the CRDs' conversion webhooks, pointed at the manager on 127.0.0.1 with a
 * throwaway certificate (an existing cluster cannot reach this machine: the manager runs without webhooks there).
 * `managerKubeconfig()` writes a kubeconfig with a fresh ServiceAccount token for each start of the manager.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HttpTransport } from '@kubegen/runtime';
import type { CrdObject, Envtest, ProjectRbac } from '@kubegen/runtime/testing/envtest';

/** Settings of {@link DevCluster.start}. */
export interface DevClusterOptions {
  root: string;
  /** Use this cluster instead of starting a local control plane. */
  kubeconfig?: string;
  /** The local apiserver's port (default: a free one). */
  apiserverPort?: number;
  /** Run the manager with the admin's credentials instead of its ServiceAccount's (no RBAC installed). */
  asAdmin: boolean;
  /** Where the manager serves webhooks (local control plane only). */
  webhookPort: number;
  /** A folder of this run: the webhook certificate and the manager's kubeconfig. */
  stateDir: string;
  log: (line: string) => void;
}

const hash = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** The control plane or cluster of one `kubegen dev` run; see the module comment. */
export class DevCluster {
  private readonly installed = { crds: '', rbac: '', webhooks: '' };
  private rbac: ProjectRbac | undefined;
  private webhookCa: string | undefined;

  private constructor(
    private readonly opts: DevClusterOptions,
    private readonly admin: HttpTransport,
    /** The admin's kubeconfig: envtest's, or the one given. */
    readonly adminKubeconfig: string,
    private readonly env: Envtest | undefined,
  ) {}

  /** Starts the local control plane (or connects to `opts.kubeconfig`); nothing is installed yet. */
  static async start(opts: DevClusterOptions): Promise<DevCluster> {
    const { createTransport } = await import('@kubegen/runtime');
    if (opts.kubeconfig !== undefined) {
      return new DevCluster(opts, createTransport({ kubeconfig: opts.kubeconfig }), opts.kubeconfig, undefined);
    }
    const { Envtest } = await import('@kubegen/runtime/testing/envtest');
    const env = await Envtest.start({ ...(opts.apiserverPort ? { apiserverPort: opts.apiserverPort } : {}) });
    return new DevCluster(opts, env.transport(), env.kubeconfigPath, env);
  }

  /** Whether the manager serves its webhooks here (only a local control plane can call this machine). */
  get webhooks(): boolean {
    return this.env !== undefined;
  }

  /** What the apiserver is: for the first lines `kubegen dev` prints. */
  describe(): string {
    return this.env ? `local control plane (kube-apiserver 1.20) at ${this.env.apiserverUrl}` : `the cluster of ${this.adminKubeconfig}`;
  }

  /** The user the manager runs as. */
  get managerUser(): string {
    return this.rbac?.user ?? 'the admin';
  }

  /**
   * Installs what changed in config/ since the last call (everything on the first): CRDs, RBAC, webhooks. Returns
   * whether the manager's identity or webhooks changed (it should then restart). Errors name the file or object.
   */
  async sync(): Promise<boolean> {
    const envtest = await import('@kubegen/runtime/testing/envtest');
    const root = this.opts.root;
    const caCert = this.webhooks ? await this.webhookCertificate() : undefined;
    const endpoint = caCert !== undefined ? { url: `https://127.0.0.1:${this.opts.webhookPort}`, caCert } : undefined;

    const crds = envtest.readCrdPaths([path.join(root, 'config/crd/bases')], true).map((crd) => (endpoint ? pointConversionAt(crd, endpoint) : crd));
    if (hash(crds) !== this.installed.crds && crds.length > 0) {
      await envtest.installCrds(this.admin, crds);
      this.opts.log(`CRDs installed: ${crds.map((c) => c.metadata?.name).join(', ')}`);
      const converted = crds.filter((c) => (c.spec['conversion'] as { strategy?: string } | undefined)?.strategy === 'Webhook').map((c) => c.metadata?.name);
      if (!endpoint && converted.length > 0) {
        this.opts.log(
          `warning: the conversion webhook of ${converted.join(', ')} is installed as config/crd/bases has it (a Service in the cluster): the cluster cannot call this machine, ` +
            'so reading such a kind in another version than the stored one fails unless the webhook is deployed there; without --kubeconfig the local control plane calls the manager',
        );
      }
    }
    this.installed.crds = hash(crds);

    let restart = false;
    if (!this.opts.asAdmin) {
      const rbac = envtest.readProjectRbac(root);
      if (hash(rbac) !== this.installed.rbac) {
        await envtest.installRbac(this.admin, rbac);
        restart = this.rbac !== undefined && this.rbac.user !== rbac.user;
        this.rbac = rbac;
        this.opts.log(`RBAC of config/rbac installed (${rbac.objects.length} objects); the manager runs as ${rbac.user}`);
      }
      this.installed.rbac = hash(rbac);
    }

    const manifests = path.join(root, 'config/webhook/manifests.yaml');
    if (!endpoint && fs.existsSync(manifests) && this.installed.webhooks === '') {
      this.installed.webhooks = 'skipped';
      this.opts.log('warning: the webhooks of config/webhook/manifests.yaml are not installed (the cluster cannot call this machine): writes are neither defaulted nor validated by them');
    }
    if (endpoint && fs.existsSync(manifests)) {
      const text = fs.readFileSync(manifests, 'utf8');
      if (hash(text) !== this.installed.webhooks) {
        await envtest.installWebhooks(this.admin, { ...endpoint, paths: [manifests] });
        this.opts.log(`webhooks of config/webhook/manifests.yaml call the manager at ${endpoint.url}`);
      }
      this.installed.webhooks = hash(text);
    }
    return restart;
  }

  /**
   * A kubeconfig for the manager: the admin's with `--as-admin`, else one with a fresh token of the project's
   * ServiceAccount (a long `kubegen dev` session never runs on an expired one).
   */
  async managerKubeconfig(): Promise<string> {
    if (!this.rbac) return this.adminKubeconfig;
    const envtest = await import('@kubegen/runtime/testing/envtest');
    const token = await envtest.requestServiceAccountToken(this.admin, this.rbac.serviceAccount);
    const file = path.join(this.opts.stateDir, 'manager.kubeconfig');
    envtest.writeTokenKubeconfig(file, envtest.clusterOf(this.admin.config), token, this.rbac.serviceAccount.namespace);
    return file;
  }

  /** The folder of the webhook serving certificate (tls.crt, tls.key), for `--webhook-cert-dir`. */
  get webhookCertDir(): string {
    return path.join(this.opts.stateDir, 'webhook-certs');
  }

  /** Stops the local control plane (an existing cluster keeps what was installed). */
  async stop(): Promise<void> {
    this.admin.close();
    await this.env?.stop();
  }

  private async webhookCertificate(): Promise<string> {
    if (this.webhookCa === undefined) {
      const { generateServingCertificate, writeServingCertificate } = await import('@kubegen/runtime/webhook');
      const certs = await generateServingCertificate({ hosts: ['127.0.0.1'] });
      await writeServingCertificate(this.webhookCertDir, certs);
      this.webhookCa = certs.caCert;
    }
    return this.webhookCa;
  }
}

/** A copy of `crd` whose conversion webhook (if any) calls `endpoint.url` + its service path, trusting `endpoint.caCert`. */
function pointConversionAt(crd: CrdObject, endpoint: { url: string; caCert: string }): CrdObject {
  const conversion = crd.spec['conversion'] as { strategy?: string; webhook?: { clientConfig?: { service?: { path?: string }; url?: string } } } | undefined;
  if (conversion?.strategy !== 'Webhook') return crd;
  const cc = conversion.webhook?.clientConfig ?? {};
  const p = cc.service?.path ?? (cc.url !== undefined ? new URL(cc.url).pathname : '/convert');
  const copy = structuredClone(crd);
  (copy.spec['conversion'] as { webhook: Record<string, unknown> }).webhook = {
    ...conversion.webhook,
    clientConfig: { url: `${endpoint.url}${p}`, caBundle: Buffer.from(endpoint.caCert).toString('base64') },
  };
  return copy;
}
