/**
 * The esbuild plugin that lets a bundle hold the built-in API's lazily loaded group/version modules.
 *
 * The runtime's generated `KubeClientset` and `KubeInformers` load a group/version's module on first use with a
 * `createRequire` of their own (`LAZY_LOADER`, then `load("./apps/v1/client.js")`): a bundler cannot follow that
 * call, and in a bundle the path would resolve against the bundle's folder. In a module that declares the loader,
 * the plugin turns each `load("<relative path>")` into `require("<relative path>")`, which esbuild follows: the
 * module goes into the bundle, still initialised on first use only (esbuild's lazy `__esm` wrapper).
 *
 * Contract: modules without the declaration are left to esbuild as they are. A module with the declaration whose
 * loader is called with anything but a relative string literal is an error (the generator and this plugin disagree),
 * never a bundle that fails at run time.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { LAZY_LOADER } from '../generate/emit-util.js';

/** `load("./…")` or `load("../…")`, the call `lazyGetter` emits. */
const LOAD_CALL = /\bload\(("\.\.?\/[^"\\]*")\)/g;

/** `source` with its lazy loader's calls made `require`s, or undefined when it declares no lazy loader. */
export function rewriteLazyLoads(source: string, file: string): string | undefined {
  if (!source.includes(LAZY_LOADER)) return undefined;
  const rewritten = source.replace(LAZY_LOADER, '').replace(LOAD_CALL, 'require($1)');
  const left = /\bload\(/.exec(rewritten);
  if (left) throw new Error(`${file}: a call of its lazy loader that is not load("./…"): the bundler cannot follow it`);
  return rewritten;
}

/** The plugin: every `.js` module read, and rewritten when it declares the lazy loader. */
export function lazyLoaders(): Plugin {
  return {
    name: 'kubegen-lazy-loaders',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        const source = await fs.readFile(args.path, 'utf8');
        const contents = rewriteLazyLoads(source, args.path);
        return contents === undefined ? undefined : { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
