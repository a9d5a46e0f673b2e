/**
 * The config file (`codegen.config.yaml|yml|json`): where it is looked up, the keys it may hold (`CONFIG_KEYS`, one
 * table: a new key is one entry there, its field in `ConfigFile` follows from it), and reading it with errors that
 * name the key, file, line and column. Merging it with the command line is `resolve-config.ts`.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import { didYouMean } from '../model/closest-name.js';
import { CliInputError, InputError, UsageError } from '../model/errors.js';
import { checkGroupAccessor } from '../model/groups.js';

/** Where `--from-cluster` reads CRDs and which: kubeconfig and context (default: the usual lookup), names, groups. */
export interface ClusterInput {
  /** Kubeconfig file (absolute); default: `KUBECONFIG`, in-cluster, `~/.kube/config`. */
  kubeconfig?: string;
  /** Kubeconfig context; default: the current one. */
  context?: string;
  /** CRD names (`foos.samplecontroller.k8s.io`); with `groups` empty and this empty, every CRD. */
  crds: string[];
  /** API groups whose CRDs are all read. */
  groups: string[];
}

/** File names looked up in the current directory, in this order. */
export const CONFIG_FILE_NAMES = ['codegen.config.yaml', 'codegen.config.yml', 'codegen.config.json'] as const;

/** Keys a config file may contain and the type of their value. */
export const CONFIG_KEYS = {
  crds: 'paths',
  apis: 'path',
  out: 'path',
  crdOut: 'path',
  rbacOut: 'path',
  webhookOut: 'path',
  rbacSources: 'paths',
  runtimeImport: 'string',
  coreTypes: 'boolean',
  groupAccessors: 'names',
  fromCluster: 'cluster',
} as const satisfies Record<string, ValueKind>;

/** How a key's value is read: paths (a list), one path, a string, a boolean, group → name, the cluster input. */
type ValueKind = 'paths' | 'path' | 'string' | 'boolean' | 'names' | 'cluster';

/** The keys of a config file's `fromCluster` mapping. */
const CLUSTER_KEYS = ['kubeconfig', 'context', 'crds', 'groups'] as const;
export type ConfigKey = keyof typeof CONFIG_KEYS;

/** The value a key of each kind holds once read (paths absolute). */
type ValueOf<K extends ValueKind> = K extends 'paths' ? string[] : K extends 'path' | 'string' ? string : K extends 'boolean' ? boolean : K extends 'names' ? Record<string, string> : ClusterInput;

/** A config file's content, paths already absolute: one optional field per key of `CONFIG_KEYS`. */
export type ConfigFile = { file: string } & { [K in ConfigKey]?: ValueOf<(typeof CONFIG_KEYS)[K]> };
/** The config file in `dir`, or undefined. More than one candidate is an error (which one would win is unclear). */
export async function findConfigFile(dir: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    try {
      if ((await fs.stat(path.join(dir, name))).isFile()) found.push(name);
    } catch {
      // not there
    }
  }
  if (found.length > 1) throw new UsageError(`found ${found.join(' and ')}; keep one or pass --config <file>`);
  return found[0] !== undefined ? path.join(dir, found[0]) : undefined;
}

/**
 * Reads and validates a config file (YAML or JSON; JSON is parsed by the same YAML 1.2 reader so errors carry
 * positions). `shown` is the name used in messages.
 */
