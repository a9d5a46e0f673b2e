/**
 * `kubegen bundle`: a controller's production build for its image. Its compiled entry (`dist/src/main.js`) and
 * everything that entry imports, `@kubegen/runtime` included, are bundled by esbuild into one ES module
 * (`dist/image/main.js`) with source maps. What the runtime loads only when it is used (validation and CEL, YAML, the
 * webhook server's CRD checks, certificates, …) stays in chunks of its own, loaded on first use as before.
 *
 * Why: the same controller then starts with less CPU and memory than from its hundreds of modules, because Node's
 * module loader has one module to link instead of 200 (docs/loadtest.md has the figures: `npm run bench:startup`).
 *
 * Contract of {@link bundleForImage}:
 * - Follows static imports, dynamic imports of string literals (one of a CommonJS module resolves with Node's
 *   namespace of it, named exports and `default`: cjs-namespace.ts), and what a module loads with a `createRequire` of
 *   its own by a string literal (require-calls.ts: the built-in API's lazily loaded group/version modules,
 *   prom-client's classes). The runtime's optional peer dependencies (OpenTelemetry, undici, certificates) are
 *   bundled when the project has them installed (optional-peers.ts), in the chunk that loads them on first use. Left
 *   to be loaded from `node_modules` at run time: optional peers the project has not installed (the runtime's loader
 *   then says what to install, when asked for), the packages `external` names, and what is required by a specifier
 *   in a variable. So the image keeps the project's production `node_modules` (the scaffold's Dockerfile does), and
 *   the bundle runs from inside the project.
 * - Writes `<out>/<entry's name>.js`, its chunks, a `.map` beside each (the compiled files' own source maps followed
 *   back to the TypeScript; sources not embedded) and the marker file {@link BUNDLE_MARKER}; every `.js` starts with
 *   the generated header. The folder is replaced as a whole, atomically (output/write.ts); a folder that exists
 *   without the marker is refused (`OutputOwnershipError`), and nothing is written.
 * - Input esbuild refuses (a syntax error, an import it cannot resolve) throws `InputErrors` naming file:line:column,
 *   and nothing is written. The same input gives the same bytes (chunk names are content hashes).
 */
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { BuildFailure, Message } from 'esbuild';
import { HEADER } from '../generate/emit-util.js';
import { CliInputError, InputError, InputErrors } from '../model/errors.js';
import { isCode, OutputOwnershipError, replaceFolder } from '../output/write.js';
import { commonJsNamespaces } from './cjs-namespace.js';
import { bundleInstalledPeers } from './optional-peers.js';
import { followRequireCalls } from './require-calls.js';

/** The marker file that says "this folder is the bundle `kubegen bundle` writes". */
export const BUNDLE_MARKER = '.kubegen-bundle';

const MARKER_CONTENT =
  '# This folder is the production bundle `kubegen bundle` writes (npm run build), replaced as a whole on every run.\n' +
  '# Do not edit files here: changes are lost. A folder without this file is never replaced.\n';

/** What to bundle, from where, into where. */
export interface BundleOptions {
  /** The project's folder: paths are relative to it, and packages resolve from it. */
  cwd: string;
  /** The compiled entry point. Default `dist/src/main.js`. */
  entry?: string;
  /** The output folder. Default `dist/image`. */
  out?: string;
  /** More packages to leave to `node_modules` (each with its subpaths). */
  external?: readonly string[];
}

/** What {@link bundleForImage} wrote. */
export interface BundleResult {
  /** The output folder (absolute). */
  out: string;
  /** The bundle's entry file, relative to `cwd` (`dist/image/main.js`). */
  main: string;
  /** The `.js` files written (the entry and its chunks). */
  chunks: number;
  /** Bytes of JavaScript written (source maps not counted). */
  bytes: number;
  /** The packages left to `node_modules`: the optional peers not installed, then `external`'s. */
  external: string[];
  /** esbuild's warnings, one line each (`file:line:col: text`). */
  warnings: string[];
}

