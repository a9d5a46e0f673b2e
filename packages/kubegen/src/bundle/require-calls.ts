/**
 * The esbuild plugin that lets a bundle hold what a module loads through a `createRequire(import.meta.url)` of its
 * own: the built-in API's lazily loaded group/version modules (`LAZY_LOADER`, then `load("./apps/v1/client.js")`),
 * prom-client's metric classes (metrics/prom.ts), js-yaml loaded on first use (client/kubeconfig-file.ts). A bundler
 * cannot follow such a call, and in a bundle it would resolve against the bundle's folder, not the module's.
 *
 * Contract of {@link rewriteRequireCalls}: in a module that makes a loader with `const NAME =
 * createRequire(import.meta.url);` (or calls `createRequire(import.meta.url)(…)` at once), each call with a string
 * literal naming a module that is not a Node built-in (`node:…`) becomes `require("…")`, which esbuild follows: the
 * module goes into the bundle and is still initialised on first call only (esbuild's lazy wrappers). Other calls (a
 * specifier in a variable, `NAME.resolve`, built-ins) are left to the loader, which stays declared (a loader named
 * `require` is renamed, so the rewritten calls reach esbuild's). A module that declares the generated `LAZY_LOADER`
 * must have no call left: the generator and this plugin disagreeing is an error, never a bundle that fails at run time.
 * Modules without a loader are handed to esbuild as they are.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { LAZY_LOADER } from '../generate/emit-util.js';

const DECLARATION = /\bconst (\w+) = createRequire\(import\.meta\.url\);/g;
const INLINE_CALL = /\bcreateRequire\(import\.meta\.url\)\((["'])([^"'\\]+)\1\)/g;

/** `require("<spec>")` for a module the bundle may hold, or the call as it was for a Node built-in. */
function followed(call: string, spec: string): string {
  return spec.startsWith('node:') ? call : `require(${JSON.stringify(spec)})`;
}

/** `source` with its loaders' calls made `require`s, or undefined when it makes no loader. */
export function rewriteRequireCalls(source: string, file: string): string | undefined {
  if (!source.includes('createRequire(import.meta.url)')) return undefined;
  const names = [...source.matchAll(DECLARATION)].map((m) => m[1]!);
  let out = source.replace(INLINE_CALL, (call, _q: string, spec: string) => followed(call, spec));
  for (const name of names) {
    if (name === 'require') out = out.replace('const require = createRequire(import.meta.url);', 'const requireHere_ = createRequire(import.meta.url);');
    out = out.replace(new RegExp(`(?<![\\w.$])${name}\\((["'])([^"'\\\\]+)\\1\\)`, 'g'), (call, _q: string, spec: string) => followed(call, spec));
  }
  if (source.includes(LAZY_LOADER) && /(?<![\w.$])load\(/.test(out)) {
    throw new Error(`${file}: a call of its lazy loader that is not load("./…"): the bundler cannot follow it`);
  }
  return out;
}

/**
 * The plugin: every `.js` module read once, rewritten when it makes a loader, and handed to esbuild as read otherwise
 * (so esbuild does not read it again).
 */
export function followRequireCalls(): Plugin {
  return {
    name: 'kubegen-require-calls',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        const source = await fs.readFile(args.path, 'utf8');
        return { contents: rewriteRequireCalls(source, args.path) ?? source, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
