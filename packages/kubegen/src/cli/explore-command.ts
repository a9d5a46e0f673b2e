/**
 * `kubegen explore --setup <module.js> --crds <file|dir>… --scenario <scenario.yaml> [--faults crash,stale,gap,mutate]
 * [--only <fault>@<point>] [--seed N] [--budget <runs|duration>] [--envtest [full|crd-only]] [--report <file.json>]`: runs the
 * scenario on the in-process fake control plane (with `--envtest`, on one real apiserver, a namespace per run) fault-free, then once per fault point (`@kubegen/runtime/testing/explore`), and prints the summary table and each
 * divergence. Exit 0 when nothing diverged, 1 when anything did, 2 on bad input: a setup module that does not load or
 * has no default function, a CRD or scenario that does not parse or is not well formed (named `file:line:col`, as
 * `kubegen validate` names its problems), a step the control plane refuses in the fault-free run, a scenario
 * `--envtest` cannot run (a cluster-scoped object, more than one namespace).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { lazyPositions, parseDocuments, type JsonPath, type SourceDoc } from '../parse/crd/yaml-source.js';
import { InputError } from '../model/index.js';
import { ExitCode } from './errors.js';
import type { MainIO } from './io.js';
import { CRD_PATHS_OPTION } from './crd-paths-option.js';

export interface ExploreFlags {
  setup: string;
  crds: string[];
  scenario: string;
  faults?: string;
  only?: string;
  seed?: string;
  budget?: string;
  report?: string;
  envtest?: string | boolean;
}

/** Bad input: printed as `error: <message>`, exit 2. */
class ExploreInputError extends Error {}

const FAULTS = ['crash', 'stale', 'gap', 'mutate'] as const;
/** The faults tried without --faults (mutate on request). */
const DEFAULT_FAULTS = ['crash', 'stale', 'gap'];
const MANIFEST_EXT = /\.(ya?ml|json)$/i;
const ENVTEST_PROFILES = ['full', 'crd-only'] as const;

/** Adds `explore` to the command tree. */
export function addExploreCommand(program: Command, io: MainIO, setExit: (code: number) => void): void {
  program
    .command('explore')
    .description('find controller bugs: run a scenario fault-free on an in-process fake control plane (--envtest: a real one), then crash the controllers after each of their writes, restart them onto the state before each step (a lagging apiserver) and hide steps from their watches, and compare every end state with the fault-free one; exit 0 when none diverges, 1 when any does, 2 on bad input')
    .requiredOption('--setup <module>', 'an ES module whose default export setup(mgr) registers the controllers on a Manager')
    .requiredOption(...CRD_PATHS_OPTION)
    .requiredOption('--scenario <file>', 'YAML list of steps: - apply: <object> | - delete: {apiVersion, kind, namespace, name} | - patch: {…, patch: <merge patch>}')
    .option('--faults <list>', `fault kinds to enumerate, comma-separated (${FAULTS.join(', ')}; mutate: 20 sequences of spec changes from the CRD schema, each compared with a fresh run of the last spec)`, DEFAULT_FAULTS.join(','))
    .option('--only <point>', 'run only this fault point, as a report\'s repro names it (crash@7, stale@2, gap@2, mutate@3)')
    .option('--seed <n>', 'seeds the mutate sequences and the sample a --budget takes; recorded in the report and its repro lines', '1')
    .option('--budget <runs|duration>', 'run at most this many runs (200) or for this long (90s, 2m): a sample of the points drawn with --seed; the report counts what it skipped')
    .option('--envtest [profile]', `run on a real control plane instead of the in-process fake: one envtest (${ENVTEST_PROFILES.join(' or ')}; default full, kube-apiserver 1.20 from $KUBEBUILDER_ASSETS; crd-only: 1.36 from $KUBEGEN_ENVTEST_1_36_ASSETS) with the CRDs, a fresh namespace per run; the scenario must be namespaced, in one namespace`)
    .option('--report <file>', 'write the report as JSON: { runs, faults, divergences: [{ fault, at, diff, repro }] }')
    .action(async (flags: ExploreFlags) => {
      try {
        setExit(await runExplore(flags, io));
      } catch (err) {
        if (!(err instanceof ExploreInputError)) throw err;
        io.stderr.write(`error: ${err.message}\n`);
        setExit(ExitCode.usage);
      }
    });
}

