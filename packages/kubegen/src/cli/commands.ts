import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatLocation } from '../model/index.js';
import type { ApiModel, SourceLocation } from '../model/index.js';
import type { GeneratedFile } from '../generate/index.js';
import { defaultPipeline } from './pipeline.js';
import { formatVerifyReport, verifyOutput } from '../output/verify.js';
import type { ChangedFile, VerifyResult } from '../output/verify.js';
import { foreignFiles, OutputOwnershipError, writeOutput } from '../output/write.js';
import { foreignYamlTargets, verifyYamlOutput, writeYamlOutput, yamlOwnershipError } from '../output/yaml-output.js';
import { regenerateCommand, verifySummary } from './regenerate-hint.js';
import { didYouMean } from './suggest.js';
import { displayPath } from '../config/resolve-config.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { CliInputError, ExitCode } from './errors.js';
import type { Pipeline } from './pipeline.js';
import type { SkippedInput } from '../parse/crd/index.js';
import { Progress } from './progress.js';
import { describeUnsatisfied, sampleValidator, sampleYaml, type UnsatisfiedRule } from '../generate/sample/index.js';
import { formatCoreTypeExplain, formatCoreTypeSummary } from './core-types-report.js';
import type { CoreTypeReport } from './core-types-report.js';
import type { ProgressSink } from './progress.js';
import type { ClusterInput } from './cluster-crds.js';

/** What a command may touch of the outside world (all injectable for in-process tests). */
export interface CommandIO {
  cwd: string;
  stdout: (s: string) => void;
  stderr: ProgressSink;
  /** Monotonic clock in ms. */
  now: () => number;
  /** The command line as typed (after the program name), when known: `verify` repeats it in the `generate` it suggests. */
  argv?: readonly string[];
}

interface Generated {
  model: ApiModel;
  files: GeneratedFile[];
  /** With `--apis`: CRD YAML files (for `crdOut`), `role.yaml` (for `rbacOut`), `manifests.yaml` (for `webhookOut`). */
  yaml?: { crds: GeneratedFile[]; rbac: GeneratedFile[]; webhook: GeneratedFile[] };
  progress: Progress;
  started: number;
  coreTypes: CoreTypeReport[];
}

