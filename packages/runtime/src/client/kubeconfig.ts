/**
 * Finding the cluster to talk to, in controller-runtime's `config.GetConfig()` order:
 *   1. an explicit kubeconfig path (`--kubeconfig`),
 *   2. the `KUBECONFIG` environment variable (a `path.delimiter`-separated list, merged, first file wins),
 *   3. in-cluster service-account credentials (`KUBERNETES_SERVICE_HOST`/`_PORT` plus the mounted token),
 *   4. `~/.kube/config`.
 * `inCluster: true` forces step 3. A `context` selects a kubeconfig context other than the current one.
 *
 * `loadClientConfig()` (what `createTransport()` and generated `Clientset.fromKubeConfig()` use) reads kubeconfigs
 * itself into a plain `RestConfig` and loads `@kubernetes/client-node` only for users it cannot handle (`exec`,
 * `auth-provider`). `loadKubeConfig()` returns a client-node `KubeConfig` (loading client-node on first call).
 * Merely importing this module never loads client-node.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { HttpTransport, type TransportOptions } from './http-transport.js';
import { mergeKubeConfigs, readKubeConfigFile, resolveRestConfig } from './kubeconfig-file.js';
import { clientNode } from './lazy-client-node.js';
import { inClusterAvailable, inClusterRestConfig, isRestConfig, SERVICE_ACCOUNT_DIR, type RestConfig } from './rest-config.js';

export { inClusterAvailable, inClusterRestConfig, isRestConfig, restConfigToKubeConfig, SERVICE_ACCOUNT_DIR } from './rest-config.js';
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

/** Name client-node gives the context it builds from in-cluster credentials. */
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
 * A `RestConfig` when this reader handles the selected user (token, token file, client certificate, basic auth,
 * none), else a client-node `KubeConfig` (`exec` and `auth-provider` users). Throws when nothing is found, the
 * context, its cluster or its user does not exist, or a referenced file cannot be read.
 */
export function loadClientConfig(opts: LoadOptions = {}): RestConfig | KubeConfig {
  const source = findConfigSource(opts);
  if (source.inCluster) {
    if (opts.context !== undefined && opts.context !== IN_CLUSTER_CONTEXT) throw new Error(`context "${opts.context}" not found in kubeconfig`);
    return inClusterRestConfig(opts.inClusterPathPrefix ?? '');
  }
  const resolved = resolveRestConfig(mergeKubeConfigs(source.files.map(readKubeConfigFile)), opts.context);
  return 'unsupported' in resolved ? loadKubeConfig(opts) : resolved;
}

/** Like `loadClientConfig()` but only a `RestConfig`: throws for users that need client-node. */
export function loadRestConfig(opts: LoadOptions = {}): RestConfig {
  const source = findConfigSource(opts);
  if (source.inCluster) return loadClientConfig(opts) as RestConfig;
  const resolved = resolveRestConfig(mergeKubeConfigs(source.files.map(readKubeConfigFile)), opts.context);
  if ('unsupported' in resolved) throw new Error(`${resolved.unsupported}: use loadClientConfig() or loadKubeConfig()`);
  return resolved;
}

/**
 * Loads a client-node `KubeConfig` as described above (client-node is loaded on the first call). Throws when
 * nothing is found or the context does not exist.
 */
export function loadKubeConfig(opts: LoadOptions = {}): KubeConfig {
  const { KubeConfig: KubeConfigClass } = clientNode();
  const kc = new KubeConfigClass();
  const source = findConfigSource(opts);
  if (source.inCluster) {
    kc.loadFromCluster(opts.inClusterPathPrefix ?? '');
  } else {
    kc.loadFromFile(source.files[0]!);
    for (const file of source.files.slice(1)) {
      const next = new KubeConfigClass();
      next.loadFromFile(file);
      // client-go's merge rule for KUBECONFIG lists: the first file to define a name (or current-context) wins.
      for (const c of next.clusters) if (!kc.getCluster(c.name)) kc.addCluster(c);
      for (const u of next.users) if (!kc.getUser(u.name)) kc.addUser(u);
      for (const x of next.contexts) if (!kc.getContextObject(x.name)) kc.addContext(x);
      if (!kc.getCurrentContext() && next.getCurrentContext()) kc.setCurrentContext(next.getCurrentContext());
    }
  }
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) throw new Error(`context "${opts.context}" not found in kubeconfig`);
    kc.setCurrentContext(opts.context);
  }
  return kc;
}

/**
 * The namespace a controller should default to: the config's namespace (the current context's, or the pod's for
 * in-cluster configs), else the pod's namespace (`POD_NAMESPACE`, then the service-account namespace file) when
 * running in a cluster, else `default`.
 */
export function defaultNamespace(config: KubeConfig | RestConfig, inClusterPathPrefix = ''): string {
  const own = isRestConfig(config) ? config.namespace : config.getContextObject(config.getCurrentContext())?.namespace;
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
