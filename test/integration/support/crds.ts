/**
 * The CRDs the shared integration-test control plane installs (hack/run-tests.mjs reads `SHARED_CRD_PATHS`, and
 * `sharedEnv()` uses it when a test file runs on its own). Add test CRDs as files under `fixtures/test-crds/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject, ResourceInfo } from '@kubegen/runtime/internal/client/types.js';

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

/** fixtures/gc: a Parent and a Child kind for the garbage-collection scenarios (support/deletion-scenarios.ts). */
export const GC_CRDS: string = path.join(REPO_ROOT, 'fixtures/gc/crds.yaml');

/**
 * The CRDs of the shared `cluster` control plane: the shared ones and the garbage-collection kinds, installed before
 * its controller-manager starts so that the garbage collector watches them from the beginning.
 */
export const CLUSTER_CRD_PATHS: readonly string[] = [...SHARED_CRD_PATHS, GC_CRDS];

/** sample-controller's Foo: namespaced, status subresource. */
export const FOO: ResourceInfo = {
  group: 'samplecontroller.k8s.io',
  version: 'v1alpha1',
  resource: 'foos',
  kind: 'Foo',
  listKind: 'FooList',
  namespaced: true,
};

/** sample-controller's Foo CRD file (with the status subresource). */
export const FOO_CRD: string = path.join(REPO_ROOT, 'fixtures/crds/sample-controller/crd-status-subresource.yaml');

/** A Foo object as the tests write it. */
export interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
}

/** A Foo named `name` in `ns` with `replicas` (default 1) and a Deployment name derived from its name. */
export const foo = (ns: string, name: string, replicas = 1): Foo => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { namespace: ns, name },
  spec: { deploymentName: `${name}-dep`, replicas },
});

/** fixtures/test-crds Widget: cluster-scoped, status and scale subresources. */
export const WIDGET: ResourceInfo = {
  group: 'test.kubegen.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: false,
};
