import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import type { ClusterInput } from './cluster-crds.js';
import { InputError } from '../model/errors.js';
import { checkGroupAccessor } from '../model/groups.js';
import { CliInputError, UsageError } from './errors.js';
import { didYouMean } from './suggest.js';

/**
 * The `codegen` configuration: the config file (`codegen.config.yaml|yml|json`) merged with command-line flags.
 *
 * Rules: without `--config`, the file is looked up in the current directory only. Paths in the file are relative to
 * the file's folder, paths in flags to the current directory. A flag replaces the file's value (lists too: `--crds`
 * replaces `crds`). Unknown keys and wrongly typed values are errors naming the key, file, line and column.
 *
 * Adding a front end or an output (e.g. `apis`, `crdOut`, `rbacOut`) means one entry in `CONFIG_KEYS`, one field in
 * `CliFlags`/`ResolvedConfig` and one line in `resolveConfig`.
 *
 * `groupAccessors` names groups' accessors (group → name, e.g. `serving.kserve.io: kserve` gives `kserveV1beta1`)
 * instead of the default, the group's labels but the last (`model/groups.ts`); `--group-accessor group=name` replaces the mapping.
 *
 * `fromCluster` reads the CRDs of a live cluster instead of files: `fromCluster: true` (every CRD, the default
 * kubeconfig), or a mapping with any of `kubeconfig` (a path), `context`, `crds` (CRD names) and `groups` (API
 * groups); `--from-cluster`, `--kubeconfig`, `--context`, `--crd` and `--group` set or replace them.
 *
 * `rbacSources` (`--rbac-source`) without any other input is a run of its own (controller-gen's `rbac` generator
 * alone, for a controller with no API types of its own, such as one that works on kinds known only at run time):
 * the markers of those folders into `role.yaml` (in `rbacOut`) and, when there are webhook markers,
 * `manifests.yaml` (in `webhookOut`); no code, so no `out`.
 */

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

type ValueKind = 'paths' | 'path' | 'string' | 'boolean' | 'names' | 'cluster';

/** The keys of a config file's `fromCluster` mapping. */
const CLUSTER_KEYS = ['kubeconfig', 'context', 'crds', 'groups'] as const;
type ConfigKey = keyof typeof CONFIG_KEYS;

/** A config file's content, paths already absolute. */
export interface ConfigFile {
  file: string;
  crds?: string[];
  apis?: string;
  out?: string;
  crdOut?: string;
  rbacOut?: string;
  webhookOut?: string;
  rbacSources?: string[];
  runtimeImport?: string;
  coreTypes?: boolean;
  groupAccessors?: Record<string, string>;
  fromCluster?: ClusterInput;
}

/** The flags shared by `generate` and `verify`, as commander parsed them (paths as typed). */
export interface CliFlags {
  crds?: string[];
  apis?: string;
  out?: string;
  crdOut?: string;
  rbacOut?: string;
  webhookOut?: string;
  rbacSource?: string[];
  emitMarkers?: boolean;
  runtimeImport?: string;
  config?: string;
  quiet?: boolean;
  verbose?: boolean;
  skipNonCrds?: boolean;
  /** `--no-core-types` sets false. */
  coreTypes?: boolean;
  explain?: boolean;
  /** `--group-accessor <group=name...>`: names of groups' accessors (replaces the file's `groupAccessors`). */
  groupAccessor?: string[];
  /** `--from-cluster`: read the CRDs of a live cluster. */
  fromCluster?: boolean;
  kubeconfig?: string;
  context?: string;
  /** `--crd <name...>`: CRD names to read from the cluster. */
  crd?: string[];
  /** `--group <group...>`: API groups whose CRDs are read from the cluster. */
  group?: string[];
}

