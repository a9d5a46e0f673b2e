/**
 * Go-style boolean flags (`--metrics-secure=false`, as controller-runtime managers take them) for `node:util`
 * `parseArgs`, which only knows `--flag` and, with `allowNegative: true`, `--no-flag`; and `parseFlags`, the one
 * command-line reader of the examples and the scaffold.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * Rewrites `--name=true` to `--name` and `--name=false` to `--no-name` for each option of type `boolean` in
 * `options`; every other argument is returned unchanged. Pass the result to `parseArgs` with `allowNegative: true`.
 * Throws a TypeError naming the flag when a boolean flag is given any other value (`--leader-elect=yes`).
 */
export function goBooleanFlags(args: readonly string[], options: Readonly<Record<string, { readonly type: 'string' | 'boolean' }>>): string[] {
  return args.map((arg) => {
    const m = /^--([^=]+)=(.*)$/s.exec(arg);
    if (!m || options[m[1]!]?.type !== 'boolean') return arg;
    const [, name, value] = m;
    if (value === 'true') return `--${name}`;
    if (value === 'false') return `--no-${name}`;
    throw new TypeError(`--${name} takes true or false, got ${JSON.stringify(value)}`);
  });
}

/** The option table of {@link parseFlags}: `node:util` `parseArgs`'s. */
export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * A controller's command line as the examples and the scaffold read it: `argv` (without node and the script) parsed
 * strictly against `options` (no positionals; Go's `--flag=false` and `--no-flag` for booleans), the values typed by
 * the table. Throws a TypeError whose message is the problem and then `usage` — or `usage` alone for `--help`/`-h`
 * when the table has a boolean `help` — so that `main` prints it and exits 2.
 */
export function parseFlags<const O extends FlagOptions>(argv: readonly string[], options: O, usage: string) {
  let parsed;
  try {
    parsed = parseArgs({ args: goBooleanFlags(argv, options), options, strict: true, allowPositionals: false, allowNegative: true });
  } catch (err) {
    throw new TypeError(`${(err as Error).message}\n${usage}`);
  }
  if ((parsed.values as Record<string, unknown>)['help'] === true) throw new TypeError(usage);
  return parsed.values;
}
