/**
 * `pattern` as the apiserver matches it: Go's `regexp` (RE2 syntax and semantics, unanchored `MatchString`), through
 * the `re2js` port, so a pattern means here what it means on the server. ECMAScript differs from RE2 in ways that
 * change results: RE2 has no lookaround or backreferences (the apiserver refuses such a CRD), `\z`, `(?i)`-style
 * flags, `\pL` and `[[:alpha:]]` classes exist only in RE2, `$` matches only at the very end in both (no `m` flag),
 * and `\d`, `\w`, `\s`, `\b` are ASCII-only in RE2. Compiled patterns are cached by source.
 */
import { re2 } from './optional-packages.js';

/** A compiled pattern, or why it does not compile (Go's error text). */
export type CompiledPattern = { test(s: string): boolean; error?: undefined } | { error: string; test?: undefined };

const cache = new Map<string, CompiledPattern>();

/** Compiles (once) a CRD `pattern` with RE2 semantics. */
export function compilePattern(pattern: string): CompiledPattern {
  let c = cache.get(pattern);
  if (!c) {
    try {
      const re = re2().compile(pattern);
      c = { test: (s: string) => re.matcher(s).find() };
    } catch (e) {
      c = { error: e instanceof Error ? e.message : String(e) };
    }
    cache.set(pattern, c);
  }
  return c;
}
