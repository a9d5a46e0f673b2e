/**
 * What `create api` records so that `delete api` can undo it (see `ScaffoldRecord` in project-file.ts): content
 * hashes of created files, the folders it made, and the whole lines it inserted into existing files — found again,
 * and removed, wherever the user's own edits moved them.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { exists } from './files.js';

/** An edit of an existing file, `file` relative to the project root. */
export interface FileEdit {
  file: string;
  before: string;
  content: string;
}

/** sha256 (hex) of `content` as written (strings as UTF-8). */
export function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * The lines of `after` that are not in `before`, when `after` is `before` with lines inserted (what the scaffolding
 * edits do), in order.
 */
export function insertedLines(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const inserted: string[] = [];
  let i = 0;
  for (const line of b) {
    if (i < a.length && a[i] === line) i++;
    else inserted.push(line);
  }
  if (i !== a.length) throw new Error('scaffolding edit is not an insertion of whole lines'); // a bug in kubegen
  return inserted;
}

/**
 * `text` without one occurrence of each of `lines` (whole lines, searched from the end, so the most recent
 * insertion goes first); undefined when any of them is no longer there.
 */
export function removeLines(text: string, lines: readonly string[]): string | undefined {
  const out = text.split('\n');
  for (const line of [...lines].reverse()) {
    const i = out.lastIndexOf(line);
    if (i < 0) return undefined;
    out.splice(i, 1);
  }
  return out.join('\n');
}

/** The folders (relative, `/`-separated, parents first) that writing `files` under `root` creates. */
export async function newFolders(root: string, files: readonly string[]): Promise<string[]> {
  const made = new Set<string>();
  for (const f of files) {
    for (let d = path.posix.dirname(f); d !== '.' && d !== '/' && !made.has(d); d = path.posix.dirname(d)) {
      if (await exists(path.join(root, ...d.split('/')))) break;
      made.add(d);
    }
  }
  return [...made].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
}