/** Parses the inputs and runs the generators. Reads inputs only; writes nothing. */
async function parseAndGenerate(cfg: ResolvedConfig, io: CommandIO, pipeline: Pipeline): Promise<Generated> {
  const started = io.now();
  const progress = new Progress(io.stderr, { now: io.now, enabled: !cfg.quiet && io.stderr.isTTY === true });
  let model: ApiModel;
  if (cfg.inputs.markers !== undefined) {
    // Markers only (`--rbac-source` alone): role.yaml and webhook manifests, no code and no generator run.
    const shown = io.cwd === process.cwd() ? cfg.inputs.markers.map((p) => displayPath(p, io.cwd)) : cfg.inputs.markers;
    const { scanMarkerSources } = await import('../parse/typescript/code-markers.js');
    const found = await scanMarkerSources(shown, new Set());
    if (found.rbacRules.length === 0 && found.webhooks.length === 0) {
      throw new CliInputError(`${shown.join(', ')}: no +kubebuilder:rbac or +kubebuilder:webhook marker found in a .ts file`);
    }
    model = { resources: [], rbacRules: found.rbacRules, webhooks: found.webhooks };
    return { model, files: [], yaml: manifestsByOutput(await pipeline.generate(model, {})), progress, started, coreTypes: [] };
  }
  if (cfg.inputs.apis !== undefined) {
    const apis = cfg.inputs.apis;
    const shownApis = io.cwd === process.cwd() ? displayPath(apis, io.cwd) : apis;
    const parse = pipeline.parseApis ?? defaultPipeline.parseApis!;
    model = await parse(shownApis, cfg.rbacSources ? { outDir: cfg.out, rbacSources: cfg.rbacSources } : { outDir: cfg.out });
    if (model.resources.length === 0) {
      throw new CliInputError(`${shownApis}: no root kind found (an exported interface marked +kubebuilder:object:root=true in apis/<group>/<version>/)`);
    }
  } else if (cfg.inputs.cluster !== undefined) {
    progress.phase('reading CRDs from the cluster');
    model = await parseCluster(cfg.inputs.cluster, pipeline);
  } else {
    const crds = cfg.inputs.crds ?? [];
    for (const p of crds) {
      try {
        await fs.stat(p);
      } catch {
        throw new CliInputError(`${displayPath(p, io.cwd)}: no such file or folder (from ${cfg.configFile ? displayPath(cfg.configFile, io.cwd) : '--crds'})`);
      }
    }
    // Paths as the user sees them, so messages name files the way they were typed (relative to the working directory).
    const shown = io.cwd === process.cwd() ? crds.map((p) => displayPath(p, io.cwd)) : crds;
    const skipped: SkippedInput[] = [];
    model = await pipeline.parseCrdPaths(shown, { ...(cfg.skipNonCrds ? { skipNonCrds: true } : {}), onSkip: (s) => void skipped.push(s), onWarning: yamlWarnings(io, cfg.quiet) });
    for (const s of skipped) {
      // Kustomization files are expected in a CRD folder: mentioned only with --verbose. Skipped documents always.
      const kustomization = s.line === 0;
      if (cfg.quiet || (kustomization && !cfg.verbose)) continue;
      io.stderr.write(`skipped ${s.file}${s.line > 0 ? `:${s.line}` : ''}: ${s.reason}\n`);
    }
    if (model.resources.length === 0) {
      throw new CliInputError(`${shown.join(', ')}: no CustomResourceDefinition found`);
    }
  }
  const coreTypes: CoreTypeReport[] = [];
  const all = await pipeline.generate(model, {
    ...(cfg.runtimeImport !== undefined ? { runtimeImport: cfg.runtimeImport } : {}),
    ...(cfg.emitMarkers ? { emitMarkers: true } : {}),
    ...(cfg.coreTypes === false ? { coreTypes: false } : {}),
    ...(cfg.groupAccessors !== undefined ? { groupAccessors: cfg.groupAccessors } : {}),
    onProgress: progress.update,
    onCoreTypes: (gv, uses, misses) => void ((uses.length > 0 || misses.length > 0) && coreTypes.push({ gv, uses, misses })),
  });
  const files = all.filter((f) => f.output === undefined);
  const generated: Generated = { model, files, progress, started, coreTypes };
  if (cfg.inputs.apis !== undefined) generated.yaml = manifestsByOutput(all);
  return generated;
}

/** The YAML files of a generator run, by output folder. */
function manifestsByOutput(files: readonly GeneratedFile[]): NonNullable<Generated['yaml']> {
  const of = (output: GeneratedFile['output']): GeneratedFile[] => files.filter((f) => f.output === output).map(({ path: p, content }) => ({ path: p, content }));
  return { crds: of('crds'), rbac: of('rbac'), webhook: of('webhooks') };
}

/** One YAML output folder of a `--apis` run. */
interface YamlTarget {
  dir: string;
  files: GeneratedFile[];
  /** Remove owned files it no longer generates (CRDs of removed kinds, a manifests.yaml without webhooks). */
  prune: boolean;
  /** File names the other YAML outputs write into the same folder (when folders coincide): never pruned. */
  keep: string[];
}

function yamlTargets(cfg: ResolvedConfig, yaml: NonNullable<Generated['yaml']>): YamlTarget[] {
  const list = [
    // A markers-only run has no CRDs: it leaves the CRD folder alone.
    ...(cfg.inputs.markers === undefined ? [{ dir: cfg.crdOut!, files: yaml.crds, prune: true }] : []),
    { dir: cfg.rbacOut!, files: yaml.rbac, prune: false },
    { dir: cfg.webhookOut!, files: yaml.webhook, prune: true },
  ];
  const same = (a: string, b: string): boolean => path.resolve(a) === path.resolve(b);
  return list.map((t) => ({ ...t, keep: list.filter((o) => o !== t && same(o.dir, t.dir)).flatMap((o) => o.files.map((f) => f.path)) }));
}

