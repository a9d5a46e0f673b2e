import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root, from a compiled test file anywhere under `dist/test/`. */
export const REPO_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(dir: string): string {
  // dist/test/support → repo root is three levels up; from the source tree (test/support) two.
  const parts = dir.split(path.sep);
  const i = parts.lastIndexOf('dist');
  return i >= 0 ? parts.slice(0, i).join(path.sep) || path.sep : path.resolve(dir, '..', '..');
}

export const fixture = (...p: string[]): string => path.join(REPO_ROOT, 'fixtures', ...p);
export const CORPUS_DIR = fixture('crds');
export const SAMPLE_CRD = fixture('crds', 'sample-controller', 'crd-status-subresource.yaml');
export const TSC = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
