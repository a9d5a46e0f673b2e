/**
 * Where a scaffolded project installs kubegen from: the npm registry (the default: a version range), or — while the
 * packages are not published, or to try a build of your own — local tarballs (`init --kubegen-from PATH`).
 *
 * PATH is either a folder holding the tarballs `npm pack --workspaces` writes at the root of a kubegen checkout
 * (`kubegen-runtime-<version>.tgz` for `@kubegen/runtime`, `kubegen-<version>.tgz` for the CLI), or such a checkout
 * itself, built (its `packages/runtime` and `packages/kubegen` are packed with `npm pack`). The tarballs
 * are copied into the project's `vendor/kubegen/` and referenced as `file:` dependencies, so the project installs
 * with a plain `npm install`, also after it is moved, committed or built in a container.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ScaffoldError } from './errors.js';
import type { ScaffoldFile } from './files.js';

/** The folder of a scaffolded project that holds the kubegen tarballs. */
export const VENDOR_DIR = 'vendor/kubegen';

export const RUNTIME_PACKAGE = '@kubegen/runtime';
export const CLI_PACKAGE = 'kubegen';

export interface KubegenSource {
  /** package.json specs of `@kubegen/runtime` (a dependency) and `kubegen` (a dev dependency). */
  runtimeSpec: string;
  cliSpec: string;
  /** Files to write into the project (the vendored tarballs); empty for registry installs. */
  files: ScaffoldFile[];
}

/** Registry install: both packages at `range`. */
export function registrySource(range: string): KubegenSource {
  return { runtimeSpec: range, cliSpec: range, files: [] };
}

const RUNTIME_TARBALL = /^kubegen-runtime-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/;
const CLI_TARBALL = /^kubegen-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/;

/**
 * Local install from `from` (a folder of tarballs or a kubegen checkout), preferring tarballs of `preferredVersion`
 * (this CLI's). Throws {@link ScaffoldError} naming what is missing; reads only, writes nothing into the project.
 */
export function localSource(from: string, preferredVersion: string): KubegenSource {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(from);
  } catch {
    throw new ScaffoldError(`--kubegen-from ${from}: no such file or folder`);
  }
  if (!stat.isDirectory()) throw new ScaffoldError(`--kubegen-from ${from}: not a folder (give the folder holding the kubegen tarballs, or a kubegen checkout)`);
  const packed = isCheckout(from) ? packCheckout(from) : undefined;
  try {
    return tarballSource(from, packed ?? from, preferredVersion);
  } finally {
    if (packed) fs.rmSync(packed, { recursive: true, force: true });
  }
}

/** The two tarballs of `tarballDir` (read into memory), or a {@link ScaffoldError} naming what is missing. */
function tarballSource(from: string, tarballDir: string, preferredVersion: string): KubegenSource {
  const names = fs.readdirSync(tarballDir);
  const runtime = pick(names, RUNTIME_TARBALL, preferredVersion);
  const cli = pick(names.filter((n) => !RUNTIME_TARBALL.test(n)), CLI_TARBALL, preferredVersion);
  if (!runtime || !cli) {
    const missing = [!runtime ? 'kubegen-runtime-<version>.tgz' : '', !cli ? 'kubegen-<version>.tgz' : ''].filter(Boolean).join(' and ');
    throw new ScaffoldError(`--kubegen-from ${from}: no ${missing} there (write them with: npm pack --workspaces --pack-destination ${from}, at the root of a kubegen checkout)`);
  }
  if (runtime.version !== cli.version) {
    throw new ScaffoldError(`--kubegen-from ${from}: kubegen ${cli.version} needs @kubegen/runtime ${cli.version}, found only ${runtime.version}`);
  }
  const file = (name: string): ScaffoldFile => ({ path: `${VENDOR_DIR}/${name}`, content: fs.readFileSync(path.join(tarballDir, name)) });
  return {
    runtimeSpec: `file:${VENDOR_DIR}/${runtime.name}`,
    cliSpec: `file:${VENDOR_DIR}/${cli.name}`,
    files: [file(runtime.name), file(cli.name)],
  };
}

function isCheckout(dir: string): boolean {
  return ['packages/runtime/package.json', 'packages/kubegen/package.json'].every((p) => fs.existsSync(path.join(dir, p)));
}

/**
 * Packs a built checkout's two packages into a temporary folder, as they are (`--ignore-scripts`: no rebuild, so a
 * checkout in use by its own tests is never touched). A checkout that was not built is refused with what to run.
 */
function packCheckout(checkout: string): string {
  for (const built of ['packages/runtime/dist/index.js', 'packages/kubegen/dist/cli/main.js']) {
    if (!fs.existsSync(path.join(checkout, built))) {
      throw new ScaffoldError(`--kubegen-from ${checkout}: ${built} is missing; build the checkout first (npm ci && npm run build there)`);
    }
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-pack-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  try {
    execFileSync(npm, ['pack', '--silent', '--ignore-scripts', '--pack-destination', out, path.join(checkout, 'packages/runtime'), path.join(checkout, 'packages/kubegen')], {
      cwd: checkout,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim().split('\n').slice(-3).join(' | ');
    throw new ScaffoldError(`--kubegen-from ${checkout}: npm pack of the checkout failed: ${stderr || (err as Error).message}`);
  }
  return out;
}

interface Tarball {
  name: string;
  version: string;
}

/** The tarball of `preferred` if present, else the one with the highest version. */
function pick(names: readonly string[], pattern: RegExp, preferred: string): Tarball | undefined {
  const found = names.flatMap((name) => {
    const m = pattern.exec(name);
    return m ? [{ name, version: m[1]! }] : [];
  });
  return found.find((t) => t.version === preferred) ?? found.sort((a, b) => compareVersions(b.version, a.version))[0];
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (d !== 0) return d;
  }
  return 0;
}
