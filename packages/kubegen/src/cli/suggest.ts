/**
 * "Did you mean …?" for the command line: the closest known name to a mistyped one, every unknown option of a
 * command line found before commander parses it, and option-value parsers for fixed sets of values.
 *
 * Commander reports a missing required option before an unknown one, and only the first unknown one: with
 * `create api --group g --versoin v1 --kidn Foo` it would say "required option '--version' not specified" and
 * nothing about the typos. `unknownOptions` looks at the whole command line first, so every typo is named with its
 * closest option (exit 2, usage).
 */
import { InvalidArgumentError } from 'commander';
import type { Command, Option } from 'commander';
import { closest, didYouMean } from '../model/closest-name.js';

export { closest, didYouMean, editDistance } from '../model/closest-name.js';

/** An unknown option on a command line and the command it was given to. */
export interface UnknownOption {
  /** As typed, without any `=value`. */
  option: string;
  /** The closest option of the command, if any. */
  suggestion: string | undefined;
  /** The command's path, e.g. `kubegen create api`. */
  command: string;
}

/**
 * Every option of `argv` that the command it is given to does not have, in order. `argv` is the command line after
 * the program name; `defaultCommand` is the command run when the first argument is an option. Options after `--`
 * are not looked at (they belong to another program, as in `loadtest -- node controller.js --flag`).
 */
export function unknownOptions(program: Command, argv: readonly string[], defaultCommand?: string): UnknownOption[] {
  let cmd = program;
  let rest = [...argv];
  let extra: readonly Option[] = [];
  for (;;) {
    const first = rest[0];
    if (first === undefined || first === '--') break;
    if (!first.startsWith('-')) {
      const sub = cmd.commands.find((c) => c.name() === first || c.aliases().includes(first));
      if (!sub) break;
      cmd = sub;
      rest = rest.slice(1);
      continue;
    }
    if (cmd === program && defaultCommand !== undefined && !findOption(program.options, first)) {
      // `kubegen --crds x`: the default command's options, and the program's own (`--version`) as suggestions.
      extra = program.options;
      cmd = program.commands.find((c) => c.name() === defaultCommand) ?? program;
    }
    break;
  }
  const known = [...cmd.options, ...extra];
  const longNames = [...known.map((o) => o.long).filter((n): n is string => n !== undefined), '--help'];
  const commandPath = commandName(cmd);
  const unknown: UnknownOption[] = [];
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === '--') break;
    if (!token.startsWith('-') || token === '-' || /^-\d/.test(token)) continue;
    const name = token.startsWith('--') ? token.split('=')[0]! : token.slice(0, 2);
    if (name === '--help' || name === '-h') continue;
    const opt = findOption(known, name);
    if (!opt) {
      // Only long options get a suggestion: a one-letter typo is as close to every short option.
      unknown.push({ option: name, suggestion: name.startsWith('--') ? closest(name, longNames) : undefined, command: commandPath });
      continue;
    }
    // A required value is the next argument even when it starts with '-' (as commander reads it).
    const inline = token.startsWith('--') ? token.includes('=') : token.length > 2;
    if (opt.required && !inline) i++;
  }
  return unknown;
}

function findOption(options: readonly Option[], name: string): Option | undefined {
  return options.find((o) => o.long === name || o.short === name);
}

function commandName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The lines that report `unknown` (exit 2): one per option, then where to find the usage. */
export function formatUnknownOptions(unknown: readonly UnknownOption[]): string {
  const lines = unknown.map((u) => `error: unknown option '${u.option}'${u.suggestion !== undefined ? ` (did you mean ${u.suggestion}?)` : ''}\n`);
  return `${lines.join('')}(run ${unknown[0]?.command ?? 'kubegen'} --help for usage)\n`;
}

/** Option-value parser for `true`/`false` (`--namespaced=false`); anything else is refused with the closer one. */
export function parseBool(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError(`expected true or false${didYouMean(value, ['true', 'false'])}`);
}

/**
 * Option-value parser for a fixed set of values (use with `Option.choices(values)`, which it replaces as the parser
 * so that help still lists the choices): anything else is refused naming the closest one.
 */
export function choiceParser<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if ((values as readonly string[]).includes(value)) return value as T;
    throw new InvalidArgumentError(`expected one of ${values.join(', ')}${didYouMean(value, values)}`);
  };
}
