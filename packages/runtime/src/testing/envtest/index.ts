/**
 * `@kubegen/runtime/testing/envtest`: a real control plane for tests (etcd + kube-apiserver binaries, as
 * controller-runtime's envtest), CRD installation and per-test namespaces. Starts child processes and opens ports;
 * unit tests that only need a fake API should import `@kubegen/runtime/testing/fake` instead.
 */
export * from './envtest.js';
export * from './envtest-assets.js';
export * from './envtest-crds.js';
export * from './envtest-namespace.js';
export { freePort, freePorts } from './envtest-ports.js';
export * from './envtest-webhooks.js';
export { eventually } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
