import { createTwoFilesPatch } from 'diff';

/**
 * A `diff -u` style patch from `actual` (on disk) to `expected` (generated), with `a/<file>` and `b/<file>` names
 * and 3 lines of context. Pure: compares two strings, reads nothing.
 */
export function unifiedDiff(file: string, actual: string, expected: string): string {
  const patch = createTwoFilesPatch(`a/${file}`, `b/${file}`, actual, expected, undefined, undefined, { context: 3 });
  // The diff package starts patches with a `====…` separator line; `diff -u` and `git diff` do not.
  return patch.replace(/^=+\n/, '');
}
