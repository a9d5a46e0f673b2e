/**
 * What the generated built-in API (`api/<folder>/<version>/*`, written by `hack/builtin-api/generate`) imports from
 * the runtime: exactly the names generated code may use (the generator's runtime names), each from the module that
 * declares it — not the root entry point, so loading one group/version loads only what its clients need, and the
 * root may re-export the API without an import circle.
 */
export { ResourceClient } from './client/resource-client.js';
export type {
  ApplyOptions, CreateOptions, GetOptions, ResourceInterface, ScaleInterface, StatusInterface, UpdateOptions,
} from './client/interfaces.js';
export type { KubeList, ObjectMeta, ListMeta, MergeSchema, ResourceDescriptor, Transport } from './client/types.js';
export type { IntOrString, Quantity, RawExtension } from './api-types.js';
export type { ApplyConfiguration, ApplyObjectMeta, ListMapEntry } from './client/apply.js';
export { deepCopyJSON } from './deepcopy.js';
export type { InformerOptions, SharedInformerFactory } from './cache/factory.js';
export type { SharedIndexInformer } from './cache/shared-informer.js';
export type { ReadonlyIndexer } from './cache/indexer.js';
export { Lister } from './cache/lister.js';
export type { NamespaceLister } from './cache/lister.js';
