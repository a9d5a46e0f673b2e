import { main } from 'kubegen/internal/cli/main.js';
import type { MainIO } from 'kubegen/internal/cli/main.js';

/** Runs the `kubegen` CLI in-process in `cwd`; returns the exit code and what it printed (no real stdout/stderr). */
export async function runCli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: MainIO = { cwd, env: {}, stdout: (s) => void (out += s), stderr: { write: (s: string) => (err += s) }, now: () => 0 };
  const code = await main(argv, io);
  return { code, out, err };
}