/** What a command runs with: absolute paths, every input kind in `inputs`. */
export interface ResolvedConfig {
  inputs: {
    /** CRD files or folders (`--crds`). */
    crds?: string[];
    /** The apis folder of TypeScript types (`--apis`): apis/<group>/<version>/*.ts. */
    apis?: string;
    /** The CRDs of a live cluster (`--from-cluster`). */
    cluster?: ClusterInput;
    /**
     * Only the `+kubebuilder:rbac` and `+kubebuilder:webhook` markers of these folders (`--rbac-source` with no
     * other input): `role.yaml` and the webhook manifests, no code. `out` is then empty.
     */
    markers?: string[];
  };
  /** Output folder, owned by the generator (`''` for a markers-only run, which writes no code). */
  out: string;
  /** With `apis`: folder of the CRD YAML (`<group>_<plural>.yaml`). Default `config/crd/bases`. */
  crdOut?: string;
  /** With `apis` or `markers`: folder of `role.yaml` (RBAC markers). Default `config/rbac`. */
  rbacOut?: string;
  /** With `apis` or `markers`: folder of `manifests.yaml` (webhook markers). Default `config/webhook`. */
  webhookOut?: string;
  /**
   * With `apis`: more folders scanned for `+kubebuilder:rbac` markers (the apis folder always is). Without any
   * input they become the input (`inputs.markers`).
   */
  rbacSources?: string[];
  /** Emit `types.ts` with controller-gen markers (CRD input only). */
  emitMarkers?: boolean;
  runtimeImport?: string;
  quiet: boolean;
  /** Also say which inputs were passed over (kustomization files in CRD folders). */
  verbose?: boolean;
  /** CRD input: skip documents that are not CRDs (install bundles), saying which, instead of refusing them. */
  skipNonCrds?: boolean;
  /** False: never type sub-schemas with the runtime's core types (`--no-core-types`, `coreTypes: false`). */
  coreTypes?: false;
  /** List every sub-schema typed as a core type (`--explain`), not just the summary line. */
  explain?: boolean;
  /** Names of groups' accessors (group → name), from `--group-accessor` or the file's `groupAccessors`. */
  groupAccessors?: Record<string, string>;
  /** The config file used, if any. */
  configFile?: string;
}

/**
 * Merges `flags` over the config file (explicit `--config`, else one found in `cwd`). Throws `UsageError` when no
 * input or no output is given, `InputError`/`CliInputError` for a bad config file.
 */
export async function resolveConfig(flags: CliFlags, cwd: string): Promise<ResolvedConfig> {
  const configPath = flags.config !== undefined ? path.resolve(cwd, flags.config) : await findConfigFile(cwd);
  const file = configPath !== undefined ? await loadConfigFile(configPath, displayPath(configPath, cwd)) : undefined;
  // An input given on the command line replaces the file's, whichever kind it is.
  const inputFlag = flags.crds !== undefined || flags.apis !== undefined || flags.fromCluster === true;
  const crds = flags.crds !== undefined ? flags.crds.map((p) => path.resolve(cwd, p)) : inputFlag ? undefined : file?.crds;
  const apis = flags.apis !== undefined ? path.resolve(cwd, flags.apis) : inputFlag ? undefined : file?.apis;
  const cluster = resolveCluster(flags, cwd, flags.fromCluster === true ? (file?.fromCluster ?? { crds: [], groups: [] }) : inputFlag ? undefined : file?.fromCluster);
  const out = flags.out !== undefined ? path.resolve(cwd, flags.out) : file?.out;
  const base = file ? path.dirname(file.file) : cwd;
  const crdOut = flags.crdOut !== undefined ? path.resolve(cwd, flags.crdOut) : file?.crdOut ?? path.join(base, 'config', 'crd', 'bases');
  const rbacOut = flags.rbacOut !== undefined ? path.resolve(cwd, flags.rbacOut) : file?.rbacOut ?? path.join(base, 'config', 'rbac');
  const webhookOut = flags.webhookOut !== undefined ? path.resolve(cwd, flags.webhookOut) : file?.webhookOut ?? path.join(base, 'config', 'webhook');
  const rbacSources = flags.rbacSource !== undefined ? flags.rbacSource.map((p) => path.resolve(cwd, p)) : file?.rbacSources;
  const runtimeImport = flags.runtimeImport ?? file?.runtimeImport;

  const where = file ? ` or set it in ${displayPath(file.file, cwd)}` : ` or create ${CONFIG_FILE_NAMES[0]}`;
  if (crds !== undefined && crds.length > 0 && apis !== undefined) throw new UsageError('pass either --crds or --apis, not both');
  if (flags.fromCluster && (flags.crds !== undefined || flags.apis !== undefined)) throw new UsageError('pass one of --crds, --apis and --from-cluster');
  if (cluster !== undefined && (crds !== undefined || apis !== undefined)) throw new UsageError(`${displayPath(file!.file, cwd)}: set one of crds, apis and fromCluster`);
  const noInput = (crds === undefined || crds.length === 0) && apis === undefined && cluster === undefined;
  if (noInput && rbacSources !== undefined && rbacSources.length > 0) return markersOnly(flags, file, cwd, rbacSources, out, rbacOut, webhookOut);
  if (noInput) throw new UsageError(`no input: pass --crds <file|dir>..., --apis <dir>, --from-cluster or --rbac-source <dir>...,${where}`);
  if (out === undefined) throw new UsageError(`no output folder: pass --out <dir>${where}`);
  if (runtimeImport !== undefined && runtimeImport.trim() === '') throw new UsageError('--runtime-import must not be empty');

  const resolved: ResolvedConfig = apis !== undefined
    ? { inputs: { apis }, out, crdOut, rbacOut, webhookOut, quiet: flags.quiet === true }
    : cluster !== undefined
      ? { inputs: { cluster }, out, quiet: flags.quiet === true }
      : { inputs: { crds: crds! }, out, quiet: flags.quiet === true };
  if (apis !== undefined && rbacSources !== undefined && rbacSources.length > 0) resolved.rbacSources = rbacSources;
  if (flags.emitMarkers) resolved.emitMarkers = true;
  if (flags.verbose) resolved.verbose = true;
  if (flags.skipNonCrds) {
    if (apis !== undefined || cluster !== undefined) throw new UsageError(`--skip-non-crds goes with --crds (CRD files and folders), not ${apis !== undefined ? '--apis' : '--from-cluster'}`);
    resolved.skipNonCrds = true;
  }
  if (runtimeImport !== undefined) resolved.runtimeImport = runtimeImport;
  if (flags.coreTypes === false || file?.coreTypes === false) resolved.coreTypes = false;
  if (flags.explain) resolved.explain = true;
  const accessors = flags.groupAccessor !== undefined ? groupAccessorFlags(flags.groupAccessor) : file?.groupAccessors;
  if (accessors !== undefined && Object.keys(accessors).length > 0) resolved.groupAccessors = accessors;
  if (file) resolved.configFile = file.file;
  return resolved;
}

