/**
 * Writing and verifying generated YAML (CRDs, RBAC), which lives in folders users also use (`config/crd/bases`,
 * `config/rbac`), unlike the generated-code folder kubegen owns as a whole.
 *
 * Ownership rule: kubegen owns exactly the regular files whose first line is `YAML_HEADER`. It writes its files
 * (each atomically: temp file in the same folder, then rename), refuses to overwrite a file of the same name without
 * the header (naming every such file; nothing is written then), never touches other files (nor subfolders), and —
 * with `prune` — removes owned `.yaml`/`.yml` files it no longer generates (a kind that was removed), keeping those
 * named in `keep` (what other outputs write into the same folder). `verifyYamlOutput` reports changed and missing
 * files, owned files that would be pruned as extra, and files without the header where a generated file would go as
 * foreign; other files are the user's and ignored.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { YAML_HEADER } from '../generate/crd/index.js';
import type { GeneratedFile } from '../generate/index.js';
import { unifiedDiff } from './diff.js';
import type { ChangedFile, VerifyResult } from './verify.js';
import { OutputOwnershipError } from './write.js';

export interface YamlOutputOptions {
  /** Remove owned `.yaml` files of `dir` that are not in `files` (nor in `keep`). */
  prune?: boolean;
  /** With `prune`: more file names to keep, written into the same folder by another output. */
  keep?: readonly string[];
}

async function readMaybe(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return undefined;
    throw e;
  }
}

function owned(content: Buffer): boolean {
  return content.toString('utf8', 0, Math.min(content.length, 200)).split('\n')[0]?.replace(/\r$/, '') === YAML_HEADER;
}

async function ownedStale(dir: string, keep: Set<string>): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (keep.has(e.name) || !e.isFile() || !/\.ya?ml$/.test(e.name)) continue;
    const c = await readMaybe(path.join(dir, e.name));
    if (c && owned(c)) out.push(e.name);
  }
  return out;
}

function keepSet(files: readonly GeneratedFile[], opts: YamlOutputOptions): Set<string> {
  return new Set([...files.map((f) => f.path), ...(opts.keep ?? [])]);
}

/** The targets among `files` that exist in `dir` and are not kubegen's (no header, or not a regular file), sorted. */
export async function foreignYamlTargets(dir: string, files: readonly GeneratedFile[]): Promise<string[]> {
  const foreign: string[] = [];
  for (const f of files) {
    const st = await fs.lstat(path.join(dir, f.path)).catch((e: unknown) => {
      if ((e as { code?: string }).code === 'ENOENT' || (e as { code?: string }).code === 'ENOTDIR') return undefined;
      throw e;
    });
    if (st === undefined) continue;
    if (!st.isFile() || !owned(await fs.readFile(path.join(dir, f.path)))) foreign.push(f.path);
  }
  return foreign.sort();
}

/** The refusal for `foreign` targets of the YAML folder `dir` (as it is to be shown). */
export function yamlOwnershipError(dir: string, foreign: readonly string[]): OutputOwnershipError {
  return new OutputOwnershipError(
    dir,
    foreign,
    `${dir}: refusing to replace files kubegen did not write (found ${foreign.join(', ')}: no "${YAML_HEADER}" first line); ` +
      `rename them or choose another folder`,
  );
}

/** Checks that every target is absent or ours; throws `OutputOwnershipError` naming every other one. */
export async function assertOwnedYaml(dir: string, files: readonly GeneratedFile[]): Promise<void> {
  const foreign = await foreignYamlTargets(dir, files);
  if (foreign.length > 0) throw yamlOwnershipError(dir, foreign);
}

/** Writes `files` (flat names) into `dir`; see the ownership rule above. Returns the number of files written. */
export async function writeYamlOutput(dir: string, files: readonly GeneratedFile[], opts: YamlOutputOptions = {}): Promise<number> {
  await assertOwnedYaml(dir, files);
  await fs.mkdir(dir, { recursive: true });
  for (const f of files) {
    const target = path.join(dir, f.path);
    const tmp = path.join(dir, `.${f.path}.kubegen-tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await fs.writeFile(tmp, f.content);
      await fs.rename(tmp, target);
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }
  if (opts.prune) {
    for (const n of await ownedStale(dir, keepSet(files, opts))) await fs.rm(path.join(dir, n), { force: true });
  }
  return files.length;
}

/** Compares `dir` with `files` under the ownership rule (read-only). */
export async function verifyYamlOutput(dir: string, files: readonly GeneratedFile[], opts: YamlOutputOptions = {}): Promise<VerifyResult> {
  const changed: ChangedFile[] = [];
  const missing: string[] = [];
  const foreign = await foreignYamlTargets(dir, files);
  for (const f of files) {
    if (foreign.includes(f.path)) continue;
    const c = await readMaybe(path.join(dir, f.path));
    if (c === undefined) missing.push(f.path);
    else if (!c.equals(Buffer.from(f.content, 'utf8'))) changed.push({ path: f.path, diff: unifiedDiff(f.path, c.toString('utf8'), f.content) });
  }
  const extra = opts.prune ? await ownedStale(dir, keepSet(files, opts)) : [];
  const upToDate = changed.length + missing.length + extra.length + foreign.length === 0;
  return { upToDate, changed, missing, extra, foreign, expected: files.length };
}
