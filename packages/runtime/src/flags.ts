/**
 * Go-style boolean flags (`--metrics-secure=false`, as controller-runtime managers take them) for `node:util`
 * `parseArgs`, which only knows `--flag` and, with `allowNegative: true`, `--no-flag`.
 */

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
