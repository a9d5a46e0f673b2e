/**
 * Finding the cluster to talk to, in controller-runtime's `config.GetConfig()` order:
 *   1. an explicit kubeconfig path (`--kubeconfig`),
 *   2. the `KUBECONFIG` environment variable (a `path.delimiter`-separated list, merged, first file wins),
 *   3. in-cluster service-account credentials (`KUBERNETES_SERVICE_HOST`/`_PORT` plus the mounted token),
 *   4. `~/.kube/config`.
 * `inCluster: true` forces step 3. A `context` selects a kubeconfig context other than the current one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { HttpTransport, type TransportOptions } from './http-transport.js';

/** Where Kubernetes mounts a pod's service-account credentials. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadOptions {
  /** Explicit kubeconfig file (takes precedence over everything else). */
  kubeconfig?: string;
  /** Context to use instead of the file's `current-context`. */
  context?: string;
  /** Use the pod's service account, ignoring kubeconfig files. */
  inCluster?: boolean;
  /** Prefix for the service-account paths (tests mount a fake `/var/run/secrets/...` under a temp dir). */
  inClusterPathPrefix?: string;
}

/** Whether in-cluster credentials are available (service env vars set and the token file present). */
export function inClusterAvailable(pathPrefix = ''): boolean {
  return Boolean(
    process.env['KUBERNETES_SERVICE_HOST'] && process.env['KUBERNETES_SERVICE_PORT'] && fs.existsSync(`${pathPrefix}${SERVICE_ACCOUNT_DIR}/token`),
  );
}

/** Loads a `KubeConfig` as described above. Throws when nothing is found or the context does not exist. */
export function loadKubeConfig(opts: LoadOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  const prefix = opts.inClusterPathPrefix ?? '';
  const envPaths = (process.env['KUBECONFIG'] ?? '').split(path.delimiter).filter((p) => p !== '');
  const homeConfig = path.join(os.homedir(), '.kube', 'config');
  if (opts.inCluster) {
    if (!inClusterAvailable(prefix)) {
      throw new Error('in-cluster config requested but KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT or the service-account token are missing');
    }
    kc.loadFromCluster(prefix);
  } else if (opts.kubeconfig) {
    kc.loadFromFile(opts.kubeconfig);
  } else if (envPaths.length > 0) {
    loadMerged(kc, envPaths);
  } else if (inClusterAvailable(prefix)) {
    kc.loadFromCluster(prefix);
  } else if (fs.existsSync(homeConfig)) {
    kc.loadFromFile(homeConfig);
  } else {
    throw new Error(`no Kubernetes configuration found: pass a kubeconfig, set KUBECONFIG, run in a cluster, or create ${homeConfig}`);
  }
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) throw new Error(`context "${opts.context}" not found in kubeconfig`);
    kc.setCurrentContext(opts.context);
  }
  return kc;
}

/** client-go's merge rule for `KUBECONFIG` lists: the first file to define a name (or current-context) wins. */
function loadMerged(kc: KubeConfig, files: string[]): void {
  const existing = files.filter((f) => fs.existsSync(f));
  if (existing.length === 0) throw new Error(`none of the files in KUBECONFIG exist: ${files.join(path.delimiter)}`);
  kc.loadFromFile(existing[0]!);
  for (const file of existing.slice(1)) {
    const next = new KubeConfig();
    next.loadFromFile(file);
    for (const c of next.clusters) if (!kc.getCluster(c.name)) kc.addCluster(c);
    for (const u of next.users) if (!kc.getUser(u.name)) kc.addUser(u);
    for (const x of next.contexts) if (!kc.getContextObject(x.name)) kc.addContext(x);
    if (!kc.getCurrentContext() && next.getCurrentContext()) kc.setCurrentContext(next.getCurrentContext());
  }
}

/**
 * The namespace a controller should default to: the current context's namespace, else the pod's namespace
 * (`POD_NAMESPACE`, then the service-account namespace file) when running in a cluster, else `default`.
 */
export function defaultNamespace(kc: KubeConfig, inClusterPathPrefix = ''): string {
  const ctx = kc.getContextObject(kc.getCurrentContext());
  if (ctx?.namespace) return ctx.namespace.trim();
  const fromEnv = process.env['POD_NAMESPACE'];
  if (fromEnv && inClusterAvailable(inClusterPathPrefix)) return fromEnv;
  const file = `${inClusterPathPrefix}${SERVICE_ACCOUNT_DIR}/namespace`;
  try {
    const ns = fs.readFileSync(file, 'utf8').trim();
    if (ns) return ns;
  } catch {
    // not in a cluster
  }
  return 'default';
}

/** `loadKubeConfig(opts)` wrapped in an `HttpTransport`. */
export function createTransport(opts: LoadOptions & TransportOptions = {}): HttpTransport {
  return new HttpTransport(loadKubeConfig(opts), opts);
}

/** Options for a generated `Clientset.fromKubeConfig()`: where the kubeconfig comes from, and transport settings. */
export type ClientOptions = LoadOptions & TransportOptions;
