/**
 * `explore(opts)`: runs a scenario fault-free (the reference run), then once per fault point, and compares each
 * perturbed run's end state with the reference's (see compare.ts for what is ignored). Points are enumerated
 * systematically over the reference run: `crash@N` for every mutating request N the reference run made (but those
 * equivalent to an earlier one: see {@link crashPoints}), `stale@K` and `gap@K` for every step K. A perturbed run that does not settle is a divergence too, as is a reference run that does not
 * (then nothing else is tried).
 *
 * Runs are in-process on the fake control plane, one at a time; with `envtest`, on one real apiserver, each run in a
 * namespace of its own (envtest-plane.ts). The seed draws the `mutate` sequences and, with a
 * `budget` smaller than the enumeration, the sample of points run (budget.ts); it is recorded in the report and
 * every repro line.
 */
import { apiVersionOf, type ResourceInfo } from '../../client/types.js';
import { compareStates } from './compare.js';
import { describeRequest, type RecordedRequest } from './faults.js';
import { planRuns, type Budget } from './budget.js';
import type { Divergence, ExploreReport, FaultKind } from './report.js';
import { mutationRuns, mutationSequences, withoutObservedGeneration, type MutationSequence } from './mutate.js';
import { runScenario, ScenarioStepError, servedBuiltins, type InjectedFault, type RunInput, type RunResult } from './runner.js';
import { checkScenario, describeStep } from './scenario.js';
import type { Envtest } from '../envtest/envtest.js';
import { checkEnvtestScenario, envtestPlane, waitUntilServing } from './envtest-plane.js';
import { crdResources } from './plane.js';

/** The envtest profiles explore runs on (`cluster` is not one: its controller-manager would collect garbage on its own). */
export type ExploreEnvtestProfile = 'full' | 'crd-only';

/** Options of {@link explore}: what a run needs, plus which faults to try. */
export interface ExploreOptions extends RunInput {
  /** The fault kinds to enumerate (default `crash`, `stale` and `gap`; `mutate` on request). */
  faults?: readonly FaultKind[];
  /** How many `mutate` sequences to draw (default 20), each of three spec changes. */
  mutations?: number;
  /** Only this point (`crash@7`, `stale@2`, `gap@2`, `mutate@3`), as a report's repro gives it. */
  only?: string;
  /**
   * Seeds the `mutate` sequences and, with a budget, the sample of points (default 1): the same seed draws the same;
   * every repro line names it.
   */
  seed?: number;
  /** At most this many runs, or this much time (budget.ts): a seeded sample of the points; the rest is `skipped`. */
  budget?: Budget;
  /**
   * Runs on a real control plane instead of the in-process fake: `true` or a profile (default `full`) starts one
   * envtest with the CRDs for the exploration and stops it at the end; an `Envtest` already started (the CRDs
   * installed; not `cluster`, and `crd-only` only with `garbageCollector: false`) is used as it is. Every run gets a fresh namespace; the scenario must be namespaced, in
   * one namespace (a `ScenarioError` otherwise). `quietMs` defaults to 200 there. See envtest-plane.ts.
   */
  envtest?: boolean | ExploreEnvtestProfile | Envtest;
}

/** A point explore tries: a fault injected into a run, or `mutate@N`, the N-th spec sequence. */
export type ExplorePoint = InjectedFault | { kind: 'mutate'; sequence: number };

/** Parses `crash@7` / `stale@2` / `gap@2` / `mutate@3`; throws a `TypeError` on anything else. */
export function parsePoint(point: string): ExplorePoint {
  const m = /^(crash|stale|gap|mutate)@([1-9]\d*)$/.exec(point.trim());
  if (!m) throw new TypeError(`--only ${point}: expected crash@<request>, stale@<step>, gap@<step> or mutate@<sequence> (1-based)`);
  const n = Number(m[2]);
  if (m[1] === 'crash') return { kind: 'crash', after: n };
  if (m[1] === 'mutate') return { kind: 'mutate', sequence: n };
  return { kind: m[1] as 'stale' | 'gap', step: n };
}

/**
 * The crash points worth trying: after every mutating request of the reference run, except one that left the
 * control plane as the request before it in the same step did (a no-op write: an apply that changed nothing). Crashing
 * there restarts the controllers on the same state at the same step, so it is counted as `skipped`, not run.
 */
export function crashPoints(requests: readonly RecordedRequest[]): { points: InjectedFault[]; equivalent: number } {
  const seen = new Set<string>();
  const points: InjectedFault[] = [];
  let equivalent = 0;
  for (const r of requests) {
    const key = r.revision !== undefined ? `${r.step} ${r.revision}` : undefined;
    if (key !== undefined && seen.has(key)) {
      equivalent++;
      continue;
    }
    if (key !== undefined) seen.add(key);
    points.push({ kind: 'crash', after: r.n });
  }
  return { points, equivalent };
}

