/**
 * Writing and verifying generated YAML (CRDs, RBAC), which lives in folders users also use (`config/crd/bases`,
 * `config/rbac`), unlike the generated-code folder kubegen owns as a whole.
 *
 * Ownership rule: kubegen owns exactly the files whose first line is `YAML_HEADER`. It writes its files (each
 * atomically: temp file in the same folder, then rename), refuses to overwrite a file of the same name without the
 * header (nothing is written then), never touches other files, and — with `prune` — removes owned `.yaml` files it no
 * longer generates (a kind that was removed). `verifyYamlOutput` reports changed and missing files, and owned
 * files that would be pruned as extra; foreign files are ignored.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { YAML_HEADER } from '../../generate/crd/index.js';
import type { GeneratedFile } from '../../generate/index.js';
import { unifiedDiff } from './diff.js';
import type { ChangedFile, VerifyResult } from './verify.js';
import { OutputOwnershipError } from './write.js';

export interface YamlOutputOptions {
  /** Remove owned `.yaml` files of `dir` that are not in `files`. */
  prune?: boolean;
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
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names.sort()) {
    if (keep.has(n) || !/\.ya?ml$/.test(n)) continue;
    const c = await readMaybe(path.join(dir, n));
    if (c && owned(c)) out.push(n);
  }
  return out;
}

/** Checks that every target is absent or ours; throws `OutputOwnershipError` otherwise. */
export async function assertOwnedYaml(dir: string, files: readonly GeneratedFile[]): Promise<void> {
  for (const f of files) {
    const c = await readMaybe(path.join(dir, f.path));
    if (c && !owned(c)) throw new OutputOwnershipError(path.join(dir, f.path), `${f.path} (no "${YAML_HEADER}" first line)`);
  }
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
    for (const n of await ownedStale(dir, new Set(files.map((f) => f.path)))) await fs.rm(path.join(dir, n), { force: true });
  }
  return files.length;
}

/** Compares `dir` with `files` under the ownership rule (read-only). */
export async function verifyYamlOutput(dir: string, files: readonly GeneratedFile[], opts: YamlOutputOptions = {}): Promise<VerifyResult> {
  const changed: ChangedFile[] = [];
  const missing: string[] = [];
  for (const f of files) {
    const c = await readMaybe(path.join(dir, f.path));
    if (c === undefined) missing.push(f.path);
    else if (!c.equals(Buffer.from(f.content, 'utf8'))) changed.push({ path: f.path, diff: unifiedDiff(f.path, c.toString('utf8'), f.content) });
  }
  const extra = opts.prune ? await ownedStale(dir, new Set(files.map((f) => f.path))) : [];
  return { upToDate: changed.length + missing.length + extra.length === 0, changed, missing, extra, expected: files.length };
}
