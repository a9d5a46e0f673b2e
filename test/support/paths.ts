import fs from 'node:fs';
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
/** The `kubegen`/`codegen` command of the workspace (packages/kubegen/bin/codegen.js, run with `node`). */
export const CODEGEN_BIN = path.join(REPO_ROOT, 'packages', 'kubegen', 'bin', 'codegen.js');

/** Makes `@kubegen/runtime` (this workspace's built runtime package) and `@opentelemetry/*` resolvable from a scratch project in `dir`. */
export function linkRuntimePackage(dir: string): void {
  fs.mkdirSync(path.join(dir, 'node_modules', '@kubegen'), { recursive: true });
  fs.symlinkSync(path.join(REPO_ROOT, 'packages', 'runtime'), path.join(dir, 'node_modules', '@kubegen', 'runtime'), 'dir');
  // A scaffolded project's startTracing() (the runtime's tracing/sdk) loads the OpenTelemetry SDK it depends on (the
  // whole scope: its deps too).
  if (!fs.existsSync(path.join(dir, 'node_modules', '@opentelemetry'))) {
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@opentelemetry'), path.join(dir, 'node_modules', '@opentelemetry'), 'dir');
  }
}
