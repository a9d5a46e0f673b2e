import { CliInputError, InputError, InputErrors, UsageError } from '../model/errors.js';
import { OutputOwnershipError } from '../output/write.js';

export { CliInputError, UsageError } from '../model/errors.js';

/** Exit codes of `codegen`. */
export const ExitCode = {
  ok: 0,
  /** Bad input (CRD files, config file), an output folder kubegen does not own, or `verify` found differences. */
  failure: 1,
  /** Wrong command line: unknown flag, missing `--crds`/`--out` and no config file. */
  usage: 2,
  /** A bug in kubegen: message plus "please report" (stack only with `KUBEGEN_DEBUG=1`). */
  internal: 3,
} as const;

/** Node errors about the user's files (a path that does not exist, no permission) are input errors, not bugs. */
const USER_FS_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'ENOSPC', 'EROFS', 'EEXIST', 'ENOTEMPTY', 'EBUSY']);

/**
 * Prints `err` as `error: <message>` on `stderr` and returns the exit code. Never prints a stack trace for input
 * errors; internal errors get "please report" and their stack only when `debug` is set.
 */
export function reportError(err: unknown, stderr: (s: string) => void, debug: boolean): number {
  if (err instanceof UsageError) {
    stderr(`error: ${err.message}\n`);
    return ExitCode.usage;
  }
  if (err instanceof InputErrors) {
    for (const e of err.errors) stderr(`error: ${oneLine(e.message)}\n`);
    if (debug && err.stack) stderr(err.stack + '\n');
    return ExitCode.failure;
  }
  // Several input problems of one run (every output folder kubegen refuses): one line each.
  if (err instanceof AggregateError && err.errors.length > 0 && err.errors.every(isInputError)) {
    for (const e of err.errors as Error[]) stderr(`error: ${oneLine(e.message)}\n`);
    if (debug && err.stack) stderr(err.stack + '\n');
    return ExitCode.failure;
  }
  if (isInputError(err)) {
    stderr(`error: ${oneLine(err.message)}\n`);
    if (debug && err.stack) stderr(err.stack + '\n');
    return ExitCode.failure;
  }
  const fsCode = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (err instanceof Error && typeof fsCode === 'string' && USER_FS_CODES.has(fsCode)) {
    stderr(`error: ${oneLine(err.message)}\n`);
    if (debug && err.stack) stderr(err.stack + '\n');
    return ExitCode.failure;
  }
  const message = err instanceof Error ? err.message : String(err);
  stderr(`error: internal error: ${oneLine(message)}\n`);
  stderr('This is a bug in kubegen; please report it with the command and input that caused it.\n');
  if (debug) stderr(`${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
  else stderr('Set KUBEGEN_DEBUG=1 to print the stack trace.\n');
  return ExitCode.internal;
}

function isInputError(err: unknown): err is Error {
  if (err instanceof InputError || err instanceof CliInputError || err instanceof OutputOwnershipError) return true;
  // An InputError from a second copy of the module (e.g. a linked kubegen) still counts.
  return err instanceof Error && err.name === 'InputError';
}

/** Error messages are printed as one line: the first non-empty line (a YAML code frame below it is dropped). */
function oneLine(message: string): string {
  const first = message.split('\n').find((l) => l.trim() !== '')?.trimEnd() ?? message;
  return first.endsWith(':') ? first.slice(0, -1) : first;
}
