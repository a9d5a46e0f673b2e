/**
 * `@kubegen/runtime/testing` garbage collector: kube-controller-manager's garbage collector for control planes that
 * have none (the envtest `crd-only` profile runs it by default). Test tooling: not part of the runtime's entry point.
 */
export { GarbageCollector } from './garbage-collector.js';
export type { GarbageCollectorOptions } from './garbage-collector.js';
