/**
 * The CRDs the shared integration-test control plane installs (hack/run-tests.mjs reads `SHARED_CRD_PATHS`, and
 * `sharedEnv()` uses it when a test file runs on its own). Add test CRDs as files under `fixtures/test-crds/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';

/** The repository root (found from this file, whether run from `test/` or compiled into `dist/test/`). */
export const REPO_ROOT: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'fixtures', 'test-crds'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the kubegen repository root (fixtures/test-crds)');
    dir = up;
  }
  return dir;
})();

export const SHARED_CRD_PATHS: readonly string[] = [
  path.join(REPO_ROOT, 'fixtures/crds/sample-controller/crd-status-subresource.yaml'),
  path.join(REPO_ROOT, 'fixtures/test-crds'),
];

/** sample-controller's Foo: namespaced, status subresource. */
export const FOO: ResourceInfo = {
  group: 'samplecontroller.k8s.io',
  version: 'v1alpha1',
  resource: 'foos',
  kind: 'Foo',
  listKind: 'FooList',
  namespaced: true,
};

/** fixtures/test-crds Widget: cluster-scoped, status and scale subresources. */
export const WIDGET: ResourceInfo = {
  group: 'test.kubegen.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: false,
};
