/**
 * `runMain`: how a controller process ends. A manager that failed must not linger half-started (answering probes,
 * holding ports, ignoring SIGTERM): `runMain(main)` runs the process's `main`, and when it rejects logs one error
 * line naming the cause, sets exit code 1 and, should anything still keep the process alive (a stray timer or
 * socket), ends it after `exitGraceMs`, naming what was left. When `main` resolves (a graceful stop), the same
 * bound applies with exit code 0. The scaffold's `main.ts` ends with it.
 *
 * Before `main`, the process takes the runtime's memory policy (`memory-policy.ts`: V8 and malloc settings a
 * controller runs leaner with, added to whatever the caller set, by re-executing the process in place); `memoryPolicy:
 * false` or `KUBEGEN_MEMORY_POLICY=off` skips it.
 */
import { getLogger, type Logger } from '../log.js';
import { applyMemoryPolicy } from './memory-policy.js';
import { LeaderElectionLostError } from './manager.js';
import { ShardLostError } from './manager-sharding.js';

/** Default `exitGraceMs`: how long a finished process may take to end on its own before it is ended. */
export const DEFAULT_EXIT_GRACE_MS = 5_000;

/** Settings of {@link runMain}. */
export interface RunMainOptions {
  /** The logger of the failure line, read when it is written (the process may set up logging in `main`). */
  logger?: () => Logger;
  /** Default 5 s. */
  exitGraceMs?: number;
  /** Apply the runtime's memory policy before `main` (default true; see `memory-policy.ts`). */
  memoryPolicy?: boolean;
}

/** Runs `main` and ends the process as the module comment says. Never rejects. */
export async function runMain(main: () => Promise<void>, opts: RunMainOptions = {}): Promise<void> {
  if (opts.memoryPolicy !== false) applyMemoryPolicy();
  const log = (): Logger => opts.logger?.() ?? getLogger();
  let code = 0;
  try {
    await main();
  } catch (err) {
    code = 1;
    const what = err instanceof LeaderElectionLostError ? 'leader election lost' : err instanceof ShardLostError ? 'shard lease lost' : 'manager failed';
    log().error(what, { error: err });
  }
  process.exitCode = code;
  // Unref'd: it never keeps the process alive itself, and fires only if something else does.
  setTimeout(() => {
    log().error('the process did not end on its own; exiting', { exitCode: code, left: process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap') });
    process.exit(code);
  }, opts.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS).unref();
}