/** `--group-accessor serving.kserve.io=kserve …` as a mapping; a malformed entry or name is a usage error. */
function groupAccessorFlags(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const m = /^([^=\s]+)=(.*)$/.exec(e);
    if (!m) throw new UsageError(`--group-accessor ${e}: expected <group>=<name>, e.g. serving.kserve.io=kserve`);
    const bad = checkGroupAccessor(m[2]!);
    if (bad) throw new UsageError(`--group-accessor ${e}: ${bad}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/**
 * A markers-only run (`--rbac-source` with no other input, see the module comment): `role.yaml` and the webhook
 * manifests from those folders. Options that only make sense with code (`out`, `--runtime-import`, …) are refused.
 */
function markersOnly(flags: CliFlags, file: ConfigFile | undefined, cwd: string, sources: string[], out: string | undefined, rbacOut: string, webhookOut: string): ResolvedConfig {
  const codeOnly = [
    out !== undefined ? (flags.out !== undefined ? '--out' : 'out') : '',
    flags.runtimeImport !== undefined || file?.runtimeImport !== undefined ? '--runtime-import' : '',
    flags.emitMarkers ? '--emit-markers' : '',
    flags.skipNonCrds ? '--skip-non-crds' : '',
    flags.explain ? '--explain' : '',
  ].filter(Boolean);
  if (codeOnly.length > 0) {
    const where = file && flags.out === undefined && out !== undefined ? ` (from ${displayPath(file.file, cwd)})` : '';
    throw new UsageError(`${codeOnly.join(', ')}${where}: --rbac-source alone writes only role.yaml and webhook manifests, no code; add --crds, --apis or --from-cluster to generate code`);
  }
  const resolved: ResolvedConfig = { inputs: { markers: sources }, out: '', rbacOut, webhookOut, quiet: flags.quiet === true };
  if (flags.verbose) resolved.verbose = true;
  if (file) resolved.configFile = file.file;
  return resolved;
}

/**
 * The cluster input: `base` (the file's `fromCluster`, or empty for `--from-cluster`) with `--kubeconfig`,
 * `--context`, `--crd` and `--group` replacing its values. Those flags without a cluster input are a usage error.
 */
function resolveCluster(flags: CliFlags, cwd: string, base: ClusterInput | undefined): ClusterInput | undefined {
  const given = (['kubeconfig', 'context', 'crd', 'group'] as const).filter((k) => flags[k] !== undefined);
  if (base === undefined) {
    if (given.length > 0) {
      // `--crd` is one letter from `--crds`: someone passing files most likely meant that.
      const hint = given.includes('crd') ? '; did you mean --crds (CRD files and folders)?' : '';
      throw new UsageError(`${given.map((k) => `--${k}`).join(', ')} ${given.length === 1 ? 'goes' : 'go'} with --from-cluster (reading CRDs from a cluster)${hint}`);
    }
    return undefined;
  }
  const out: ClusterInput = { crds: flags.crd ?? base.crds, groups: flags.group ?? base.groups };
  const kubeconfig = flags.kubeconfig !== undefined ? path.resolve(cwd, flags.kubeconfig) : base.kubeconfig;
  const context = flags.context ?? base.context;
  if (kubeconfig !== undefined) out.kubeconfig = kubeconfig;
  if (context !== undefined) out.context = context;
  for (const [flag, values] of [['--crd', out.crds], ['--group', out.groups]] as const) {
    if (values.some((v) => v.trim() === '')) throw new UsageError(`${flag} must not be empty`);
  }
  return out;
}

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
      result[name as 'crds'] = seq.items.map((item, i) => {
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

/** `abs` relative to `cwd` when it is inside it (what users typed), else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
