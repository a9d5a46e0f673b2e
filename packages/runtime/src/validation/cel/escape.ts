/**
 * Property names as CEL sees them: the apiserver escapes names that are CEL reserved words or contain `.`, `-`, `/`
 * or `__` (k8s.io/apiserver/pkg/cel/escaping.go), so `metadata.namespace` of a schema property `namespace` is written
 * `self.__namespace__` in a rule, and a property `x-y` is `self.x__dash__y`.
 */

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** Whether `name` is a CEL reserved word (escaped as `__name__` among a schema's fields). */
export function isCelReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

const EXPAND: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/**
 * The CEL identifier of a property name, or undefined when the name cannot be expressed in CEL (it starts with a
 * digit or holds a character outside `[a-zA-Z0-9_./-]`); such properties are invisible to rules, as on the server.
 */
export function escapeName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (s) => EXPAND[s]!);
}
