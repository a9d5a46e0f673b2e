import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from 'kubegen/internal/generate/index.js';

/**
 * Compares generated files with a committed golden folder. With `UPDATE_GOLDEN=1` it rewrites the folder instead
 * (then review the diff). Extra files in the golden folder fail the comparison too.
 */
export function assertGolden(dir: string, files: GeneratedFile[]): void {
  if (process.env['UPDATE_GOLDEN'] === '1') {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
      fs.writeFileSync(path.join(dir, f.path), f.content);
    }
    return;
  }
  const want = new Map(files.map((f) => [f.path, f.content]));
  const have = listFiles(dir);
  assert.deepEqual([...have].sort(), [...want.keys()].sort(), `golden file list in ${dir} (UPDATE_GOLDEN=1 to refresh)`);
  for (const [p, content] of want) {
    assert.equal(content, fs.readFileSync(path.join(dir, p), 'utf8'), `${p} differs from golden (UPDATE_GOLDEN=1 to refresh)`);
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}