/**
 * `kubegen generate`: parse, generate, replace the output folder atomically and update the YAML outputs. Every
 * output is checked for files kubegen did not write before anything is written; all of them are named. Returns the
 * exit code.
 */
export async function runGenerate(cfg: ResolvedConfig, io: CommandIO, pipeline: Pipeline): Promise<number> {
  const shown = (p: string): string => displayPath(p, io.cwd);
  const code = cfg.inputs.markers === undefined;
  // Fail fast, before the (possibly long) generation, when the code folder is not ours. writeOutput checks again.
  const foreign = code ? await foreignFiles(cfg.out) : [];
  if (foreign.length > 0) throw new OutputOwnershipError(shown(cfg.out), foreign);
  const { model, files, progress, started, yaml, coreTypes } = await parseAndGenerate(cfg, io, pipeline);
  const targets = yaml ? yamlTargets(cfg, yaml) : [];
  const refusals: OutputOwnershipError[] = [];
  for (const t of targets) {
    const found = await foreignYamlTargets(t.dir, t.files);
    if (found.length > 0) refusals.push(yamlOwnershipError(shown(t.dir), found));
  }
  if (refusals.length === 1) throw refusals[0];
  if (refusals.length > 1) throw new AggregateError(refusals, refusals.map((e) => e.message).join('\n'));
  progress.phase(`writing ${files.length} files`);
  let result: Awaited<ReturnType<typeof writeOutput>> | undefined;
  try {
    if (code) result = await writeOutput(cfg.out, files);
    for (const t of targets) {
      // No webhooks: nothing is written, and a manifests.yaml written before (ours: it has the header) is removed.
      if (t.files.length === 0 && !(await exists(t.dir))) continue;
      await writeYamlOutput(t.dir, t.files, { prune: t.prune, keep: t.keep });
    }
  } finally {
    progress.clear();
  }
  if (result?.leftover !== undefined) {
    io.stderr.write(`warning: could not remove the previous output at ${result.leftover}; delete it by hand\n`);
  }
  if (!code) {
    if (!cfg.quiet) {
      const rules = model.rbacRules?.length ?? 0;
      io.stdout(`wrote ${yaml!.rbac[0]!.path} (${rules} rule${rules === 1 ? '' : 's'} from +kubebuilder:rbac markers) into ${shown(cfg.rbacOut!)}\n`);
      if (yaml!.webhook.length > 0) io.stdout(`wrote ${yaml!.webhook[0]!.path} into ${shown(cfg.webhookOut!)}\n`);
    }
    return ExitCode.ok;
  }
  // A scaffolded project's samples follow its types (unless the user edited them): scaffold/sample-refresh.ts.
  const samples = cfg.inputs.apis !== undefined ? await refreshProjectSamples(cfg, io, model) : undefined;
  const out = shown(cfg.out);
  if (!cfg.quiet) {
    for (const f of samples?.refreshed ?? []) io.stdout(`refreshed ${f} from the types (kubegen sample)\n`);
    const ms = Math.round(io.now() - started);
    io.stdout(`generated ${files.length} files for ${countKinds(model)} kinds in ${ms} ms into ${out}\n`);
    if (yaml) {
      io.stdout(`wrote ${yaml.crds.length} CRDs into ${shown(cfg.crdOut!)} and ${yaml.rbac[0]!.path} into ${shown(cfg.rbacOut!)}\n`);
      if (yaml.webhook.length > 0) io.stdout(`wrote ${yaml.webhook[0]!.path} into ${shown(cfg.webhookOut!)}\n`);
    }
    io.stdout(cfg.explain ? formatCoreTypeExplain(coreTypes) : formatCoreTypeSummary(coreTypes));
  }
  return ExitCode.ok;
}

