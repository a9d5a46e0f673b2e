import fs from 'node:fs';
import path from 'node:path';

/**
 * Every entry under `dir` by `/`-separated relative path: a file's content, `<folder>` for a folder (so an empty
 * folder left behind shows), `-> target` for a symlink. Two snapshots are deep-equal only when the trees are the same
 * byte for byte; tests compare one taken before a command with one taken after.
 */
export function treeSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    const entries = fs.readdirSync(rel === '' ? dir : path.join(dir, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      const abs = path.join(dir, r);
      if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(abs)}`;
      else if (e.isDirectory()) {
        out[r] = '<folder>';
        walk(r);
      } else out[r] = fs.readFileSync(abs, 'utf8');
    }
  };
  walk('');
  return out;
}
