/**
 * cel-go's wording for errors, so that what a rule reports matches the apiserver: compile issues as cel-go prints
 * them (`ERROR: <input>:1:6: undefined field 'x'` with the source line and a caret), and `@bufbuild/cel`'s runtime
 * errors renamed to cel-go's (`no such key: x`, `division by zero`, ...).
 */
import type { CheckIssue } from './checker.js';

/** cel-go's `Issues.String()`: each issue with its line and column and a caret under the source. */
export function formatIssues(source: string, issues: readonly CheckIssue[]): string {
  return issues
    .map(({ offset, message }) => {
      const before = source.slice(0, offset);
      const line = before.split('\n').length;
      const lineStart = before.lastIndexOf('\n') + 1;
      const col = offset - lineStart;
      const text = source.split('\n')[line - 1] ?? '';
      return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
    })
    .join('\n');
}

const RENAMES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^field not found: (.*)$/, (m) => `no such key: ${m[1]}`],
  [/^index (-?\d+) out of bounds \[0, -?\d+\)$/, (m) => `index out of bounds: ${m[1]}`],
  [/^\w+ divide by zero$/, () => 'division by zero'],
  [/^\w+ modulus by zero$/, () => 'modulus by zero'],
  [/^int overflow during .*$/, () => 'integer overflow'],
  [/^uint overflow during .*$/, () => 'unsigned integer overflow'],
  [/^found no matching overload for .*$/, () => 'no such overload'],
  [/^unbound function: .*$/, () => 'no such overload'],
];

/** A runtime error's text as cel-go words it. */
export function celGoErrorText(message: string): string {
  for (const [re, rename] of RENAMES) {
    const m = re.exec(message);
    if (m) return rename(m);
  }
  return message;
}
