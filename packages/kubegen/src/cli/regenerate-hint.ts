/**
 * What `kubegen verify` says when outputs differ: which folders, how, and the command that brings them up to date.
 *
 * The command is `npm run generate` when the working directory holds a package.json whose `generate` script runs
 * kubegen with the arguments `verify` got (a scaffolded project: `"generate": "kubegen"`, and `npm run verify` runs
 * `kubegen verify` in the same folder), else `npx kubegen generate` followed by `verify`'s arguments. Arguments that
 * only change what is printed (`--quiet`, `--verbose`, `--explain`) are left out of both.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { VerifyResult } from '../output/verify.js';

/** Flags that change what a run prints, not what it writes. */
const OUTPUT_ONLY_FLAGS = new Set(['-q', '--quiet', '-v', '--verbose', '--explain']);

/**
 * The command that updates the outputs `verify` checked. `argv` is verify's command line (after the program name,
 * `verify` included); undefined means unknown (then plain `npx kubegen generate`).
 */
export async function regenerateCommand(argv: readonly string[] | undefined, cwd: string): Promise<string> {
  const args = verifyArguments(argv ?? ['verify']);
  const script = await generateScript(cwd);
  if (script !== undefined && sameTokens(script, args)) return 'npm run generate';
  return ['npx', 'kubegen', 'generate', ...args.map(shellQuote)].join(' ');
}

/** `argv` without the `verify` command itself and without output-only flags. */
function verifyArguments(argv: readonly string[]): string[] {
  const i = argv.indexOf('verify');
  const rest = i >= 0 ? [...argv.slice(0, i), ...argv.slice(i + 1)] : [...argv];
  return rest.filter((a) => !OUTPUT_ONLY_FLAGS.has(a));
}

/**
 * The arguments of the `generate` script of `<cwd>/package.json` when it runs kubegen's generate (`kubegen`,
 * `codegen`, `npx kubegen`, each optionally followed by `generate`); undefined otherwise.
 */
async function generateScript(cwd: string): Promise<string[] | undefined> {
  let pkg: unknown;
  try {
    pkg = JSON.parse(await fs.readFile(path.join(cwd, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const script = (pkg as { scripts?: Record<string, unknown> } | null)?.scripts?.['generate'];
  if (typeof script !== 'string') return undefined;
  let tokens = script.trim().split(/\s+/);
  if (tokens[0] === 'npx') tokens = tokens.slice(1);
  if (tokens[0] !== 'kubegen' && tokens[0] !== 'codegen') return undefined;
  tokens = tokens.slice(1);
  if (tokens[0] === 'generate') tokens = tokens.slice(1);
  if (tokens.some((t) => /["'`$\\;&|<>()]/.test(t))) return undefined; // more than plain words: not compared
  return tokens.filter((t) => !OUTPUT_ONLY_FLAGS.has(t));
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `error:` lines (without the prefix) that end a failed verify: the folders holding files kubegen did not write
 * where it would write, then the folders that are out of date with their counts, each pointing at `command`.
 * `folders` pairs each output folder, as shown, with its result.
 */
export function verifySummary(folders: readonly (readonly [string, VerifyResult])[], command: string): string[] {
  const lines: string[] = [];
  for (const [dir, r] of folders) {
    if (r.foreign.length === 0) continue;
    const them = r.foreign.length === 1 ? 'it' : 'them';
    lines.push(`${dir}: ${r.foreign.join(', ')} not written by kubegen (generate refuses to replace ${them}); move ${them} out of the folder, then run \`${command}\``);
  }
  const stale: { dir: string; counts: string }[] = [];
  for (const [dir, r] of folders) {
    const counts = [
      r.changed.length ? `${r.changed.length} changed` : '',
      r.extra.length ? `${r.extra.length} extra` : '',
      r.missing.length ? `${r.missing.length} missing` : '',
    ].filter(Boolean);
    if (counts.length > 0) stale.push({ dir, counts: counts.join(', ') });
  }
  if (stale.length === 1) {
    lines.push(`${stale[0]!.dir} is out of date (${stale[0]!.counts}); run \`${command}\` to update it`);
  } else if (stale.length > 1) {
    const named = stale.map((s) => `${s.dir} (${s.counts})`);
    lines.push(`${named.slice(0, -1).join(', ')} and ${named[named.length - 1]} are out of date; run \`${command}\` to update them`);
  }
  return lines;
}
