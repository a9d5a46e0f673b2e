/**
 * Our own kubeconfig reader (no `@kubernetes/client-node`): parses kubeconfig YAML into name-keyed entries with file
 * paths made absolute (relative to the folder of the file that defines them, as client-go's `ResolveLocalPaths`),
 * merges a `KUBECONFIG` list (client-go's rule: the first file to define a name, or a current-context, wins), and
 * resolves one context into a `RestConfig`. Users this reader does not handle (`exec`, `auth-provider`) are reported
 * as unsupported so the caller can fall back to client-node. `*-data` fields win over file paths, as in client-go.
 */
import fs from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import type { Impersonation, RestConfig } from './rest-config.js';

type Entry = Record<string, unknown>;

/** One kubeconfig (or a merge of several): entries by name, paths already absolute. */
export interface KubeConfigDocument {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext: string | undefined;
}

/** The selected user needs something only client-node implements. */
export interface UnsupportedUser {
  unsupported: string;
}

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
    doc = load(text);
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
 * Resolves `contextName` (default: the current context) into a `RestConfig`, reading referenced files now.
 * Returns `{ unsupported }` when the user authenticates with `exec` or `auth-provider`. Throws when the context,
 * its cluster or its user does not exist, the cluster has no server, or a referenced file cannot be read.
 */
export function resolveRestConfig(doc: KubeConfigDocument, contextName?: string): RestConfig | UnsupportedUser {
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
  if (user['exec'] !== undefined && user['exec'] !== null) return { unsupported: `user "${userName}" uses an exec credential plugin` };
  if (user['auth-provider'] !== undefined && user['auth-provider'] !== null) return { unsupported: `user "${userName}" uses an auth-provider` };

  const server = str(cluster['server']);
  if (server === undefined) throw new Error(`cluster "${clusterName}" has no server`);
  const config: RestConfig = { server: server.replace(/\/+$/, '') };
  setIfDefined(config, 'caData', dataOrFile(cluster, 'certificate-authority'));
  if (cluster['insecure-skip-tls-verify'] === true) config.insecureSkipTLSVerify = true;
  setIfDefined(config, 'tlsServerName', str(cluster['tls-server-name']));
  setIfDefined(config, 'proxyUrl', str(cluster['proxy-url']));
  setIfDefined(config, 'certData', dataOrFile(user, 'client-certificate'));
  setIfDefined(config, 'keyData', dataOrFile(user, 'client-key'));
  setIfDefined(config, 'token', str(user['token']));
  setIfDefined(config, 'tokenFile', str(user['tokenFile']) ?? str(user['token-file']));
  setIfDefined(config, 'username', str(user['username']));
  setIfDefined(config, 'password', str(user['password']));
  setIfDefined(config, 'namespace', str(context['namespace']));
  const impersonate = impersonation(user);
  if (impersonate) config.impersonate = impersonate;
  return config;
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
