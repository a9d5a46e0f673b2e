/**
 * The three control planes envtest can start, and what each can serve.
 *
 * - `full`: etcd + kube-apiserver 1.20 (`hack/setup-envtest.sh`, `KUBEBUILDER_ASSETS`): every built-in kind,
 *   namespaces, RBAC, Leases, Events, admission and conversion webhooks, custom resources. It predates CEL validation
 *   rules (ignored as unknown fields) and streaming lists, and refuses CRDs that use newer schema features.
 * - `crd-only`: etcd 3.5 + the CRD apiserver of Kubernetes 1.36 (apiextensions-apiserver, the CRD-serving half of
 *   kube-apiserver; `hack/setup-envtest-1.36.sh`, `KUBEGEN_ENVTEST_1_36_ASSETS`): `apiextensions.k8s.io` and custom
 *   resources only, with CEL validation rules, server-side apply, streaming lists (WatchList) and KEP-5866 shard
 *   selectors (`ShardedListAndWatch` on). Leases are served by a CRD of their own group (`envtest-lease-shim.ts`) for
 *   leader election and sharding. There are no namespaces (a namespaced object may be created in any namespace
 *   name), no core kinds, Events, RBAC or admission webhooks; every authenticated request is allowed. Owner references cascade (background, foreground,
 *   orphan): envtest runs kubegen's own garbage collector beside it (`testing/gc`; `garbageCollector: false` turns it
 *   off), differential-tested against kube-controller-manager's on `cluster`.
 * - `cluster`: `full` plus kube-controller-manager, kube-scheduler and N Kubemark hollow nodes (kubelets with a fake
 *   container runtime; the same `hack/setup-envtest.sh` builds them from the same tree): garbage collection,
 *   namespaces that finish deleting, Deployments -> ReplicaSets -> Pods scheduled onto Ready nodes and Running (no
 *   containers run: no logs, exec, images or probes that reach a container), ServiceAccounts and their tokens made by
 *   the controllers. See `envtest-cluster.ts`.
 *
 * Tests say what they need with `env.requireCapabilities(...)`, which fails with a message naming what the profile lacks and
 * which profile has it, rather than letting a test fail later on a 404.
 */
import { isNotFound } from '../../client/errors.js';

/**
 * Which control plane `Envtest.start` runs: `full` (kube-apiserver 1.20), `crd-only` (CRD apiserver 1.36) or `cluster`
 * (`full` with a controller-manager, a scheduler and hollow nodes).
 */
export type EnvtestProfile = 'full' | 'crd-only' | 'cluster';

/**
 * Something a test may need from the control plane; see {@link PROFILE_CAPABILITIES}. The `cluster` profile's own:
 * `garbage-collection` (owner references cascade: background, foreground, orphan), `namespace-deletion` (a deleted
 * namespace empties and goes away), `workloads` (Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs make
 * Pods that are scheduled and run), `nodes` (Ready Nodes with kubelets behind them).
 */
export type EnvtestCapability =
  | 'custom-resources'
  | 'namespaces'
  | 'core-kinds'
  | 'rbac'
  | 'leases'
  | 'events'
  | 'admission-webhooks'
  | 'conversion-webhooks'
  | 'cel-validation'
  | 'server-side-apply'
  | 'watch-list'
  /** KEP-5866 `shardSelector` on lists and watches (the `ShardedListAndWatch` gate). */
  | 'shard-selectors'
  | 'garbage-collection'
  | 'namespace-deletion'
  | 'workloads'
  | 'nodes';

/** What each profile serves (the capabilities this harness and its tests rely on). */
export const PROFILE_CAPABILITIES: Readonly<Record<EnvtestProfile, readonly EnvtestCapability[]>> = {
  full: ['custom-resources', 'namespaces', 'core-kinds', 'rbac', 'leases', 'events', 'admission-webhooks', 'conversion-webhooks', 'server-side-apply'],
  'crd-only': ['custom-resources', 'leases', 'cel-validation', 'server-side-apply', 'watch-list', 'shard-selectors', 'garbage-collection'],
  cluster: [
    'custom-resources',
    'namespaces',
    'core-kinds',
    'rbac',
    'leases',
    'events',
    'admission-webhooks',
    'conversion-webhooks',
    'server-side-apply',
    'garbage-collection',
    'namespace-deletion',
    'workloads',
    'nodes',
  ],
};

/** A line per profile for messages: which server and Kubernetes version it runs. */
export const PROFILE_DESCRIPTIONS: Readonly<Record<EnvtestProfile, string>> = {
  full: 'kube-apiserver 1.20 + etcd 3.4',
  'crd-only': "CRD apiserver 1.36, i.e. apiextensions-apiserver, + etcd 3.5 + kubegen's garbage collector",
  cluster: 'kube-apiserver 1.20 + etcd 3.4 + kube-controller-manager + kube-scheduler + Kubemark hollow nodes',
};

/** The profiles from the lightest to the heaviest: an error names the first one that serves what is missing. */
const BY_WEIGHT: readonly EnvtestProfile[] = ['full', 'crd-only', 'cluster'];

/** Whether `profile` serves `capability`. */
export function profileServes(profile: EnvtestProfile, capability: EnvtestCapability): boolean {
  return PROFILE_CAPABILITIES[profile].includes(capability);
}

/**
 * Throws when `profile` lacks any of `needed`: the error names every missing capability, the profile, and the
 * profile that has them (when one does).
 */
export function requireCapabilities(profile: EnvtestProfile, needed: readonly EnvtestCapability[]): void {
  const missing = needed.filter((c) => !profileServes(profile, c));
  if (missing.length === 0) return;
  const other = BY_WEIGHT.find((p) => p !== profile && missing.every((c) => profileServes(p, c)));
  const elsewhere = other ? `; the '${other}' profile (${PROFILE_DESCRIPTIONS[other]}) serves ${missing.length > 1 ? 'them' : 'it'}` : '';
  throw new Error(`envtest: the '${profile}' profile (${PROFILE_DESCRIPTIONS[profile]}) cannot serve ${missing.join(', ')}${elsewhere}`);
}

/**
 * Rethrows a 404 from creating a kind the control plane does not serve at all as an error that says so (the
 * `crd-only` profile answers 404 for every built-in kind); any other error is returned unchanged.
 */
export function explainNotServed(err: unknown, capability: EnvtestCapability, what: string, hint?: string): unknown {
  if (!isNotFound(err)) return err;
  const by = BY_WEIGHT.filter((p) => profileServes(p, capability));
  return new Error(
    `envtest: the apiserver does not serve ${what} (404); the 'crd-only' profile (${PROFILE_DESCRIPTIONS['crd-only']}) has no ${capability}` +
      (by.length > 0 ? `: use the '${by[0]}' profile` : '') +
      (hint ? `; ${hint}` : '') +
      ` (${err instanceof Error ? err.message : String(err)})`,
  );
}
