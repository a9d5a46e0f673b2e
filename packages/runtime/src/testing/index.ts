/** @kubegen/runtime/testing: test helpers (envtest control plane, fake tracker). */
export * from './envtest.js';
export * from './envtest-assets.js';
export * from './envtest-crds.js';
export * from './envtest-namespace.js';
export { freePort, freePorts } from './envtest-ports.js';
export { eventually } from './eventually.js';
export type { EventuallyOptions } from './eventually.js';
export * from './object-tracker.js';
export * from './fake-transport.js';
export * from './fake-actions.js';
export type { FakeResource, FakeScaleSpec } from './fake-resource.js';
export { FakeWatch } from './fake-watch.js';
export { FakeListerWatcher } from './fake-lister-watcher.js';
