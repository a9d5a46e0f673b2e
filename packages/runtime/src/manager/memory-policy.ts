/**
 * The memory policy of a controller process, whatever its caller's flags (issue 43). V8 sizes its young generation
 * and optimizes on a compiler thread by defaults made for short, bursty programs: a controller started as a bare
 * `node dist/main.js` grows its young generation to 16 MB during start-up and keeps it, and glibc gives each thread an
 * arena of its own; the same controller runs in about two thirds of that memory for the same CPU with
 * `--max-semi-space-size=1 --no-concurrent-recompilation` and `MALLOC_ARENA_MAX=2` (bench:sample-controller). These
 * can only be set when the process starts — V8 reads them once, glibc too —, so `applyMemoryPolicy` re-executes the
 * process in place (`process.execve`: the same pid, arguments and environment) with whichever of them the caller did
 * not set; a flag or variable the caller set (on the command line or in `NODE_OPTIONS`) is kept as the caller set it.
 *
 * Contract: returns normally when nothing is missing, when `KUBEGEN_MEMORY_POLICY` is `off` (or `applied`: the
 * re-executed process), or where `process.execve` does not exist (Node < 23.11); otherwise it does not return.
 * Call it before the process has opened anything (`runMain` does, before `main`).
 */

/** The V8 flags of the policy (Node's command line; `--no-concurrent-recompilation` is refused in NODE_OPTIONS). */
export const MEMORY_POLICY_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--no-concurrent-recompilation'];
/** The environment of the policy: glibc's malloc arenas. */
export const MEMORY_POLICY_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
/** `off` turns the policy off; the re-executed process has `applied`. */
export const MEMORY_POLICY_VARIABLE = 'KUBEGEN_MEMORY_POLICY';

/** The flag's name without its value and without a `no-` prefix (`--max-semi-space-size`, `--concurrent-recompilation`). */
function flagName(flag: string): string {
  return flag.split('=')[0]!.replace(/^--no-/, '--').replace(/_/g, '-');
}

/** What the policy would add to a process started with `execArgv` and `env` (nothing to add: empty lists). */
export function missingMemoryPolicy(execArgv: readonly string[], env: NodeJS.ProcessEnv): { flags: string[]; env: Record<string, string> } {
  const given = new Set([...execArgv, ...(env['NODE_OPTIONS'] ?? '').split(/\s+/)].filter((a) => a.startsWith('--')).map(flagName));
  return {
    flags: MEMORY_POLICY_FLAGS.filter((f) => !given.has(flagName(f))),
    env: Object.fromEntries(Object.entries(MEMORY_POLICY_ENV).filter(([k]) => env[k] === undefined)),
  };
}

/** Re-executes the process with the policy's missing settings (see the module comment). */
export function applyMemoryPolicy(): void {
  const state = process.env[MEMORY_POLICY_VARIABLE];
  if (state === 'off' || state === 'applied') return;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function') return;
  const missing = missingMemoryPolicy(process.execArgv, process.env);
  if (missing.flags.length === 0 && Object.keys(missing.env).length === 0) return;
  execve.call(process, process.execPath, [process.execPath, ...missing.flags, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    ...missing.env,
    [MEMORY_POLICY_VARIABLE]: 'applied',
  });
}