/** One run (two for a mutate sequence: it and its fresh twin) of the enumeration. */
interface Task {
  kind: FaultKind;
  cost: number;
  fault?: InjectedFault;
  seq?: MutationSequence;
  n?: number;
}

function skip(report: ExploreReport, kind: FaultKind): void {
  const tally = (report.faults[kind] ??= { tried: 0, divergences: 0 });
  tally.skipped = (tally.skipped ?? 0) + 1;
}

/** Where a divergence's point comes in the enumeration (the reference first). */
function order(tasks: readonly Task[], d: Divergence): number {
  return tasks.findIndex((t) => (t.fault ? pointOf(t.fault) : `mutate@${t.n}`) === d.at.point);
}

const pointOf = (f: InjectedFault): string => (f.kind === 'crash' ? `crash@${f.after}` : `${f.kind}@${f.step}`);

/**
 * Runs the reference and every perturbed run; see the module comment. Throws a `ScenarioError` for a scenario that is
 * not well formed, a `ScenarioStepError` when the control plane refuses a step of the reference run, a `TypeError` for
 * a bad `only`.
 */
export async function explore(opts: ExploreOptions): Promise<ExploreReport> {
  if (!opts.envtest) return exploreOn(opts);
  checkServed(opts);
  const served = servedResources(opts);
  const scenarioNamespace = checkEnvtestScenario(opts.steps, (apiVersion, kind) => served.some((r) => apiVersionOf(r) === apiVersion && r.kind === kind && r.namespaced));
  const given = typeof opts.envtest === 'object' ? opts.envtest : undefined;
  if (given?.profile === 'cluster') throw new TypeError('explore: the envtest `cluster` profile is not supported (its controller-manager collects garbage on its own; use full or crd-only)');
  if (given?.garbageCollector) throw new TypeError('explore: start the crd-only envtest with garbageCollector: false (explore collects garbage itself, between settles)');
  const profile: ExploreEnvtestProfile = typeof opts.envtest === 'string' ? opts.envtest : 'full';
  // Loaded here: the in-process path never needs the envtest harness.
  const { Envtest: EnvtestClass } = await import('../envtest/envtest.js');
  const env = given ?? (await EnvtestClass.start({ profile, crds: opts.crds as object[], ...(profile === 'crd-only' ? { garbageCollector: false } : {}) }));
  try {
    const builtins = env.profile === 'crd-only' ? [] : servedBuiltins(opts);
    const runOpts: ExploreOptions = { ...opts, extraResources: builtins, quietMs: opts.quietMs ?? 200, plane: () => envtestPlane(env, { crds: opts.crds, builtins, scenarioNamespace }) };
    await waitUntilServing(env, opts.crds);
    const report = await exploreOn(runOpts);
    report.controlPlane = `envtest ${env.profile}`;
    return report;
  } finally {
    if (!given) await env.stop();
  }
}

/** Checks the scenario's shape and that every kind it names is served (a CRD given, or a built-in served); throws a `ScenarioError`. */
function checkServed(opts: ExploreOptions): void {
  const served = new Set(servedResources(opts).map((r) => `${apiVersionOf(r)} ${r.kind}`));
  checkScenario(opts.steps, (apiVersion, kind) => served.has(`${apiVersion} ${kind}`));
}

/** Every resource a run serves: each served version of the CRDs, and the built-ins served. */
function servedResources(opts: ExploreOptions): ResourceInfo[] {
  return [...crdResources(opts.crds), ...servedBuiltins(opts)];
}

