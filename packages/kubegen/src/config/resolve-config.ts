/**
 * The configuration a command runs with: the config file (`config-file.ts`) merged with command-line flags.
 *
 * Rules: without `--config`, the file is looked up in the current directory only. Paths in the file are relative to
 * the file's folder, paths in flags to the current directory. A flag replaces the file's value (lists too: `--crds`
 * replaces `crds`). Unknown keys and wrongly typed values are errors naming the key, file, line and column.
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
import * as path from 'node:path';
import { UsageError } from '../model/errors.js';
import { checkGroupAccessor } from '../model/groups.js';
import { CONFIG_FILE_NAMES, findConfigFile, loadConfigFile } from './config-file.js';
import type { ClusterInput, ConfigFile } from './config-file.js';

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

/** `abs` relative to `cwd` when it is inside it (what users typed), else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}

