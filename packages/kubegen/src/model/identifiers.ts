/**
 * Identifier rules that both sides need: the parsers reject input names that cannot become identifiers in generated
 * code (`parse/crd/names.ts`), and the generators pick safe names (`generate/emit-util.ts`). Plain data and pure
 * checks, so `parse` and `generate` can both import them without depending on each other.
 */

/** Words that can never be used as a type or value name in generated code. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  // ECMAScript reserved and strict-mode words
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum',
  'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null',
  'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield',
  'let', 'static', 'implements', 'interface', 'package', 'private', 'protected', 'public', 'await', 'arguments',
  'eval', 'undefined', 'NaN', 'Infinity',
  // TypeScript keywords and predefined type names
  'any', 'unknown', 'never', 'object', 'string', 'number', 'boolean', 'symbol', 'bigint', 'type', 'as', 'is',
  'keyof', 'infer', 'readonly', 'declare', 'namespace', 'module', 'abstract', 'asserts', 'constructor', 'get',
  'set', 'from', 'of', 'global', 'require', 'satisfies', 'accessor', 'out', 'override', 'unique',
]);

/** Global names generated code may refer to (or that users expect unshadowed); never used for generated types. */
export const GLOBAL_NAMES: ReadonlySet<string> = new Set([
  'Object', 'Array', 'Record', 'Date', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Promise', 'String', 'Number',
  'Boolean', 'Symbol', 'BigInt', 'Function', 'Error', 'TypeError', 'RangeError', 'JSON', 'Math', 'RegExp',
  'Partial', 'Required', 'Readonly', 'Pick', 'Omit', 'Exclude', 'Extract', 'NonNullable', 'ReturnType',
  'Parameters', 'InstanceType', 'Awaited', 'Iterable', 'Iterator', 'AsyncIterable', 'ArrayLike', 'PropertyKey',
  'Uint8Array', 'ArrayBuffer', 'Buffer', 'Proxy', 'Reflect', 'globalThis', 'console', 'process', 'structuredClone',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `name` may appear unquoted as a property key (`foo`), i.e. it is an ASCII identifier name. */
export function isIdentifierName(name: string): boolean {
  return IDENTIFIER.test(name);
}
