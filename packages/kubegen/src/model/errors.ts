import type { SourceLocation } from './resource.js';

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

export function formatLocation(loc: SourceLocation): string {
  let s = loc.file;
  if (loc.line > 0) s += `:${loc.line}:${loc.column > 0 ? loc.column : 1}`;
  if (loc.path) s += ` (at ${loc.path})`;
  return s;
}