/** Refreshes the samples of the project `cfg` belongs to (its config file's folder, else the working directory). */
async function refreshProjectSamples(cfg: ResolvedConfig, io: CommandIO, model: ApiModel): Promise<{ refreshed: string[] }> {
  const { refreshSamples } = await import('../scaffold/sample-refresh.js');
  const root = cfg.configFile ? path.dirname(cfg.configFile) : io.cwd;
  return refreshSamples(root, model, cfg.inputs.apis!);
}

/**
 * `kubegen verify`: exit 0 when every output is byte-identical to what `generate` would write, else print a unified
 * diff per changed file (stdout), name extra, missing and foreign files, say which folders differ and the command
 * that updates them (stderr), and exit 1. Never writes.
 */
export async function runVerify(cfg: ResolvedConfig, io: CommandIO, pipeline: Pipeline): Promise<number> {
  const { files, progress, yaml } = await parseAndGenerate(cfg, io, pipeline);
  const shown = (p: string): string => displayPath(p, io.cwd);
  const folders: [string, VerifyResult][] = [];
  try {
    progress.phase(`comparing ${files.length} files`);
    if (cfg.inputs.markers === undefined) folders.push([shown(cfg.out), await verifyOutput(cfg.out, files)]);
    for (const t of yaml ? yamlTargets(cfg, yaml) : []) {
      folders.push([shown(t.dir), await verifyYamlOutput(t.dir, t.files, { prune: t.prune, keep: t.keep })]);
    }
  } finally {
    progress.clear();
  }
  // Paths in the report are relative to the code folder; a markers-only run has none, so every path names its folder.
  const none: VerifyResult = { upToDate: true, changed: [], missing: [], extra: [], foreign: [], expected: 0 };
  const result = cfg.inputs.markers === undefined ? mergeResults(folders[0]![1], folders.slice(1)) : mergeResults(none, folders);
  if (result.upToDate) {
    // The code folder, or for a markers-only run the RBAC folder (the first of its outputs).
    if (!cfg.quiet) io.stdout(`${folders[0]![0]} is up to date (${result.expected} files)\n`);
    return ExitCode.ok;
  }
  io.stdout(formatVerifyReport(result));
  const command = await regenerateCommand(io.argv, io.cwd);
  for (const line of verifySummary(folders, command)) io.stderr.write(`error: ${line}\n`);
  return ExitCode.failure;
}

