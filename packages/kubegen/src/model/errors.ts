import type { SourceLocation } from './source-location.js';

/**
 * A problem with the user's input. The CLI prints `message` alone (no stack trace) and exits non-zero;
 * the message always starts with `file:line:column` or `file: <json path>`.
 */
export class InputError extends Error {
  readonly location: SourceLocation;
  constructor(location: SourceLocation, detail: string) {
    super(`${formatLocation(location)}: ${detail}`);
    this.name = 'InputError';
    this.location = location;
  }
}

/** `file:line:column`, or `file` alone when the line is unknown, followed by ` (at <json path>)` when there is one. */
export function formatLocation(loc: SourceLocation): string {
  let s = loc.file;
  if (loc.line > 0) s += `:${loc.line}:${loc.column > 0 ? loc.column : 1}`;
  if (loc.path) s += ` (at ${loc.path})`;
  return s;
}

/**
 * Several problems found in one run (the TypeScript front end reports every one it finds, as controller-gen does),
 * sorted by file, line and column, duplicates dropped. The CLI prints one `error:` line each.
 */
export class InputErrors extends Error {
  readonly errors: readonly InputError[];
  constructor(errors: readonly InputError[]) {
    const seen = new Set<string>();
    const sorted = [...errors]
      .filter((e) => !seen.has(e.message) && seen.add(e.message))
      .sort((a, b) => compareLocations(a.location, b.location) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    super(sorted.map((e) => e.message).join('\n'));
    this.name = 'InputErrors';
    this.errors = sorted;
  }

  /** Throws nothing for no errors, the error itself for one, an `InputErrors` for more. */
  static throwIfAny(errors: readonly InputError[]): void {
    const unique = new InputErrors(errors);
    if (unique.errors.length === 1) throw unique.errors[0]!;
    if (unique.errors.length > 1) throw unique;
  }
}

function compareLocations(a: SourceLocation, b: SourceLocation): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}

/** A wrong command line; printed as one line and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A problem with the user's input or environment that is not tied to a position in a file (a missing path, an
 * unreadable config file). Printed as one line and exits 1, like `InputError`.
 */
export class CliInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliInputError';
  }
}
