import type { Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { GeneratedFile } from '../generate/index.js';
import { withMarker } from './output-files.js';
import { unifiedDiff } from './diff.js';
import { isCode, isGeneratedFile } from './write.js';

/**
 * Comparison of an output folder with what the generator would write now (`kubegen verify`).
 * Read-only: never changes the folder. The expected set is the generated files plus the marker file
 * (`MARKER_FILE` in `output/output-files.ts`), i.e. exactly what `writeOutput` would leave behind. Files on disk
 * beyond it are `extra` when kubegen wrote them (stale output `generate` removes) and `foreign` otherwise (files
 * kubegen did not write, which make `generate` refuse the folder).
 */

export interface ChangedFile {
  /** `/`-separated path relative to the output folder. */
  path: string;
  /** Unified diff from the file on disk (`a/<path>`) to the generated content (`b/<path>`). */
  diff: string;
}

/** What {@link verifyOutput} found: whether the folder is current, and the changed, missing and extra files. */
export interface VerifyResult {
  /** True when the folder is byte-identical to the expected files (no changed, missing, extra or foreign file). */
  upToDate: boolean;
  /** Files on disk whose content differs, sorted by path. */
  changed: ChangedFile[];
  /** Expected files that are not on disk, sorted. */
  missing: string[];
  /** Generated files on disk the generator would not write now (stale output `generate` removes), sorted. */
  extra: string[];
  /** Files (or symlinks, sockets…) on disk kubegen did not write, sorted: `generate` refuses the folder for them. */
  foreign: string[];
  /** Number of files that were expected. */
  expected: number;
}

/** Compares `outDir` with `files`. A missing folder is not an error: every file is then reported missing. */
export async function verifyOutput(outDir: string, files: readonly GeneratedFile[]): Promise<VerifyResult> {
  const out = path.resolve(outDir);
  const expected = withMarker(files);
  const entries = await listEntries(out);
  const onDisk = new Set(entries.keys());
  const changed: ChangedFile[] = [];
  const missing: string[] = [];
  for (const f of expected) {
    if (!onDisk.has(f.path)) {
      missing.push(f.path);
      continue;
    }
    onDisk.delete(f.path);
    const actual = await fs.readFile(path.join(out, ...f.path.split('/')));
    if (!actual.equals(Buffer.from(f.content, 'utf8'))) {
      changed.push({ path: f.path, diff: unifiedDiff(f.path, actual.toString('utf8'), f.content) });
    }
  }
  const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  changed.sort((a, b) => byPath(a.path, b.path));
  missing.sort(byPath);
  const extra: string[] = [];
  const foreign: string[] = [];
  for (const p of [...onDisk].sort(byPath)) (await isGeneratedFile(out, p, entries.get(p)!) ? extra : foreign).push(p);
  const upToDate = changed.length + missing.length + extra.length + foreign.length === 0;
  return { upToDate, changed, missing, extra, foreign, expected: expected.length };
}

/** Every non-directory entry under `root`, as sorted `/`-separated relative paths; [] when `root` does not exist. */
export async function listFiles(root: string): Promise<string[]> {
  return [...(await listEntries(root)).keys()];
}

/** Every non-directory entry under `root` by sorted `/`-separated relative path; empty when `root` does not exist. */
async function listEntries(root: string): Promise<Map<string, Dirent>> {
  const result = new Map<string, Dirent>();
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(rel === '' ? root : path.join(root, ...rel.split('/')), { withFileTypes: true });
    } catch (e) {
      if (rel === '' && isCode(e, 'ENOENT')) return;
      throw e;
    }
    for (const ent of entries) {
      const relPath = rel === '' ? ent.name : `${rel}/${ent.name}`;
      if (ent.isDirectory()) await walk(relPath);
      else result.set(relPath, ent);
    }
  };
  await walk('');
  return new Map([...result].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Human-readable report: each diff, then the foreign, extra and missing files. Empty when up to date. */
export function formatVerifyReport(result: VerifyResult): string {
  const parts: string[] = [];
  for (const c of result.changed) parts.push(c.diff.endsWith('\n') ? c.diff : c.diff + '\n');
  for (const p of result.foreign) parts.push(`foreign file (kubegen did not write it; generate refuses until it is moved out): ${p}\n`);
  for (const p of result.extra) parts.push(`extra file (not generated): ${p}\n`);
  for (const p of result.missing) parts.push(`missing file (would be generated): ${p}\n`);
  return parts.join('');
}