async function runExplore(flags: ExploreFlags, io: MainIO): Promise<number> {
  const faults = (flags.faults ?? '').split(',').map((f) => f.trim()).filter(Boolean);
  for (const f of faults) if (!(FAULTS as readonly string[]).includes(f)) throw new ExploreInputError(`--faults: unknown fault ${f} (known: ${FAULTS.join(', ')})`);
  const seed = Number(flags.seed ?? '1');
  if (!Number.isInteger(seed)) throw new ExploreInputError(`--seed must be an integer, not ${flags.seed}`);
  const ex = await import('@kubegen/runtime/testing/explore');
  let budget: ReturnType<typeof ex.parseBudget> | undefined;
  try {
    if (flags.budget !== undefined) budget = ex.parseBudget(flags.budget);
  } catch (err) {
    throw new ExploreInputError((err as Error).message);
  }
  if (flags.only !== undefined) {
    try {
      ex.parsePoint(flags.only);
    } catch (err) {
      throw new ExploreInputError((err as Error).message);
    }
  }
  const envtest = flags.envtest === undefined || flags.envtest === false ? undefined : flags.envtest === true ? 'full' : flags.envtest;
  if (envtest !== undefined && !(ENVTEST_PROFILES as readonly string[]).includes(envtest)) throw new ExploreInputError(`--envtest: unknown profile ${envtest} (known: ${ENVTEST_PROFILES.join(', ')})`);
  const crds = await readCrds(flags.crds, io.cwd);
  const scenario = await readScenario(path.resolve(io.cwd, flags.scenario), io.cwd);
  const setup = await loadSetup(path.resolve(io.cwd, flags.setup), io.cwd);
  let report;
  try {
    report = await ex.explore({ setup: setup as never, crds: crds as never, steps: scenario.steps as never, faults: faults as ('crash' | 'stale' | 'gap' | 'mutate')[], seed, ...(budget ? { budget } : {}), ...(flags.only !== undefined ? { only: flags.only } : {}), ...(envtest ? { envtest: envtest as 'full' | 'crd-only' } : {}) });
  } catch (err) {
    const step = (err as { step?: unknown }).step;
    if (err instanceof ex.ScenarioError || err instanceof ex.ScenarioStepError) {
      const at = typeof step === 'number' && step > 0 ? scenario.locate([step - 1]) : scenario.locate([]);
      throw new ExploreInputError(`${at}: ${(err as Error).message}`);
    }
    throw err;
  }
  io.stdout(ex.formatReport(report));
  if (flags.report !== undefined) {
    const file = path.resolve(io.cwd, flags.report);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  }
  return report.divergences.length > 0 ? ExitCode.failure : ExitCode.ok;
}

const shown = (file: string, cwd: string): string => path.relative(cwd, file) || file;

/** Parses a YAML/JSON file; a parse error names `file:line:col`. */
async function parseFile(file: string, cwd: string): Promise<{ docs: SourceDoc[]; locate: (doc: number, at: JsonPath) => string }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new ExploreInputError(`${shown(file, cwd)}: ${(err as Error).message}`);
  }
  let docs: SourceDoc[];
  try {
    docs = parseDocuments(text, shown(file, cwd));
  } catch (err) {
    throw new ExploreInputError(err instanceof InputError ? err.message : `${shown(file, cwd)}: ${(err as Error).message}`);
  }
  const position = lazyPositions(text);
  return {
    docs,
    locate(doc, at) {
      const { line, column } = position(doc, at);
      return `${shown(file, cwd)}:${line}:${column > 0 ? column : 1}`;
    },
  };
}

/** The CRDs in the given files and folders (folders: their .yaml/.yml/.json files), each checked as the apiserver would. */
async function readCrds(paths: readonly string[], cwd: string): Promise<object[]> {
  const { createValidator } = await import('@kubegen/runtime/validation');
  const files: string[] = [];
  const visit = async (p: string, explicit: boolean): Promise<void> => {
    const stat = await fs.stat(p).catch(() => undefined);
    if (!stat) throw new ExploreInputError(`${shown(p, cwd)}: no such file or folder`);
    if (stat.isDirectory()) for (const e of (await fs.readdir(p)).sort()) await visit(path.join(p, e), false);
    else if (explicit || MANIFEST_EXT.test(p)) files.push(p);
  };
  for (const p of paths) await visit(path.resolve(cwd, p), true);
  const crds: object[] = [];
  for (const file of files) {
    const parsed = await parseFile(file, cwd);
    for (const doc of parsed.docs) {
      const v = doc.value as { kind?: unknown } | null;
      if (!v || typeof v !== 'object' || v.kind !== 'CustomResourceDefinition') continue;
      try {
        await createValidator(v as never);
      } catch (err) {
        throw new ExploreInputError(`${parsed.locate(doc.index, [])}: ${(err as Error).message}`);
      }
      crds.push(v);
    }
  }
  if (crds.length === 0) throw new ExploreInputError(`${paths.join(', ')}: no CustomResourceDefinition found`);
  return crds;
}

/** The scenario file: one YAML document, a list of steps; `locate` names a step's line. */
async function readScenario(file: string, cwd: string): Promise<{ steps: unknown; locate: (at: JsonPath) => string }> {
  const parsed = await parseFile(file, cwd);
  if (parsed.docs.length !== 1) throw new ExploreInputError(`${shown(file, cwd)}: a scenario is one YAML document (a list of steps), found ${parsed.docs.length}`);
  return { steps: parsed.docs[0]!.value, locate: (at) => parsed.locate(0, at) };
}

/** The setup module's default export (or `setup`), a function. */
async function loadSetup(file: string, cwd: string): Promise<(mgr: never) => void | Promise<void>> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ExploreInputError(`${shown(file, cwd)}: cannot load the setup module: ${(err as Error).message}`);
  }
  const fn = mod['default'] ?? mod['setup'];
  if (typeof fn !== 'function') throw new ExploreInputError(`${shown(file, cwd)}: exports no default function setup(mgr)`);
  return fn as (mgr: never) => void | Promise<void>;
}
