/**
 * The runtime's kubeconfig reader (client-go's `clientcmd`): parses kubeconfig YAML into name-keyed entries with file
 * paths made absolute (relative to the folder of the file that defines them, as client-go's `ResolveLocalPaths`,
 * including an `exec` command given as a path), merges a `KUBECONFIG` list (client-go's rule: the first file to
 * define a name, or a current-context, wins), and resolves one context into a `RestConfig`. `*-data` fields win over
 * file paths, as in client-go. `exec` users become a `RestConfig.exec` (validated here, run by the transport);
 * `auth-provider` users are refused with an error naming their exec replacement (`auth-provider.ts`); a `proxy-url`
 * whose scheme is not http, https or socks5 is refused naming the cluster.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { authProviderError } from './auth-provider.js';
import { validateExecConfig, type ExecConfig } from './exec-config.js';
import { parseProxyUrl } from './proxy-url.js';
import type { Impersonation, RestConfig } from './rest-config.js';

type Entry = Record<string, unknown>;

/** js-yaml, loaded the first time a kubeconfig is read (an in-cluster controller reads none). */
let yaml: typeof import('js-yaml') | undefined;
function loadYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
  return yaml.load(text);
}

/** One kubeconfig (or a merge of several): entries by name (their kubeconfig fields), paths already absolute. */
export interface KubeConfigDocument {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext: string | undefined;
}

/** The cluster extension client-go passes to exec plugins (`spec.cluster.config`). */
const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';

const CLUSTER_PATHS = ['certificate-authority'];
const USER_PATHS = ['client-certificate', 'client-key', 'tokenFile', 'token-file'];

/** Reads and parses one kubeconfig file. Throws on unreadable files and malformed YAML. */
export function readKubeConfigFile(file: string): KubeConfigDocument {
  return parseKubeConfig(fs.readFileSync(file, 'utf8'), path.dirname(path.resolve(file)), file);
}

/** Parses kubeconfig YAML; relative paths are resolved against `dir`. `source` names the input in errors. */
export function parseKubeConfig(text: string, dir: string, source = 'kubeconfig'): KubeConfigDocument {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (err) {
    throw new Error(`${source}: invalid YAML: ${(err as Error).message}`);
  }
  if (doc === undefined || doc === null) doc = {};
  if (!isEntry(doc)) throw new Error(`${source}: a kubeconfig must be a YAML mapping`);
  const current = doc['current-context'];
  return {
    clusters: namedEntries(doc['clusters'], 'cluster', source, dir, CLUSTER_PATHS),
    users: namedEntries(doc['users'], 'user', source, dir, USER_PATHS),
    contexts: namedEntries(doc['contexts'], 'context', source, dir, []),
    currentContext: typeof current === 'string' && current !== '' ? current : undefined,
  };
}

function isEntry(v: unknown): v is Entry {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function namedEntries(list: unknown, key: string, source: string, dir: string, pathFields: string[]): Map<string, Entry> {
  const out = new Map<string, Entry>();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new Error(`${source}: ${key}s must be a list`);
  list.forEach((item: unknown, i) => {
    if (!isEntry(item) || typeof item['name'] !== 'string' || item['name'] === '') throw new Error(`${source}: ${key}s[${i}].name is missing`);
    const body = item[key] ?? {};
    if (!isEntry(body)) throw new Error(`${source}: ${key}s[${i}].${key} must be a mapping`);
    const resolved: Entry = { ...body };
    for (const field of pathFields) {
      const p = resolved[field];
      if (typeof p === 'string' && p !== '' && !path.isAbsolute(p)) resolved[field] = path.join(dir, p);
    }
    // An exec command with a path separator is a file relative to the kubeconfig; a bare name is looked up on PATH.
    const exec = resolved['exec'];
    if (key === 'user' && isEntry(exec) && typeof exec['command'] === 'string' && exec['command'].includes(path.sep) && !path.isAbsolute(exec['command'])) {
      resolved['exec'] = { ...exec, command: path.join(dir, exec['command']) };
    }
    if (!out.has(item['name'])) out.set(item['name'], resolved); // within one file client-go keeps the first too
  });
  return out;
}

/** client-go's merge of a `KUBECONFIG` list: for every name, and for current-context, the first definition wins. */
export function mergeKubeConfigs(docs: KubeConfigDocument[]): KubeConfigDocument {
  const merged: KubeConfigDocument = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: undefined };
  for (const doc of docs) {
    for (const kind of ['clusters', 'users', 'contexts'] as const) {
      for (const [name, entry] of doc[kind]) if (!merged[kind].has(name)) merged[kind].set(name, entry);
    }
    merged.currentContext ??= doc.currentContext;
  }
  return merged;
}

/**
 * Resolves `contextName` (default: the current context) into a `RestConfig`, reading referenced files now (an exec
 * plugin is not run here). Throws when the context, its cluster or its user does not exist, the cluster has no
 * server or an unsupported `proxy-url`, a referenced file cannot be read, the user's `exec` config is invalid, or the
 * user has an `auth-provider`.
 */
