/**
 * `@kubegen/runtime/testing`: every test helper, the envtest control plane (`./testing/envtest`), the in-memory
 * fakes (`./testing/fake`) and the garbage collector the `crd-only` envtest profile runs (`GarbageCollector`). Import
 * a part directly to load only that part (e.g. a unit test that must not load envtest's process code).
 */
export * from './envtest/index.js';
export * from './fake/index.js';
export * from './gc/index.js';
export { consistently, eventuallyObject, objectList } from './matchers.js';
export type { Condition, ObjectGetter, ObjectLister, WaitOptions } from './matchers.js';