/** Adds the YAML outputs' results to the code folder's, their paths prefixed by their folder. */
function mergeResults(code: VerifyResult, others: [string, VerifyResult][]): VerifyResult {
  const out: VerifyResult = { ...code, changed: [...code.changed], missing: [...code.missing], extra: [...code.extra], foreign: [...code.foreign] };
  for (const [dir, r] of others) {
    // The diff's file names too: `--- a/config/rbac/role.yaml`, so the report says which folder.
    const named = (c: ChangedFile): string => c.diff.replace(/^(---|\+\+\+) ([ab])\//gm, `$1 $2/${dir}/`);
    out.changed.push(...r.changed.map((c) => ({ path: `${dir}/${c.path}`, diff: named(c) })));
    out.missing.push(...r.missing.map((p) => `${dir}/${p}`));
    out.extra.push(...r.extra.map((p) => `${dir}/${p}`));
    out.foreign.push(...r.foreign.map((p) => `${dir}/${p}`));
    out.expected += r.expected;
    out.upToDate &&= r.upToDate;
  }
  return out;
}

async function exists(dir: string): Promise<boolean> {
  return fs.stat(dir).then(
    () => true,
    () => false,
  );
}

/**
 * `--from-cluster`: the selected CRDs of the cluster, parsed as CRD files are (names `cluster:<name>` in errors).
 * A cluster with no CRD (none selected is an error naming the selection) is an input error, as an empty folder is.
 */
async function parseCluster(input: ClusterInput, pipeline: Pipeline): Promise<ApiModel> {
  const conn = await (pipeline.connectCluster ?? defaultPipeline.connectCluster!)(input);
  try {
    const { readClusterCrds } = await import('./cluster-crds.js');
    const crds = await readClusterCrds(conn, input);
    if (crds.length === 0) throw new CliInputError(`--from-cluster: ${conn.description} has no CustomResourceDefinition`);
    return await (pipeline.parseCrdObjects ?? defaultPipeline.parseCrdObjects!)(crds as Record<string, unknown>[]);
  } finally {
    conn.close();
  }
}

function countKinds(model: ApiModel): number {
  return new Set(model.resources.map((r) => `${r.group}/${r.names.kind}`)).size;
}

/**
 * Where `kubegen sample` reads its kinds: CRD files or folders (with `skipNonCrds`, the other documents of an install
 * bundle are passed over, each named on stderr), or a TypeScript apis folder.
 */
export type SampleInput = { crds: string[]; skipNonCrds?: boolean } | { apis: string };

/**
 * `kubegen sample --crds FILE…` or `--apis DIR`: a minimal valid object per kind (its storage version, or
 * `version`), as YAML documents on stdout, in group/kind order. `kind` limits it to one kind (exit 1 when no input
 * has it).
 */
export async function runSample(input: SampleInput, opts: { kind?: string; version?: string }, io: CommandIO, pipeline: Pipeline): Promise<number> {
  const onSkip = (s: SkippedInput): void => {
    // As `generate` does: kustomization files in a CRD folder are expected and go unmentioned, skipped documents not.
    if (s.line > 0) io.stderr.write(`skipped ${displayPath(s.file, io.cwd)}:${s.line}: ${s.reason}\n`);
  };
  const model =
    'crds' in input
      ? await pipeline.parseCrdPaths(input.crds, { ...(input.skipNonCrds ? { skipNonCrds: true } : {}), onSkip, onWarning: yamlWarnings(io) })
      : await (pipeline.parseApis ?? defaultPipeline.parseApis!)(input.apis, {});
  const where = 'crds' in input ? input.crds.join(', ') : input.apis;
  const docs: string[] = [];
  for (const r of model.resources) {
    if (opts.kind !== undefined && r.names.kind !== opts.kind) continue;
    const version = r.versions.find((v) => (opts.version !== undefined ? v.name === opts.version : v.storage));
    if (!version) {
      if (opts.version !== undefined) throw new CliInputError(`${r.names.kind}.${r.group} has no version ${opts.version} (it has ${r.versions.map((v) => v.name).join(', ')})`);
      continue;
    }
    const kindVersion = { resource: r, version };
    // Checked with the kind's own validation (schema and CEL rules, as the apiserver runs them); what the sample
    // still breaks is named on stderr, the sample printed all the same.
    const validator = await sampleValidator(kindVersion).catch((err: unknown) => {
      io.stderr.write(`warning: sample ${r.names.kind}.${r.group}/${version.name} is not checked: ${err instanceof Error ? err.message : String(err)}\n`);
      return undefined;
    });
    const onUnsatisfied = (u: UnsatisfiedRule): void => {
      io.stderr.write(`warning: sample ${r.names.kind}.${r.group}/${version.name}: ${describeUnsatisfied(u)}\n`);
    };
    docs.push(sampleYaml(kindVersion, validator ? { validator, onUnsatisfied } : {}));
  }
  if (docs.length === 0) {
    const hint = opts.kind !== undefined ? didYouMean(opts.kind, model.resources.map((r) => r.names.kind)) : '';
    throw new CliInputError(opts.kind !== undefined ? `no kind ${opts.kind} in ${where}${hint}` : `no kind found in ${where}`);
  }
  io.stdout(docs.map((d) => `---\n${d}`).join(''));
  return ExitCode.ok;
}

/** Prints what the YAML reader found dubious (`warning: file:line:column: …`), unless quiet. */
export function yamlWarnings(io: CommandIO, quiet = false): (where: SourceLocation, message: string) => void {
  return (where, message) => {
    if (!quiet) io.stderr.write(`warning: ${formatLocation({ ...where, file: displayPath(where.file, io.cwd) })}: ${message}\n`);
  };
}
