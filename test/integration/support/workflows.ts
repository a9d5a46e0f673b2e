/**
 * Runs a scaffolded project's GitHub Actions workflows on this machine, without GitHub, so that they cannot rot: for
 * every job of every workflow under `.github/workflows/` (files in name order), a fresh `git clone` of the project
 * (what actions/checkout gives a runner: committed files only, no node_modules or dist), then the job's steps in
 * order. A `run:` step runs with GitHub's default shell (`bash --noprofile --norc -eo pipefail`) in the clone, with
 * the workflow's, the job's and the step's `env` and `CI=true`; it fails the run when it exits non-zero. A `uses:`
 * step must be an action this runner knows: actions/checkout (the clone), actions/setup-node (the Node already on
 * PATH runs npm), actions/cache (its `path` must hold the folder the envtest setup fills, and every file its key
 * hashes must exist at that point). A `docker` command is skipped (no Docker daemon here) and reported by name; see
 * support/dockerfile-replay.ts for what stands in for it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { run } from './newcomer.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  'working-directory'?: string;
}

interface Workflow {
  name: string;
  env?: Record<string, string>;
  jobs: Record<string, { name?: string; env?: Record<string, string>; steps: Step[] }>;
}

/** What became of one step. */
export interface StepOutcome {
  /** `<workflow file>/<job id>: <step name>`. */
  where: string;
  outcome: 'ran' | 'skipped' | 'checked';
  /** The step's `run:` script or `uses:` action. */
  command: string;
  /** For `run:` steps: what it printed (stdout and stderr). */
  output: string;
  seconds: number;
}

/** One job's run: its clone and its steps. */
export interface JobRun {
  workflow: string;
  job: string;
  clone: string;
  steps: StepOutcome[];
}

export interface WorkflowRunOptions {
  /** Where the clones go (`<work>/<workflow>-<job>`). */
  work: string;
  /** The environment of a runner (PATH with a Node that runs npm, HOME…). */
  env: NodeJS.ProcessEnv;
  /** Folders the envtest setup fills: an actions/cache step's `path` must contain each. */
  cachedDirs: readonly string[];
  /** Per `run:` step; default 10 minutes. */
  stepTimeoutMs?: number;
}

const KNOWN_ACTIONS = ['actions/checkout', 'actions/setup-node', 'actions/cache'];

/** Commits the project as it is (a repository of its own, made once) and runs every workflow's jobs in fresh clones. */
export function runWorkflows(project: string, opts: WorkflowRunOptions): JobRun[] {
  const git = (args: string[], cwd: string) => run('git', ['-c', 'user.name=kubegen test', '-c', 'user.email=test@kubegen.invalid', ...args], { cwd, env: opts.env });
  if (!fs.existsSync(path.join(project, '.git'))) git(['init', '-q', '-b', 'main'], project);
  git(['add', '-A'], project);
  git(['commit', '-q', '--allow-empty', '-m', 'what the newcomer has'], project);
  const sha = git(['rev-parse', 'HEAD'], project).stdout.trim();
  const dir = path.join(project, '.github/workflows');
  const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  if (files.length === 0) throw new Error(`no workflows in ${dir}`);
  fs.mkdirSync(opts.work, { recursive: true });
  const runs: JobRun[] = [];
  for (const file of files) {
    const wf = parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Workflow;
    for (const [jobId, job] of Object.entries(wf.jobs)) {
      const clone = path.join(opts.work, `${file.replace(/\.ya?ml$/, '')}-${jobId}`);
      git(['clone', '-q', project, clone], opts.work);
      const env: NodeJS.ProcessEnv = { ...opts.env, CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: clone, GITHUB_SHA: sha, RUNNER_OS: 'Linux', ...wf.env, ...job.env };
      const steps = job.steps.map((step, i) => runStep(step, { where: `${file}/${jobId}: ${step.name ?? `step ${i + 1}`}`, clone, env, opts }));
      runs.push({ workflow: file, job: jobId, clone, steps });
    }
  }
  return runs;
}

function runStep(step: Step, c: { where: string; clone: string; env: NodeJS.ProcessEnv; opts: WorkflowRunOptions }): StepOutcome {
  const started = performance.now();
  const command = (step.run ?? step.uses ?? '').trim();
  const done = (outcome: StepOutcome['outcome'], output = ''): StepOutcome => ({ where: c.where, outcome, command, output, seconds: (performance.now() - started) / 1000 });
  if (step.uses !== undefined) {
    const action = step.uses.replace(/@.*$/, '');
    if (!KNOWN_ACTIONS.includes(action)) throw new Error(`${c.where}: unknown action ${step.uses} (this runner knows ${KNOWN_ACTIONS.join(', ')})`);
    if (action === 'actions/cache') checkCache(step, c);
    return done('checked');
  }
  if (step.run === undefined) throw new Error(`${c.where}: neither run nor uses`);
  if (step.run.includes('${{')) throw new Error(`${c.where}: an expression in run: (this runner does not evaluate them; use env:)`);
  if (/^\s*docker\s/.test(step.run)) return done('skipped');
  const cwd = path.join(c.clone, step['working-directory'] ?? '.');
  const res = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
    cwd,
    env: { ...c.env, ...step.env },
    encoding: 'utf8',
    timeout: c.opts.stepTimeoutMs ?? 600_000,
    maxBuffer: 64 << 20,
  });
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (res.error || res.status !== 0) {
    throw new Error(`${c.where}: \`${step.run.trim()}\` failed (${res.error?.message ?? `exit ${res.status}`}):\n${output.split('\n').slice(-60).join('\n')}`);
  }
  return done('ran', output);
}

/** An actions/cache step: its path holds every cached folder; each file its key hashes exists in the clone now. */
function checkCache(step: Step, c: { where: string; clone: string; env: NodeJS.ProcessEnv; opts: WorkflowRunOptions }): void {
  const home = c.env['HOME'] || os.homedir();
  const paths = (step.with?.['path'] ?? '').split('\n').map((p) => p.trim()).filter(Boolean).map((p) => path.resolve(c.clone, p.replace(/^~(?=\/|$)/, home)));
  for (const d of c.opts.cachedDirs) {
    if (!paths.some((p) => d === p || d.startsWith(`${p}${path.sep}`))) throw new Error(`${c.where}: the cache path ${JSON.stringify(step.with?.['path'])} does not hold ${d}`);
  }
  const key = step.with?.['key'] ?? '';
  const hashed = [...key.matchAll(/hashFiles\(([^)]*)\)/g)].flatMap((m) => [...m[1]!.matchAll(/'([^']*)'/g)].map((q) => q[1]!));
  if (hashed.length === 0) throw new Error(`${c.where}: the cache key ${JSON.stringify(key)} hashes no file, so it never changes`);
  for (const f of hashed) {
    if (!fs.existsSync(path.join(c.clone, f))) throw new Error(`${c.where}: the cache key hashes ${f}, which does not exist at this step`);
  }
}
