/**
 * `@kubegen/runtime/cache`: the cache (client-go `tools/cache`, controller-runtime `pkg/cache`): shared informers and
 * their factory, indexers, listers, keys, the manager's cache options and cached client, read-your-writes.
 */
export {
  CacheSyncError, informerKey, SharedInformerFactory, type InformerKeyOptions, type InformerLease,
  type InformerOptions, type SharedInformerFactoryOptions, type StalledWatch, type WaitForCacheSyncOptions
} from '../cache/factory.js';
export {
  InformerStoppedError, MIN_RESYNC_PERIOD_MS, SharedIndexInformer, type HandlerOptions, type HandlerRegistration,
  type SharedIndexInformerOptions
} from '../cache/shared-informer.js';
export { type ResourceEventHandler } from '../cache/listener.js';
export { type ListerWatcher, type ReflectorOptions, type WatchListMode } from '../cache/reflector-types.js';
export { type BackoffOptions } from '../cache/backoff.js';
export { stripManagedFields, type TransformFunc } from '../cache/transform.js';
export { compareResourceVersions } from '../cache/store-waiters.js';
export {
  Indexer, metaNamespaceIndexFunc, NAMESPACE_INDEX, type Indexers, type IndexFunc, type KeyFunc, type ReadonlyIndexer
} from '../cache/indexer.js';
export { Lister, NamespaceLister, type SelectorInput } from '../cache/lister.js';
export {
  DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKey, isTombstone, metaNamespaceKey, objectFromDeleted,
  splitMetaNamespaceKey
} from '../cache/keys.js';
export {
  type ByObjectCacheOptions, type FieldExtractFunc, type InformerRequest, type ObjectCacheOptions
} from '../cluster/cluster-cache.js';
export { CachedResourceClient, type InformerLookup } from '../cluster/cached-client.js';
export {
  awaitOwnWrites, DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS, ReadYourWrites, type ReadYourWritesOperation,
  type ReadYourWritesOptions
} from '../cluster/read-your-writes.js';
