/** JSON Pointer (RFC 6901): `/a/b~1c/0` addresses `doc.a["b/c"][0]`; `~0` is `~` and `~1` is `/`. */

/** A malformed JSON pointer, or a JSON patch that is malformed or fails (`applyJsonPatch` then applies nothing). */
export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchError';
  }
}

/** Splits a pointer into unescaped reference tokens; `''` is the whole document. Throws `PatchError` if malformed. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`invalid JSON pointer "${pointer}": must be empty or start with '/'`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => {
      if (/~[^01]|~$/.test(t)) throw new PatchError(`invalid JSON pointer "${pointer}": bad escape in "${t}"`);
      return t.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** Escapes one reference token (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Builds a pointer from unescaped tokens. */
export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${escapePointerToken(t)}`).join('');
}
