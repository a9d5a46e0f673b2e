/**
 * How integration tests get a control plane. `sharedEnv()` uses the one `hack/run-tests.mjs` started (its kubeconfig
 * path is in `KUBEGEN_TEST_KUBECONFIG`); when a test file runs on its own it starts an `Envtest` with
 * `SHARED_CRD_PATHS` for that file and stops it when the last holder calls `release()`.
 * Tests must isolate themselves: `newNamespace()` gives a fresh namespace, cluster-scoped objects need unique names.
 */
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { HttpTransport, type TransportOptions } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadKubeConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { SHARED_CRD_PATHS } from './crds.js';

export const KUBECONFIG_ENV = 'KUBEGEN_TEST_KUBECONFIG';

export interface TestEnv {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  /** The admin transport shared by this file's tests. */
  transport: HttpTransport;
  /** Set when this file started its own control plane. */
  envtest: Envtest | undefined;
  /** A new transport with other options (the caller closes it). */
  newTransport(opts?: TransportOptions): HttpTransport;
  /** Creates a fresh namespace `<prefix>-xxxxx`. */
  newNamespace(prefix?: string): Promise<string>;
  /** Drops this holder; the last one stops a control plane this file started. */
  release(): Promise<void>;
}

let shared: Promise<{ kubeConfig: KubeConfig; kubeconfigPath: string; envtest: Envtest | undefined }> | undefined;
let holders = 0;

async function boot(): Promise<{ kubeConfig: KubeConfig; kubeconfigPath: string; envtest: Envtest | undefined }> {
  const path = process.env[KUBECONFIG_ENV];
  if (path) return { kubeConfig: loadKubeConfig({ kubeconfig: path }), kubeconfigPath: path, envtest: undefined };
  const envtest = await Envtest.start({ crdPaths: [...SHARED_CRD_PATHS] });
  return { kubeConfig: envtest.kubeConfig, kubeconfigPath: envtest.kubeconfigPath, envtest };
}

/** The control plane for this test file (see the module comment). Call `release()` in an `after` hook. */
export async function sharedEnv(): Promise<TestEnv> {
  holders++;
  shared ??= boot();
  let base;
  try {
    base = await shared;
  } catch (err) {
    holders--;
    shared = undefined;
    throw err;
  }
  const transport = new HttpTransport(base.kubeConfig);
  let released = false;
  return {
    ...base,
    transport,
    newTransport: (opts) => new HttpTransport(base.kubeConfig, opts),
    newNamespace: (prefix = 'test') => createTestNamespace(transport, prefix),
    async release() {
      if (released) return;
      released = true;
      transport.close();
      holders--;
      if (holders === 0 && shared) {
        const done = shared;
        shared = undefined;
        await (await done).envtest?.stop();
      }
    },
  };
}

/** A short random suffix for names of cluster-scoped test objects. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}
