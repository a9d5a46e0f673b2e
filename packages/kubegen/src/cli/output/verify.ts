import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { GeneratedFile } from '../../generate/index.js';
import { withMarker } from '../../generate/output-files.js';
import { unifiedDiff } from './diff.js';
import { isCode } from './write.js';

/**
 * Comparison of an output folder with what the generator would write now (`codegen verify`).
 * Read-only: never changes the folder. The expected set is the generated files plus the marker file
 * (`MARKER_FILE` in `generate/output-files.ts`), i.e. exactly what `writeOutput` would leave behind.
 */

export interface ChangedFile {
  /** `/`-separated path relative to the output folder. */
  path: string;
  /** Unified diff from the file on disk (`a/<path>`) to the generated content (`b/<path>`). */
  diff: string;
}

/** What {@link verifyOutput} found: whether the folder is current, and the changed, missing and extra files. */
export interface VerifyResult {
  /** True when the folder is byte-identical to the expected files (no changed, missing or extra file). */
  upToDate: boolean;
  /** Files on disk whose content differs, sorted by path. */
  changed: ChangedFile[];
  /** Expected files that are not on disk, sorted. */
  missing: string[];
  /** Files (or symlinks, sockets…) on disk the generator would not write, sorted. */
  extra: string[];
  /** Number of files that were expected. */
  expected: number;
}

/** Compares `outDir` with `files`. A missing folder is not an error: every file is then reported missing. */
export async function verifyOutput(outDir: string, files: readonly GeneratedFile[]): Promise<VerifyResult> {
  const out = path.resolve(outDir);
  const expected = withMarker(files);
  const onDisk = new Set(await listFiles(out));
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
  const extra = [...onDisk].sort(byPath);
  return { upToDate: changed.length + missing.length + extra.length === 0, changed, missing, extra, expected: expected.length };
}

/** Every non-directory entry under `root`, as sorted `/`-separated relative paths; [] when `root` does not exist. */
export async function listFiles(root: string): Promise<string[]> {
  const result: string[] = [];
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
      else result.push(relPath);
    }
  };
  await walk('');
  return result.sort();
}

/** Human-readable report: each diff, then the extra and missing files. Empty when up to date. */
export function formatVerifyReport(result: VerifyResult): string {
  const parts: string[] = [];
  for (const c of result.changed) parts.push(c.diff.endsWith('\n') ? c.diff : c.diff + '\n');
  for (const p of result.extra) parts.push(`extra file (not generated): ${p}\n`);
  for (const p of result.missing) parts.push(`missing file (would be generated): ${p}\n`);
  return parts.join('');
}
