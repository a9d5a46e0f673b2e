/**
 * How integration tests get a control plane. `sharedEnv()` uses the one `hack/run-tests.mjs` started for the profile
 * (its kubeconfig path is in `KUBEGEN_TEST_KUBECONFIG`, `..._CRD_ONLY` or `..._CLUSTER`); when a test file runs on its
 * own it starts an `Envtest` of that profile (with `SHARED_CRD_PATHS` on `full`, `CLUSTER_CRD_PATHS` on `cluster`)
 * for that file and stops it when the last holder calls `release()`.
 * Tests must isolate themselves: `newNamespace()` gives a fresh namespace, cluster-scoped objects need unique names.
 */
import { randomBytes } from 'node:crypto';
import { HttpTransport, type TransportOptions } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadKubeConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import type { KubeConfig } from '@kubegen/runtime/internal/client/kubeconfig-model.js';
import type { RestConfig } from '@kubegen/runtime/internal/client/rest-config.js';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace, testNamespaceName } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import type { EnvtestProfile } from '@kubegen/runtime/internal/testing/envtest/envtest-profiles.js';
import { installCrds, readCrdPaths } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { CLUSTER_CRD_PATHS, SHARED_CRD_PATHS } from './crds.js';

export const KUBECONFIG_ENV = 'KUBEGEN_TEST_KUBECONFIG';

export interface TestEnv {
  kubeConfig: KubeConfig;
  /** The admin's `RestConfig` (the kubeconfig's current context). */
  restConfig: RestConfig;
  kubeconfigPath: string;
  /** Which control plane this is. */
  profile: EnvtestProfile;
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

/** Where `hack/run-tests.mjs` puts the kubeconfig of the shared `crd-only` (CRD apiserver 1.36) control plane. */
export const KUBECONFIG_CRD_ONLY_ENV = 'KUBEGEN_TEST_KUBECONFIG_CRD_ONLY';

/** Where `hack/run-tests.mjs` puts the kubeconfig of the shared `cluster` control plane (3 hollow nodes). */
export const KUBECONFIG_CLUSTER_ENV = 'KUBEGEN_TEST_KUBECONFIG_CLUSTER';

const KUBECONFIG_ENVS: Record<EnvtestProfile, string> = { full: KUBECONFIG_ENV, 'crd-only': KUBECONFIG_CRD_ONLY_ENV, cluster: KUBECONFIG_CLUSTER_ENV };
const PROFILE_CRDS: Record<EnvtestProfile, readonly string[]> = { full: SHARED_CRD_PATHS, 'crd-only': [], cluster: CLUSTER_CRD_PATHS };

/** Options of {@link sharedEnv}. */
export interface SharedEnvOptions {
  /**
   * Which control plane (default `full`, kube-apiserver 1.20); `crd-only` is the CRD apiserver 1.36, `cluster` is
   * `full` with a controller-manager, a scheduler and 3 hollow nodes.
   */
  profile?: EnvtestProfile;
  /** CRD files this test needs on top of the profile's (installed or updated, and Established, before returning). */
  crdPaths?: readonly string[];
}

interface Base {
  kubeConfig: KubeConfig;
  restConfig: RestConfig;
  kubeconfigPath: string;
  envtest: Envtest | undefined;
}

const shared = new Map<EnvtestProfile, { base: Promise<Base>; holders: number }>();

async function boot(profile: EnvtestProfile): Promise<Base> {
  const path = process.env[KUBECONFIG_ENVS[profile]];
  if (path) {
    const kubeConfig = loadKubeConfig({ kubeconfig: path });
    return { kubeConfig, restConfig: kubeConfig.restConfig(), kubeconfigPath: path, envtest: undefined };
  }
  const envtest = await Envtest.start({ profile, crdPaths: [...PROFILE_CRDS[profile]] });
  return { kubeConfig: envtest.kubeConfig, restConfig: envtest.restConfig, kubeconfigPath: envtest.kubeconfigPath, envtest };
}

/**
 * The control plane for this test file (see the module comment). Call `release()` in an `after` hook. On the
 * `crd-only` profile there are no namespaces: `newNamespace()` returns a fresh name without creating anything, and
 * no shared CRDs are installed (a test installs its own).
 */
export async function sharedEnv(opts: SharedEnvOptions = {}): Promise<TestEnv> {
  const profile = opts.profile ?? 'full';
  let entry = shared.get(profile);
  if (!entry) {
    entry = { base: boot(profile), holders: 0 };
    shared.set(profile, entry);
  }
  entry.holders++;
  let base: Base;
  try {
    base = await entry.base;
  } catch (err) {
    shared.delete(profile);
    throw err;
  }
  const transport = new HttpTransport(base.restConfig);
  const held = entry;
  let released = false;
  const env: TestEnv = {
    ...base,
    profile,
    transport,
    newTransport: (o) => new HttpTransport(base.restConfig, o),
    newNamespace: async (prefix = 'test') => (profile === 'crd-only' ? testNamespaceName(prefix) : createTestNamespace(transport, prefix)),
    async release() {
      if (released) return;
      released = true;
      transport.close();
      held.holders--;
      if (held.holders === 0 && shared.get(profile) === held) {
        shared.delete(profile);
        await (await held.base).envtest?.stop();
      }
    },
  };
  if (opts.crdPaths) {
    try {
      await installCrds(transport, readCrdPaths([...opts.crdPaths]), 30_000);
    } catch (err) {
      await env.release();
      throw err;
    }
  }
  return env;
}

/** A short random suffix for names of cluster-scoped test objects. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}