async function exploreOn(opts: ExploreOptions): Promise<ExploreReport> {
  const started = Date.now();
  const seed = opts.seed ?? 1;
  const kinds = opts.faults ?? ['crash', 'stale', 'gap'];
  const only = opts.only !== undefined ? parsePoint(opts.only) : undefined;
  checkServed(opts);
  const reference = await runScenario(opts);
  const report: ExploreReport = { runs: 1, faults: {}, divergences: [], referenceRequests: reference.requests.map(describeRequest), durationMs: 0, seed };
  if (reference.unsettled) {
    const { step, busy } = reference.unsettled;
    report.divergences.push({ fault: 'reference', at: { point: 'reference', step, stepText: describeStep(opts.steps[step - 1]!) }, diff: [{ object: '(run)', field: '(settle)', reference: 'settled', perturbed: `still busy: ${busy}` }], repro: `--seed ${seed} --faults none` });
    report.durationMs = Date.now() - started;
    return report;
  }
  const points: InjectedFault[] = [];
  if (only && only.kind !== 'mutate') points.push(only);
  else if (!only) {
    if (kinds.includes('crash')) {
      const crash = crashPoints(reference.requests);
      points.push(...crash.points);
      if (crash.equivalent > 0) report.faults.crash = { tried: 0, divergences: 0, skipped: crash.equivalent };
    }
    if (kinds.includes('stale')) for (let k = 1; k <= opts.steps.length; k++) points.push({ kind: 'stale', step: k });
    if (kinds.includes('gap')) for (let k = 1; k <= opts.steps.length; k++) points.push({ kind: 'gap', step: k });
  }
  const tasks: Task[] = points.map((fault) => ({ kind: fault.kind, cost: 1, fault }));
  if (only?.kind === 'mutate' || (!only && kinds.includes('mutate'))) {
    const sequences = mutationSequences(opts.crds, opts.steps, seed, Math.max(opts.mutations ?? 20, only?.kind === 'mutate' ? only.sequence : 0));
    const tried = only?.kind === 'mutate' ? sequences.slice(only.sequence - 1, only.sequence) : sequences;
    report.faults.mutate ??= { tried: 0, divergences: 0 };
    for (const seq of tried) tasks.push({ kind: 'mutate', cost: 2, seq, n: sequences.indexOf(seq) + 1 });
  }
  const plan = planRuns(tasks, only ? undefined : opts.budget, seed);
  for (const t of plan.left) skip(report, t.kind);
  const deadline = opts.budget && 'durationMs' in opts.budget ? started + opts.budget.durationMs : Infinity;
  for (const t of plan.take) {
    if (Date.now() >= deadline) {
      skip(report, t.kind);
      continue;
    }
    const tally = (report.faults[t.kind] ??= { tried: 0, divergences: 0 });
    let d: Divergence | undefined | 'skipped';
    if (t.fault) {
      const run = await runScenario(opts, t.fault);
      d = divergenceOf(opts, reference, run, t.fault, seed);
    } else {
      d = await mutationDivergence(opts, t.seq!, t.n!, seed);
      if (d === 'skipped') continue; // a sequence the control plane refuses: not a run of the fault
    }
    tally.tried++;
    report.runs += t.cost;
    if (d) {
      tally.divergences++;
      report.divergences.push(d);
    }
  }
  // Sampled or cut short: divergences in the order of the enumeration, as an exhaustive run lists them.
  report.divergences.sort((a, b) => order(tasks, a) - order(tasks, b));
  if (opts.budget && !only) report.budget = opts.budget;
  report.durationMs = Date.now() - started;
  return report;
}

/**
 * Runs sequence `n` and its fresh twin (mutate.ts) and compares their end states, `observedGeneration` aside; a
 * sequence either run's control plane refuses is `skipped`.
 */
async function mutationDivergence(opts: ExploreOptions, seq: MutationSequence, n: number, seed: number): Promise<Divergence | undefined | 'skipped'> {
  const { perturbed, fresh } = mutationRuns(opts.steps, seq);
  let a: RunResult;
  let b: RunResult;
  try {
    b = await runScenario({ ...opts, steps: fresh });
    a = await runScenario({ ...opts, steps: perturbed });
  } catch (err) {
    if (err instanceof ScenarioStepError) return 'skipped';
    throw err;
  }
  const diff = a.unsettled
    ? [{ object: '(run)', field: '(settle)', reference: 'settled', perturbed: `still busy after step ${a.unsettled.step}: ${a.unsettled.busy}` }]
    : compareStates(withoutObservedGeneration(b.state), withoutObservedGeneration(a.state));
  if (diff.length === 0) return undefined;
  const specs = seq.specs.map((s) => JSON.stringify(s)).join(' → ');
  return {
    fault: 'mutate',
    at: { point: `mutate@${n}`, step: seq.step, stepText: `${describeStep(opts.steps[seq.step - 1]!)}, then spec ${specs}; reference: a fresh run applying the last spec` },
    diff,
    repro: `--seed ${seed} --only mutate@${n}`,
  };
}

function divergenceOf(opts: ExploreOptions, reference: RunResult, run: RunResult, fault: InjectedFault, seed: number): Divergence | undefined {
  const diff = run.unsettled
    ? [{ object: '(run)', field: '(settle)', reference: 'settled', perturbed: `still busy after step ${run.unsettled.step}: ${run.unsettled.busy}` }]
    : compareStates(reference.state, run.state);
  if (diff.length === 0) return undefined;
  const at =
    fault.kind === 'crash'
      ? crashPoint(opts, run, fault.after)
      : { point: pointOf(fault), step: fault.step, stepText: fault.kind === 'gap' ? gapSteps(opts, fault.step) : describeStep(opts.steps[fault.step - 1]!) };
  return { fault: fault.kind, at, diff, repro: `--seed ${seed} --only ${pointOf(fault)}` };
}

/** The steps a gap at `k` hides: `k` and the next one (when there is one), described. */
function gapSteps(opts: ExploreOptions, k: number): string {
  return opts.steps.slice(k - 1, k + 1).map(describeStep).join('; ');
}

/** Where crash@N hit: the request (as this run made it) and the step it came during. */
function crashPoint(opts: ExploreOptions, run: RunResult, n: number): Divergence['at'] {
  const req = run.requests[n - 1];
  const step = req?.step ?? opts.steps.length;
  return { point: `crash@${n}`, step, stepText: describeStep(opts.steps[step - 1]!), request: n, ...(req ? { requestText: describeRequest(req) } : {}) };
}
