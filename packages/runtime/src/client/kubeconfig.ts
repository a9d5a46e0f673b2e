/**
 * Finding the cluster to talk to, in controller-runtime's `config.GetConfig()` order:
 *   1. an explicit kubeconfig path (`--kubeconfig`),
 *   2. the `KUBECONFIG` environment variable (a `path.delimiter`-separated list, merged, first file wins),
 *   3. in-cluster service-account credentials (`KUBERNETES_SERVICE_HOST`/`_PORT` plus the mounted token),
 *   4. `~/.kube/config`.
 * `inCluster: true` forces step 3. A `context` selects a kubeconfig context other than the current one.
 *
 * `loadRestConfig()` (what `createTransport()` and generated `Clientset.fromKubeConfig()` use, also as
 * `loadClientConfig()`) resolves the selected context into a plain `RestConfig`; `loadKubeConfig()` returns the
 * whole kubeconfig (the runtime's `KubeConfig`, with the selected context as its current one). Every kind of user
 * client-go supports today is handled by the runtime itself: tokens, token files, client certificates, basic auth,
 * and `exec` credential plugins (run by the transport when it first needs credentials). `auth-provider` users
 * (gcp, azure, oidc) are refused with an error naming their exec replacement.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpTransport, type TransportOptions } from './http-transport.js';
import { isRestConfig, KubeConfig } from './kubeconfig-model.js';
import { inClusterAvailable, inClusterRestConfig, SERVICE_ACCOUNT_DIR, type RestConfig } from './rest-config.js';

export { inClusterAvailable, inClusterRestConfig, SERVICE_ACCOUNT_DIR } from './rest-config.js';
export { isRestConfig, restConfigToKubeConfig } from './kubeconfig-model.js';
export type { Impersonation, RestConfig } from './rest-config.js';

/**
 * Where `loadClientConfig()`, `loadRestConfig()` and `loadKubeConfig()` find the cluster, in the module comment's
 * order (controller-runtime's `config.GetConfigWithContext` inputs). All optional: `{}` runs the full lookup.
 */
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

/** The context name of in-cluster credentials (client-node's, which `loadKubeConfig()` used to return). */
const IN_CLUSTER_CONTEXT = 'inClusterContext';

type ConfigSource = { inCluster: true } | { inCluster: false; files: string[] };

/** Applies the lookup order above. Throws when nothing is found. */
function findConfigSource(opts: LoadOptions): ConfigSource {
  const prefix = opts.inClusterPathPrefix ?? '';
  if (opts.inCluster) {
    if (!inClusterAvailable(prefix)) {
      throw new Error('in-cluster config requested but KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT or the service-account token are missing');
    }
    return { inCluster: true };
  }
  if (opts.kubeconfig) return { inCluster: false, files: [opts.kubeconfig] };
  const envPaths = (process.env['KUBECONFIG'] ?? '').split(path.delimiter).filter((p) => p !== '');
  if (envPaths.length > 0) {
    const existing = envPaths.filter((f) => fs.existsSync(f));
    if (existing.length === 0) throw new Error(`none of the files in KUBECONFIG exist: ${envPaths.join(path.delimiter)}`);
    return { inCluster: false, files: existing };
  }
  if (inClusterAvailable(prefix)) return { inCluster: true };
  const homeConfig = path.join(os.homedir(), '.kube', 'config');
  if (fs.existsSync(homeConfig)) return { inCluster: false, files: [homeConfig] };
  throw new Error(`no Kubernetes configuration found: pass a kubeconfig, set KUBECONFIG, run in a cluster, or create ${homeConfig}`);
}

/**
 * The `RestConfig` of the selected context (see the module comment). Throws when nothing is found, the context, its
 * cluster or its user does not exist, a referenced file cannot be read, the user's `exec` config is invalid or the
 * user has an `auth-provider`.
 */
export function loadRestConfig(opts: LoadOptions = {}): RestConfig {
  const source = findConfigSource(opts);
  if (source.inCluster) {
    if (opts.context !== undefined && opts.context !== IN_CLUSTER_CONTEXT) throw new Error(`context "${opts.context}" not found in kubeconfig`);
    return inClusterRestConfig(opts.inClusterPathPrefix ?? '');
  }
  return KubeConfig.fromFiles(source.files).restConfig(opts.context);
}

/**
 * `loadRestConfig()` under its former name (it returned a client-node `KubeConfig` for exec and auth-provider users;
 * every user now resolves into a `RestConfig`).
 */
export function loadClientConfig(opts: LoadOptions = {}): RestConfig {
  return loadRestConfig(opts);
}

/**
 * The kubeconfig found as described above, with `opts.context` as its current context; in a cluster, one context
 * `inClusterContext` for the service account (its token file as the user's `tokenFile`). Throws when nothing is
 * found, a file cannot be read or parsed, or the context does not exist. Credentials are not checked here:
 * `restConfig()` (or a transport) resolves them.
 */
export function loadKubeConfig(opts: LoadOptions = {}): KubeConfig {
  const source = findConfigSource(opts);
  if (source.inCluster) {
    if (opts.context !== undefined && opts.context !== IN_CLUSTER_CONTEXT) throw new Error(`context "${opts.context}" not found in kubeconfig`);
    // The token file alone: a transport re-reads it as it rotates.
    const { token: _token, ...config } = inClusterRestConfig(opts.inClusterPathPrefix ?? '');
    return KubeConfig.fromRestConfig(config, IN_CLUSTER_CONTEXT);
  }
  const kc = KubeConfig.fromFiles(source.files);
  if (opts.context) {
    if (!kc.contexts.has(opts.context)) throw new Error(`context "${opts.context}" not found in kubeconfig`);
    kc.currentContext = opts.context;
  }
  return kc;
}

/**
 * The namespace a controller should default to: the config's namespace (the current context's, or the pod's for
 * in-cluster configs), else the pod's namespace (`POD_NAMESPACE`, then the service-account namespace file) when
 * running in a cluster, else `default`.
 */
export function defaultNamespace(config: KubeConfig | RestConfig, inClusterPathPrefix = ''): string {
  const own = isRestConfig(config) ? config.namespace : config.contexts.get(config.getCurrentContext())?.namespace;
  if (own?.trim()) return own.trim();
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

/** `loadClientConfig(opts)` wrapped in an `HttpTransport`. */
export function createTransport(opts: LoadOptions & TransportOptions = {}): HttpTransport {
  return new HttpTransport(loadClientConfig(opts), opts);
}

/** Options for a generated `Clientset.fromKubeConfig()`: where the kubeconfig comes from, and transport settings. */
export type ClientOptions = LoadOptions & TransportOptions;
