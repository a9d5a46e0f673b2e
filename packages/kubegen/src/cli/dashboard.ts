/**
 * `kubegen dashboard [--out <dir>] [--only <file>] [--name <project>]`: the Grafana dashboards and the
 * PrometheusRule of a controller manager (src/monitoring). The project name (dashboard titles and uids, the
 * alerts' `job`) comes from `--name`, else from the nearest kubegen.project.yaml, else none (any job).
 *
 * Without `--out` the files go to stdout, each after a `==> <path> <==` line (as `head` prints several files), or
 * only the one named by `--only`, as is. With `--out`, they are written under it (`grafana/*.json`,
 * `prometheus/prometheus_rule.yaml`, so `--out config` refreshes a scaffolded project), replacing files of the
 * same name: every file goes to a temporary file next to its target first and is renamed only once all were
 * written, so a failure leaves the previous files as they were.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { monitoringFiles } from '../monitoring/index.js';
import { findProjectRoot, ScaffoldError } from '../scaffold/index.js';
import { checkProjectName } from '../scaffold/names.js';
import { PROJECT_FILE, readProjectFile } from '../scaffold/project-file.js';
import { displayPath } from '../config/resolve-config.js';
import { CliInputError, ExitCode, UsageError } from './errors.js';
import { didYouMean } from './suggest.js';

export interface DashboardFlags {
  out?: string;
  only?: string;
  name?: string;
}

/** Runs `kubegen dashboard`; returns the exit code, throws {@link CliInputError} on bad input (nothing written). */
export async function runDashboard(flags: DashboardFlags, io: { cwd: string; stdout: (s: string) => void }): Promise<number> {
  const project = await projectName(flags.name, io.cwd);
  const files = monitoringFiles(project);
  if (flags.only !== undefined) {
    const file = files.find((f) => f.path === flags.only || path.basename(f.path) === flags.only);
    if (!file) {
      const hint = didYouMean(flags.only, [...files.map((f) => path.basename(f.path)), ...files.map((f) => f.path)]);
      throw new UsageError(`--only ${flags.only}: no such file${hint}; one of ${files.map((f) => f.path).join(', ')}`);
    }
    if (flags.out !== undefined) throw new CliInputError('--only prints one file; it does not go with --out');
    io.stdout(file.content);
    return ExitCode.ok;
  }
  if (flags.out === undefined) {
    io.stdout(files.map((f) => `==> ${f.path} <==\n${f.content}`).join('\n'));
    return ExitCode.ok;
  }
  const out = path.resolve(io.cwd, flags.out);
  await writeAll(out, files);
  io.stdout(`wrote ${files.length} files into ${displayPath(out, io.cwd)}${project !== undefined ? ` for project ${project}` : ''}\n`);
  for (const f of files) io.stdout(`  ${f.path}\n`);
  return ExitCode.ok;
}

/** `--name`, else the `projectName` of the nearest kubegen.project.yaml (a malformed one is an error), else none. */
async function projectName(name: string | undefined, cwd: string): Promise<string | undefined> {
  try {
    if (name !== undefined) {
      checkProjectName(name);
      return name;
    }
    let root: string;
    try {
      root = await findProjectRoot(cwd);
    } catch {
      return undefined; // not in a project: dashboards for any job
    }
    const project = (await readProjectFile(root)).projectName;
    try {
      checkProjectName(project);
    } catch (err) {
      throw new ScaffoldError(`${path.join(root, PROJECT_FILE)}: ${(err as Error).message}`);
    }
    return project;
  } catch (err) {
    throw err instanceof ScaffoldError ? new CliInputError(err.message) : err;
  }
}

/** Writes every file to a temporary file beside its target, then renames them all; on failure removes the temporaries. */
async function writeAll(out: string, files: readonly { path: string; content: string }[]): Promise<void> {
  const staged: { tmp: string; target: string }[] = [];
  try {
    for (const f of files) {
      const target = path.join(out, f.path);
      await mkdirFor(target);
      const tmp = path.join(path.dirname(target), `.${path.basename(target)}.kubegen-tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
      staged.push({ tmp, target });
      await fs.writeFile(tmp, f.content, { flag: 'wx' });
      const st = await fs.lstat(target).catch(() => undefined);
      if (st !== undefined && !st.isFile()) throw new CliInputError(`${target} exists and is not a file`);
    }
    for (const s of staged) await fs.rename(s.tmp, s.target);
  } finally {
    await Promise.all(staged.map((s) => fs.rm(s.tmp, { force: true })));
  }
}

async function mkdirFor(target: string): Promise<void> {
  const dir = path.dirname(target);
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new CliInputError(`${dir}: cannot create the folder (a file is in the way)`);
    throw err;
  }
}