export async function loadConfigFile(file: string, shown: string = file): Promise<ConfigFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new CliInputError(`${shown}: cannot read config file${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
  }
  return parseConfigText(text, file, shown);
}

/** Parses config file text; see `loadConfigFile`. Relative paths are resolved against `dirname(file)`. */
export function parseConfigText(text: string, file: string, shown: string = file): ConfigFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined, jsonPath?: string): { file: string; line: number; column: number; path?: string } => {
    const pos = offset !== undefined ? lineCounter.linePos(offset) : undefined;
    const loc = { file: shown, line: pos?.line ?? 0, column: pos?.col ?? 0 };
    return jsonPath !== undefined ? { ...loc, path: jsonPath } : loc;
  };
  const firstError = doc.errors[0];
  if (firstError) throw new InputError(at(firstError.pos[0]), firstLine(firstError.message));

  const result: ConfigFile = { file };
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined))) return result;
  if (!isMap(root)) throw new InputError(at(root.range?.[0]), `config file must be a mapping of keys (${Object.keys(CONFIG_KEYS).join(', ')})`);

  const base = path.dirname(file);
  const known = Object.keys(CONFIG_KEYS).join(', ');
  for (const pair of root.items) {
    const keyNode = pair.key as Node | null;
    const key = isScalar(keyNode) ? keyNode.value : undefined;
    if (typeof key !== 'string') throw new InputError(at(keyNode?.range?.[0]), `config keys must be strings (known keys: ${known})`);
    if (!Object.hasOwn(CONFIG_KEYS, key)) {
      const hint = didYouMean(key, Object.keys(CONFIG_KEYS), '"');
      throw new InputError(at(keyNode?.range?.[0]), `unknown key ${JSON.stringify(key)}${hint ? `; ${hint.slice(2, -1)}` : ''} (known keys: ${known})`);
    }
    const name = key as ConfigKey;
    const valueNode = pair.value as Node | null;
    const kind: ValueKind = CONFIG_KEYS[name];
    const fail = (want: string): never => {
      throw new InputError(at(valueNode?.range?.[0] ?? keyNode?.range?.[0], name), `${name} must be ${want}`);
    };
    if (kind === 'paths') {
      if (!isSeq(valueNode) || valueNode.items.length === 0) fail('a non-empty list of file or folder paths');
      const seq = valueNode as unknown as { items: unknown[] };
      result[name as 'crds' | 'rbacSources'] = seq.items.map((item, i) => {
        const v = isScalar(item) ? item.value : undefined;
        if (typeof v !== 'string' || v === '') {
          const n = item as Node | null;
          throw new InputError(at(n?.range?.[0], `${name}[${i}]`), `${name}[${i}] must be a file or folder path (a string)`);
        }
        return path.resolve(base, v);
      });
    } else if (kind === 'cluster') {
      result.fromCluster = parseClusterValue(valueNode, base, (n, p, message) => new InputError(at(n?.range?.[0] ?? keyNode?.range?.[0], p), message));
    } else if (kind === 'names') {
      if (!isMap(valueNode)) fail('a mapping of API group to accessor name (e.g. serving.kserve.io: kserve)');
      const names: Record<string, string> = {};
      for (const item of (valueNode as unknown as { items: { key: Node | null; value: Node | null }[] }).items) {
        const group = isScalar(item.key) ? item.key.value : undefined;
        const v = isScalar(item.value) ? item.value.value : undefined;
        const p = `${name}.${String(group)}`;
        if (typeof group !== 'string') throw new InputError(at(item.key?.range?.[0], name), `${name} keys must be API groups (strings)`);
        const bad = typeof v === 'string' ? checkGroupAccessor(v) : 'must be a name (a string)';
        if (bad) throw new InputError(at(item.value?.range?.[0] ?? item.key?.range?.[0], p), `${p}: ${bad}`);
        names[group] = v as string;
      }
      result.groupAccessors = names;
    } else if (kind === 'boolean') {
      const v = isScalar(valueNode) ? valueNode.value : undefined;
      if (typeof v !== 'boolean') fail('true or false');
      result[name as 'coreTypes'] = v as boolean;
    } else {
      const v = isScalar(valueNode) ? valueNode.value : undefined;
      if (typeof v !== 'string' || v === '') fail(kind === 'path' ? 'a folder path (a string)' : 'a non-empty string');
      const s = v as string;
      if (kind === 'path') result[name as 'out' | 'apis' | 'crdOut' | 'rbacOut' | 'webhookOut'] = path.resolve(base, s);
      else result[name as 'runtimeImport'] = s;
    }
  }
  return result;
}

/**
 * A config file's `fromCluster`: `true`, or a mapping of `kubeconfig` (a path, relative to the file), `context`,
 * `crds` and `groups` (lists of strings). `error` builds the positioned error for a node and JSON path.
 */
function parseClusterValue(node: Node | null, base: string, error: (node: Node | null, jsonPath: string, message: string) => InputError): ClusterInput {
  const wanted = `fromCluster must be true or a mapping of ${CLUSTER_KEYS.join(', ')}`;
  if (isScalar(node)) {
    if (node.value === true) return { crds: [], groups: [] };
    throw error(node, 'fromCluster', wanted);
  }
  if (!isMap(node)) throw error(node, 'fromCluster', wanted);
  const out: ClusterInput = { crds: [], groups: [] };
  for (const pair of node.items) {
    const keyNode = pair.key as Node | null;
    const key = isScalar(keyNode) ? keyNode.value : undefined;
    if (typeof key !== 'string' || !(CLUSTER_KEYS as readonly string[]).includes(key)) {
      throw error(keyNode, `fromCluster.${String(key)}`, `unknown key ${JSON.stringify(key)} in fromCluster (known keys: ${CLUSTER_KEYS.join(', ')})`);
    }
    const valueNode = pair.value as Node | null;
    const p = `fromCluster.${key}`;
    if (key === 'kubeconfig' || key === 'context') {
      const v = isScalar(valueNode) ? valueNode.value : undefined;
      if (typeof v !== 'string' || v === '') throw error(valueNode ?? keyNode, p, `${p} must be ${key === 'kubeconfig' ? 'a file path' : 'a context name'} (a string)`);
      if (key === 'kubeconfig') out.kubeconfig = path.resolve(base, v);
      else out.context = v;
    } else {
      if (!isSeq(valueNode) || valueNode.items.length === 0) throw error(valueNode ?? keyNode, p, `${p} must be a non-empty list of ${key === 'crds' ? 'CRD names' : 'API groups'}`);
      out[key as 'crds' | 'groups'] = valueNode.items.map((item, i) => {
        const v = isScalar(item) ? item.value : undefined;
        if (typeof v !== 'string' || v.trim() === '') throw error(item as Node | null, `${p}[${i}]`, `${p}[${i}] must be a ${key === 'crds' ? 'CRD name' : 'group'} (a string)`);
        return v;
      });
    }
  }
  return out;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