/** Bundles `entry` into `out` (see the module comment). */
export async function bundleForImage(opts: BundleOptions): Promise<BundleResult> {
  const entry = path.resolve(opts.cwd, opts.entry ?? 'dist/src/main.js');
  const out = path.resolve(opts.cwd, opts.out ?? 'dist/image');
  const stat = await fs.stat(entry).catch((err: unknown) => {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  });
  if (!stat) throw new CliInputError(`${path.relative(opts.cwd, entry)}: no such file (compile the project first: tsc)`);
  if (!stat.isFile()) throw new CliInputError(`${path.relative(opts.cwd, entry)}: not a file`);
  await assertBundleFolder(out);
  const peersLeft = new Set<string>();
  const esbuild = await import('esbuild');
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: opts.cwd,
      entryPoints: [entry],
      outdir: out,
      write: false,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      sourcemap: 'linked',
      sourcesContent: false,
      // A `require` for what is still required at run time (Node built-ins, a specifier in a variable): esbuild's
      // own shim throws in an ES module without one.
      banner: { js: `${HEADER}\nimport { createRequire as createRequire_ } from "node:module";\nconst require = createRequire_(import.meta.url);` },
      external: [...(opts.external ?? [])],
      plugins: [commonJsNamespaces(), bundleInstalledPeers(runtimeOptionalPeers(opts.cwd), peersLeft), followRequireCalls()],
      logLevel: 'silent',
    });
  } catch (err) {
    const failure = err as Partial<BuildFailure>;
    if (!Array.isArray(failure.errors) || failure.errors.length === 0) throw err;
    throw new InputErrors(failure.errors.map((m) => new InputError(messageLocation(m, opts.cwd, entry), m.text)));
  }
  const files = result.outputFiles.map((f) => ({ path: path.relative(out, f.path).split(path.sep).join('/'), content: f.text }));
  const js = files.filter((f) => f.path.endsWith('.js'));
  await replaceFolder(out, [...files, { path: BUNDLE_MARKER, content: MARKER_CONTENT }]);
  return {
    out,
    main: path.relative(opts.cwd, path.join(out, `${path.basename(entry, path.extname(entry))}.js`)),
    chunks: js.length,
    bytes: js.reduce((n, f) => n + Buffer.byteLength(f.content), 0),
    external: [...[...peersLeft].sort(), ...(opts.external ?? [])],
    warnings: result.warnings.map((m) => formatMessage(m, opts.cwd, entry)),
  };
}

/**
 * The optional peer dependencies of the `@kubegen/runtime` the project resolves (its package.json's
 * `peerDependenciesMeta`); none when the project has no runtime.
 */
export function runtimeOptionalPeers(cwd: string): string[] {
  let manifest: string;
  try {
    manifest = createRequire(path.join(cwd, 'package.json')).resolve('@kubegen/runtime/package.json');
  } catch {
    return [];
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  return Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional === true)
    .map(([name]) => name)
    .sort();
}

/** Refuses an output folder that exists without the bundle's marker (an empty folder is fine). */
async function assertBundleFolder(out: string): Promise<void> {
  let entries: string[];
  try {
    const st = await fs.lstat(out);
    if (!st.isDirectory()) throw new OutputOwnershipError(out, `${path.basename(out)} is not a folder`);
    entries = (await fs.readdir(out)).sort();
  } catch (err) {
    if (isCode(err, 'ENOENT')) return;
    throw err;
  }
  if (entries.length === 0 || entries.includes(BUNDLE_MARKER)) return;
  throw new OutputOwnershipError(
    out,
    entries,
    `${out}: not a folder kubegen bundle wrote (no ${BUNDLE_MARKER}; it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); nothing was written`,
  );
}

/** Where an esbuild message points: its file:line:column (column 1-based), or the entry when it names none. */
function messageLocation(m: Message, cwd: string, entry: string): { file: string; line: number; column: number } {
  if (!m.location) return { file: path.relative(cwd, entry), line: 0, column: 0 };
  return { file: m.location.file, line: m.location.line, column: m.location.column + 1 };
}

function formatMessage(m: Message, cwd: string, entry: string): string {
  const at = messageLocation(m, cwd, entry);
  return at.line > 0 ? `${at.file}:${at.line}:${at.column}: ${m.text}` : `${at.file}: ${m.text}`;
}
