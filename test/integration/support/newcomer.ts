/**
 * Running commands as a new user would: in a scratch folder outside this repo, with an environment free of what
 * `npm test` adds (this repo's node_modules/.bin on PATH, npm_* variables, NODE_OPTIONS with the test-only export
 * condition, the test runner's context), and — when this machine has one — an older system Node (< 22) as the only
 * `node` on PATH, so that everything a user runs must bring its own Node 24.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** PATH entries that hold a `node` older than 22, e.g. /usr/bin with Debian's Node 20. */
function oldNodeDirs(dirs: readonly string[]): string[] {
  return dirs.filter((d) => {
    const node = path.join(d, 'node');
    if (!fs.existsSync(node)) return false;
    const v = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return /^v(\d+)\./.test(v) && Number(/^v(\d+)\./.exec(v)![1]) < 22;
  });
}

export interface NewcomerEnv {
  env: NodeJS.ProcessEnv;
  /** The `node --version` a bare `node` gives in this environment (e.g. v20.20.2), or '' when there is none. */
  systemNode: string;
}

/** The environment a newcomer's shell has (see the module comment). */
export function newcomerEnv(extra: Record<string, string> = {}): NewcomerEnv {
  const dirs = (process.env['PATH'] ?? '').split(path.delimiter).filter((d) => d && !d.includes(`${path.sep}node_modules${path.sep}`));
  const standard = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
  const all = [...new Set([...dirs, ...standard])].filter((d) => fs.existsSync(d));
  // Where this machine has an old Node, keep only directories whose node (if any) is old: a newer Node on PATH
  // would hide a missing pin. Elsewhere, keep PATH as it is (systemNode then tells which Node the run had).
  const old = oldNodeDirs(all);
  const kept = old.length > 0 ? all.filter((d) => !fs.existsSync(path.join(d, 'node')) || old.includes(d)) : all;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || ['NODE_OPTIONS', 'NODE_TEST_CONTEXT', 'NODE', 'INIT_CWD', 'KUBEGEN_REEXEC', 'KUBEGEN_NODE'].includes(k)) continue;
    env[k] = v;
  }
  env['PATH'] = kept.join(path.delimiter);
  Object.assign(env, extra);
  const systemNode = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout?.trim() ?? '';
  return { env, systemNode };
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cmd args` in `cwd`; throws with the command's output when it exits non-zero (or, with `allowFailure`, only
 * when it could not run or timed out: the caller checks `status`).
 */
export function run(cmd: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; allowFailure?: boolean }): RunResult {
  const res = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env, encoding: 'utf8', timeout: opts.timeoutMs ?? 300_000, maxBuffer: 64 << 20 });
  const out = { status: res.status, stdout: res.stdout ?? '', stderr: res.stderr ?? '' };
  if (res.error || (res.status !== 0 && !opts.allowFailure)) {
    const tail = (s: string): string => s.split('\n').slice(-40).join('\n');
    throw new Error(`\`${cmd} ${args.join(' ')}\` in ${opts.cwd} failed (${res.error?.message ?? `exit ${res.status}`}):\n${tail(out.stdout)}\n${tail(out.stderr)}`);
  }
  return out;
}

/** Total size in bytes of the files under `dir` (symlinks not followed). */
export function treeSize(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += treeSize(p);
    else if (e.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

/** The packages of a `node_modules` folder (scoped ones as `@scope/name`) and their sizes in bytes, largest first. */
export function packageSizes(modules: string): [string, number][] {
  const out: [string, number][] = [];
  for (const e of fs.readdirSync(modules, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const dir = path.join(modules, e.name);
    if (!e.name.startsWith('@')) {
      out.push([e.name, treeSize(dir)]);
      continue;
    }
    for (const s of fs.readdirSync(dir, { withFileTypes: true })) {
      if (s.isDirectory()) out.push([`${e.name}/${s.name}`, treeSize(path.join(dir, s.name))]);
    }
  }
  return out.sort((a, b) => b[1] - a[1]);
}
