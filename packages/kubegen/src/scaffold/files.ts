/** Writing scaffolded files: all-or-nothing checks first, then exclusive creates that never overwrite. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ScaffoldError } from './errors.js';

/** A file to create, `path` relative to the project root. */
export interface ScaffoldFile {
  path: string;
  content: string | Uint8Array;
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** Throws when any of `files` already exists under `root` (nothing is written). */
export async function assertNoneExist(root: string, files: readonly ScaffoldFile[]): Promise<void> {
  for (const f of files) {
    if (await exists(path.join(root, f.path))) throw new ScaffoldError(`${path.join(root, f.path)} already exists; refusing to overwrite it`);
  }
}

/** Creates `files` under `root` (folders as needed); a file that appeared meanwhile fails with EEXIST, not overwritten. */
export async function writeNewFiles(root: string, files: readonly ScaffoldFile[]): Promise<void> {
  for (const f of files) {
    const target = path.join(root, f.path);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, f.content, { flag: 'wx' });
  }
}
