import { spawnSync } from 'node:child_process';
import { main } from 'kubegen/internal/cli/main.js';
import type { MainIO } from 'kubegen/internal/cli/main.js';
import { CODEGEN_BIN } from './paths.js';

/** Runs the `kubegen` CLI in-process in `cwd`; returns the exit code and what it printed (no real stdout/stderr). */
export async function runCli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: MainIO = { cwd, env: {}, stdout: (s) => void (out += s), stderr: { write: (s: string) => (err += s) }, now: () => 0 };
  const code = await main(argv, io);
  return { code, out, err };
}

/** Runs the `kubegen` binary (packages/kubegen/bin/codegen.js) with this Node in `cwd`, as a user's shell would. */
export function runCodegenBin(cwd: string | undefined, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CODEGEN_BIN, ...args], { ...(cwd !== undefined ? { cwd } : {}), encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
