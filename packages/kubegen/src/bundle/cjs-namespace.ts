/**
 * The esbuild plugin that gives a dynamically imported CommonJS module, in the bundle, the namespace Node gives it.
 * Node's `import()` of a CommonJS module resolves with `module.exports` as `default` and, as named exports, the names
 * cjs-module-lexer finds in its source (and in the modules it re-exports). esbuild's, with code splitting on, resolves
 * with `default` alone, so `const { X } = await import('a-commonjs-package')` (the runtime's `undici` and
 * `@peculiar/x509`, the tracing SDK, a user's own) would find nothing in the bundle that it finds from tsc's modules.
 *
 * Contract of {@link commonJsNamespaces}: an `import()` (never a static import or a `require`) that resolves to a
 * CommonJS file (`.cjs`, or `.js` whose nearest package.json is not `"type": "module"` and which has no import or
 * export syntax: esbuild may pick a package's ES build that Node would not) is given a module of the plugin's own. It
 * requires the file once and exports `module.exports` as `default` (and as `"module.exports"`, as Node 24 does) and
 * each name the lexer finds as a named export, read once the file has run, as Node does. Names are Node's: re-exports
 * followed (resolved from the re-exporting file), `default` not among them. Other imports are left to esbuild and the
 * other plugins (an optional peer left external stays external).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { answerWith, isAsking, resolveWithout } from './resolve-without.js';

const NAMESPACE = 'kubegen-cjs-namespace';

/** The plugin (see the module comment). */
export function commonJsNamespaces(): Plugin {
  let lexer: Promise<Lex> | undefined;
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || isAsking(args, NAMESPACE)) return undefined;
        const resolved = await resolveWithout(build, args, NAMESPACE);
        if (resolved.errors.length > 0) return undefined; // esbuild reports it, naming the importer
        if (resolved.external || resolved.namespace !== 'file' || !isCommonJs(resolved.path)) return answerWith(resolved);
        lexer ??= import('cjs-module-lexer').then(async ({ init, parse }) => (await init(), parse));
        let names: string[];
        try {
          names = exportNames(resolved.path, await lexer);
        } catch {
          return answerWith(resolved); // import/export syntax: an ES module whatever its package says (a bundler's "module" build)
        }
        return { path: resolved.path, namespace: NAMESPACE, pluginData: names };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: namespaceModule(args.path, args.pluginData as string[]),
        resolveDir: path.dirname(args.path),
        loader: 'js',
      }));
    },
  };
}

/** Whether Node loads `file` as CommonJS. */
export function isCommonJs(file: string): boolean {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    let text: string | undefined;
    try {
      text = readFileSync(path.join(dir, 'package.json'), 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) return (JSON.parse(text) as { type?: unknown }).type !== 'module';
    if (path.dirname(dir) === dir) return true;
  }
}

type Lex = (source: string, name?: string) => { exports: readonly string[]; reexports: readonly string[] };

/** The named exports Node gives `file`: the lexer's names in it and in what it re-exports, `default` left out. */
export function exportNames(file: string, lex: Lex, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const { exports, reexports } = lex(readFileSync(file, 'utf8'), file);
  const names = new Set(exports);
  const requireHere = createRequire(file);
  for (const spec of reexports) {
    let target: string;
    try {
      target = requireHere.resolve(spec);
    } catch {
      continue; // Node skips a re-export it cannot resolve too
    }
    if (isCommonJs(target)) for (const name of exportNames(target, lex, seen)) names.add(name);
  }
  names.delete('default');
  return [...names].sort();
}

/**
 * The module that stands for `file` in the bundle: `default` (and, as Node 24 has it, `"module.exports"`) is its
 * `module.exports`, `names` its named exports.
 */
export function namespaceModule(file: string, names: readonly string[]): string {
  // A `require`, which esbuild bundles and answers with `module.exports` itself (an `import` would give `exports.default`
  // for a module marked `__esModule`).
  const lines = [`const cjs = require(${JSON.stringify(file)});`, 'export default cjs;', 'export { cjs as "module.exports" };'];
  names.forEach((name, i) => lines.push(`const e${i} = cjs[${JSON.stringify(name)}];`, `export { e${i} as ${JSON.stringify(name)} };`));
  return `${lines.join('\n')}\n`;
}
