/**
 * `@kubegen/runtime/testing/envtest`: a real control plane for tests (etcd + kube-apiserver 1.20, the CRD apiserver
 * 1.36 of the `crd-only` profile, or the whole cluster of the `cluster` profile with a controller-manager, a scheduler
 * and Kubemark hollow nodes; as controller-runtime's envtest), CRD installation and per-test namespaces. Starts child processes and opens ports;
 * unit tests that only need a fake API should import `@kubegen/runtime/testing/fake` instead.
 */
export { Envtest } from './envtest.js';
export type { EnvtestOptions } from './envtest.js';
export {
  DEFAULT_START_TIMEOUT_MS, DEFAULT_STOP_TIMEOUT_MS, defaultAssetDirs, envAttachOutput, envStartTimeoutMs,
  envStopTimeoutMs, findAssets, mergeFlags, parseDuration,
} from './envtest-assets.js';
export type { ClusterAssets, EnvtestAssets } from './envtest-assets.js';
export { CRD_RESOURCE, crdResourceInfo, installCrds, parseCrds, readCrdPaths } from './envtest-crds.js';
export type { CrdObject } from './envtest-crds.js';
export {
  createTestNamespace, deleteTestNamespace, NAMESPACE_RESOURCE, testNamespaceName,
} from './envtest-namespace.js';
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
export {
  installWebhooks, MUTATING_WEBHOOK_RESOURCE, pointWebhooksAt, setConversionWebhook, VALIDATING_WEBHOOK_RESOURCE,
  waitForWebhook,
} from './envtest-webhooks.js';
export type { WebhookEndpoint, WebhookInstallOptions } from './envtest-webhooks.js';
export {
  clusterOf, DEFAULT_TOKEN_EXPIRATION_SECONDS, installRbac, requestServiceAccountToken, runAsServiceAccount,
  writeTokenKubeconfig,
} from './envtest-rbac.js';
export type { ClusterConfig, ServiceAccountIdentity } from './envtest-rbac.js';
export { RBAC_KINDS, rbacFromObjects, readProjectRbac } from './project-rbac.js';
export type { ProjectRbac, ProjectRbacOptions, ServiceAccountRef } from './project-rbac.js';
export { ForbiddenRecorder, ForbiddenRequestsError, recordForbidden } from './forbidden-recorder.js';
export type { RecordedForbidden } from './forbidden-recorder.js';
export { eventually } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
