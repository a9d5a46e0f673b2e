/**
 * The Kubernetes 1.36 Go sources (`hack/setup-envtest-1.36.sh` unpacks Debian's golang-k8s-*-dev packages), which the
 * built-in API is generated from and checked against: where they are, or why a test that needs them cannot run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultGoRoot } from 'kubegen/internal/builtin-api/regenerate.js';

/** The GOPATH `src` folder holding k8s.io/{api,apimachinery,client-go}, when it exists. */
export const KUBE_SOURCES: string | undefined = fs.existsSync(path.join(defaultGoRoot(), 'k8s.io', 'api')) ? defaultGoRoot() : undefined;

/** `{ skip: reason }` for `it(…)` when the sources are missing (never in CI: `.ci/run` sets them up first). */
export const NEEDS_KUBE_SOURCES = KUBE_SOURCES ? {} : { skip: `no Kubernetes sources at ${defaultGoRoot()} (run hack/setup-envtest-1.36.sh)` };

/** A path below k8s.io in the sources (only call when `KUBE_SOURCES` is set). */
export function k8sSource(...p: string[]): string {
  return path.join(KUBE_SOURCES!, 'k8s.io', ...p);
}
