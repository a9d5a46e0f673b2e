/**
 * `@kubegen/runtime/testing/envtest`: a real control plane for tests (etcd + kube-apiserver 1.20, the CRD apiserver
 * 1.36 of the `crd-only` profile, or the whole cluster of the `cluster` profile with a controller-manager, a scheduler
 * and Kubemark hollow nodes; as controller-runtime's envtest), CRD installation and per-test namespaces. Starts child processes and opens ports;
 * unit tests that only need a fake API should import `@kubegen/runtime/testing/fake` instead.
 */
export * from './envtest.js';
export * from './envtest-assets.js';
export * from './envtest-crds.js';
export * from './envtest-namespace.js';
export { PROFILE_CAPABILITIES, PROFILE_DESCRIPTIONS, profileServes, requireCapabilities } from './envtest-profiles.js';
export type { EnvtestCapability, EnvtestProfile } from './envtest-profiles.js';
export { CLUSTER_CONTROLLERS, DEFAULT_CLUSTER_NODES } from './envtest-cluster.js';
export type { ClusterOptions, EnvtestProcessInfo } from './envtest-cluster.js';
export { VERSIONED_FLAGS, versionedFlags } from './envtest-flags.js';
export type { VersionedBinary, VersionedFlag } from './envtest-flags.js';
export { binaryVersion, parseVersionOutput } from './envtest-versions.js';
export type { BinaryVersion } from './envtest-versions.js';
export { freePort, freePorts } from './envtest-ports.js';
export { ManagedProcess } from './envtest-process.js';
export type { ManagedProcessOptions } from './envtest-process.js';
export * from './envtest-webhooks.js';
export * from './envtest-rbac.js';
export * from './project-rbac.js';
export * from './forbidden-recorder.js';
export { eventually } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