export function resolveRestConfig(doc: KubeConfigDocument, contextName?: string): RestConfig {
  const name = contextName ?? doc.currentContext;
  if (name === undefined) throw new Error('kubeconfig has no current cluster (set current-context or pass a context)');
  const context = doc.contexts.get(name);
  if (!context) throw new Error(`context "${name}" not found in kubeconfig`);
  const clusterName = str(context['cluster']);
  const cluster = clusterName === undefined ? undefined : doc.clusters.get(clusterName);
  if (!cluster) throw new Error(`cluster "${clusterName ?? ''}" of context "${name}" not found in kubeconfig`);
  const userName = str(context['user']);
  const user = userName === undefined ? {} : doc.users.get(userName);
  if (!user) throw new Error(`user "${userName}" of context "${name}" not found in kubeconfig`);
  if (user['auth-provider'] !== undefined && user['auth-provider'] !== null) throw authProviderError(userName ?? '', user['auth-provider']);

  const server = str(cluster['server']);
  if (server === undefined) throw new Error(`cluster "${clusterName}" has no server`);
  const config: RestConfig = { server: server.replace(/\/+$/, '') };
  setIfDefined(config, 'caData', dataOrFile(cluster, 'certificate-authority'));
  if (cluster['insecure-skip-tls-verify'] === true) config.insecureSkipTLSVerify = true;
  setIfDefined(config, 'tlsServerName', str(cluster['tls-server-name']));
  const proxyUrl = str(cluster['proxy-url']);
  if (proxyUrl !== undefined) {
    parseProxyUrl(proxyUrl, `cluster ${JSON.stringify(clusterName)}`);
    config.proxyUrl = proxyUrl;
  }
  setIfDefined(config, 'certData', dataOrFile(user, 'client-certificate'));
  setIfDefined(config, 'keyData', dataOrFile(user, 'client-key'));
  setIfDefined(config, 'token', str(user['token']));
  setIfDefined(config, 'tokenFile', str(user['tokenFile']) ?? str(user['token-file']));
  setIfDefined(config, 'username', str(user['username']));
  setIfDefined(config, 'password', str(user['password']));
  setIfDefined(config, 'namespace', str(context['namespace']));
  const impersonate = impersonation(user);
  if (impersonate) config.impersonate = impersonate;
  if (user['exec'] !== undefined && user['exec'] !== null) config.exec = execConfig(userName ?? '', user['exec'], cluster);
  return config;
}

/** A user's `exec` section as an `ExecConfig`, with the cluster's exec extension; throws naming the user when invalid. */
function execConfig(userName: string, raw: unknown, cluster: Entry): ExecConfig {
  if (!isEntry(raw)) throw new Error(`kubeconfig user ${JSON.stringify(userName)}: exec must be a mapping`);
  const config: ExecConfig = { apiVersion: String(raw['apiVersion'] ?? ''), command: String(raw['command'] ?? ''), user: userName };
  if (Array.isArray(raw['args'])) config.args = raw['args'].map(String);
  if (Array.isArray(raw['env'])) config.env = raw['env'].map((v) => (isEntry(v) ? { name: String(v['name'] ?? ''), value: String(v['value'] ?? '') } : { name: '', value: '' }));
  if (typeof raw['installHint'] === 'string' && raw['installHint'] !== '') config.installHint = raw['installHint'];
  if (raw['provideClusterInfo'] === true) config.provideClusterInfo = true;
  if (typeof raw['interactiveMode'] === 'string' && raw['interactiveMode'] !== '') config.interactiveMode = raw['interactiveMode'] as ExecConfig['interactiveMode'] & string;
  const extensions = cluster['extensions'];
  const extension = Array.isArray(extensions) ? extensions.find((e: unknown) => isEntry(e) && e['name'] === EXEC_EXTENSION) : undefined;
  if (isEntry(extension) && extension['extension'] !== undefined) config.clusterConfig = extension['extension'];
  return validateExecConfig(config);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function setIfDefined<K extends keyof RestConfig>(config: RestConfig, key: K, value: RestConfig[K] | undefined): void {
  if (value !== undefined) config[key] = value;
}

/** `<field>-data` (base64) if present, else the contents of the file `<field>` names. */
function dataOrFile(entry: Entry, field: string): string | undefined {
  const data = str(entry[`${field}-data`]);
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = str(entry[field]);
  if (file === undefined) return undefined;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`kubeconfig ${field} ${file}: ${(err as Error).message}`);
  }
}

function impersonation(user: Entry): Impersonation | undefined {
  const out: Impersonation = {};
  const as = str(user['as']);
  if (as !== undefined) out.user = as;
  const uid = str(user['as-uid']);
  if (uid !== undefined) out.uid = uid;
  const groups = user['as-groups'];
  if (Array.isArray(groups) && groups.length > 0) out.groups = groups.map(String);
  const extra = user['as-user-extra'];
  if (isEntry(extra)) {
    out.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : [String(v)]]));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
