/**
 * `KubeConfig`: a kubeconfig as read (client-go's `clientcmdapi.Config`), the runtime's own: clusters, users and
 * contexts by name with their kubeconfig fields (file paths made absolute), and the context in use. What
 * `loadKubeConfig()` returns and `Envtest.kubeConfig` is; `HttpTransport` takes one as it takes a `RestConfig`
 * (resolving its current context when the first request is sent).
 *
 * The accessors `getCurrentContext()`, `getContextObject()`, `getCurrentCluster()` and `getCurrentUser()` keep the
 * names of `@kubernetes/client-node`'s `KubeConfig`, which `loadKubeConfig()` returned before; the objects they return
 * carry kubeconfig's own field names (`server`, `token`, `namespace` are the same; `certificate-authority-data`,
 * `insecure-skip-tls-verify`, `exec`… are not camel-cased). Entries are plain data: read them, do not mutate them.
 */
import { mergeKubeConfigs, parseKubeConfig, readKubeConfigFile, resolveRestConfig, type KubeConfigDocument } from './kubeconfig-file.js';
import type { ExecEnvVar, ExecInteractiveMode } from './exec-config.js';
import type { RestConfig } from './rest-config.js';

/** A kubeconfig `clusters[].cluster` (client-go's `clientcmd/api/v1.Cluster`). */
export interface KubeConfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: { name: string; extension: unknown }[];
  [field: string]: unknown;
}

/** A kubeconfig `users[].user` (client-go's `clientcmd/api/v1.AuthInfo`). */
export interface KubeConfigUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  exec?: {
    apiVersion?: string;
    command?: string;
    args?: string[];
    env?: ExecEnvVar[];
    installHint?: string;
    provideClusterInfo?: boolean;
    interactiveMode?: ExecInteractiveMode;
  };
  'auth-provider'?: { name: string; config?: Record<string, string> };
  [field: string]: unknown;
}

/** A kubeconfig `contexts[].context`. */
export interface KubeConfigContext {
  cluster?: string;
  user?: string;
  namespace?: string;
  [field: string]: unknown;
}

/** A kubeconfig (see the module comment). */
export class KubeConfig implements KubeConfigDocument {
  readonly clusters: Map<string, KubeConfigCluster>;
  readonly users: Map<string, KubeConfigUser>;
  readonly contexts: Map<string, KubeConfigContext>;
  /** The context in use: the file's `current-context`, or the one asked for. */
  currentContext: string | undefined;

  constructor(doc: KubeConfigDocument) {
    this.clusters = doc.clusters;
    this.users = doc.users;
    this.contexts = doc.contexts;
    this.currentContext = doc.currentContext;
  }

  /** Reads `files` merged as a `KUBECONFIG` list (the first to define a name wins). Throws on unreadable or malformed files. */
  static fromFiles(files: readonly string[]): KubeConfig {
    return new KubeConfig(mergeKubeConfigs(files.map(readKubeConfigFile)));
  }

  /** Parses kubeconfig YAML (or JSON); relative paths are resolved against `dir` (default: the working directory). */
  static parse(text: string, dir = process.cwd(), source = 'kubeconfig'): KubeConfig {
    return new KubeConfig(parseKubeConfig(text, dir, source));
  }

  /** A kubeconfig of one cluster, user and context (all named `name`) equivalent to `config`. */
  static fromRestConfig(config: RestConfig, name = 'rest-config'): KubeConfig {
    const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');
    const cluster: KubeConfigCluster = { server: config.server };
    if (config.caData !== undefined) cluster['certificate-authority-data'] = b64(config.caData);
    if (config.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
    if (config.tlsServerName !== undefined) cluster['tls-server-name'] = config.tlsServerName;
    if (config.proxyUrl !== undefined) cluster['proxy-url'] = config.proxyUrl;
    const user: KubeConfigUser = {};
    if (config.certData !== undefined) user['client-certificate-data'] = b64(config.certData);
    if (config.keyData !== undefined) user['client-key-data'] = b64(config.keyData);
    if (config.token !== undefined) user.token = config.token;
    if (config.tokenFile !== undefined) user.tokenFile = config.tokenFile;
    if (config.username !== undefined) user.username = config.username;
    if (config.password !== undefined) user.password = config.password;
    const imp = config.impersonate;
    if (imp?.user !== undefined) user.as = imp.user;
    if (imp?.uid !== undefined) user['as-uid'] = imp.uid;
    if (imp?.groups !== undefined) user['as-groups'] = [...imp.groups];
    if (imp?.extra !== undefined) user['as-user-extra'] = { ...imp.extra };
    if (config.exec !== undefined) {
      const { user: _user, clusterConfig, ...exec } = config.exec;
      user.exec = exec;
      if (clusterConfig !== undefined) cluster.extensions = [{ name: 'client.authentication.k8s.io/exec', extension: clusterConfig }];
    }
    const context: KubeConfigContext = { cluster: name, user: name };
    if (config.namespace !== undefined) context.namespace = config.namespace;
    return new KubeConfig({ clusters: new Map([[name, cluster]]), users: new Map([[name, user]]), contexts: new Map([[name, context]]), currentContext: name });
  }

  /** The name of the context in use, `''` when there is none. */
  getCurrentContext(): string {
    return this.currentContext ?? '';
  }

  /** The context `name`, with its name. */
  getContextObject(name: string): (KubeConfigContext & { name: string }) | undefined {
    const c = this.contexts.get(name);
    return c ? { ...c, name } : undefined;
  }

  /** The cluster of the context in use, with its name. */
  getCurrentCluster(): (KubeConfigCluster & { name: string }) | undefined {
    const name = this.currentContext === undefined ? undefined : this.contexts.get(this.currentContext)?.cluster;
    const c = name === undefined ? undefined : this.clusters.get(name);
    return c && name !== undefined ? { ...c, name } : undefined;
  }

  /** The user of the context in use, with its name. */
  getCurrentUser(): (KubeConfigUser & { name: string }) | undefined {
    const name = this.currentContext === undefined ? undefined : this.contexts.get(this.currentContext)?.user;
    const u = name === undefined ? undefined : this.users.get(name);
    return u && name !== undefined ? { ...u, name } : undefined;
  }

  /**
   * The `RestConfig` of `context` (default: the one in use), reading referenced files now. Throws as
   * `resolveRestConfig` does (missing context, cluster or user; unreadable files; invalid exec; an auth-provider).
   */
  restConfig(context?: string): RestConfig {
    return resolveRestConfig(this, context);
  }
}

/** Whether `config` is a `RestConfig` rather than a `KubeConfig`. */
export function isRestConfig(config: RestConfig | KubeConfig): config is RestConfig {
  return !(config instanceof KubeConfig);
}

/** A `KubeConfig` equivalent to `config` (one cluster, user and context, all named `rest-config`). */
export function restConfigToKubeConfig(config: RestConfig): KubeConfig {
  return KubeConfig.fromRestConfig(config);
}
