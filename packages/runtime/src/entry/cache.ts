/**
 * `@kubegen/runtime/cache`: the cache (client-go `tools/cache`, controller-runtime `pkg/cache`): shared informers and
 * their factory, indexers, listers, keys, the manager's cache options and cached client, read-your-writes.
 */
export { CacheSyncError, informerKey, SharedInformerFactory } from '../cache/factory.js';
export type {
  InformerKeyOptions, InformerLease, InformerOptions, SharedInformerFactoryOptions, StalledWatch,
  WaitForCacheSyncOptions
} from '../cache/factory.js';
export { InformerStoppedError, MIN_RESYNC_PERIOD_MS, SharedIndexInformer } from '../cache/shared-informer.js';
export type { HandlerOptions, HandlerRegistration, SharedIndexInformerOptions } from '../cache/shared-informer.js';
export type { ResourceEventHandler } from '../cache/listener.js';
export type { ListerWatcher, ReflectorOptions, WatchListMode } from '../cache/reflector-types.js';
export type { BackoffOptions } from '../cache/backoff.js';
export { stripManagedFields } from '../cache/transform.js';
export { compareResourceVersions } from '../cache/store-waiters.js';
export type { TransformFunc } from '../cache/transform.js';
export { Indexer, metaNamespaceIndexFunc, NAMESPACE_INDEX } from '../cache/indexer.js';
export type { Indexers, IndexFunc, KeyFunc, ReadonlyIndexer } from '../cache/indexer.js';
export { Lister, NamespaceLister } from '../cache/lister.js';
export type { SelectorInput } from '../cache/lister.js';
export {
  DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKey, isTombstone, metaNamespaceKey, objectFromDeleted,
  splitMetaNamespaceKey
} from '../cache/keys.js';
export type {
  ByObjectCacheOptions, FieldExtractFunc, InformerRequest, ObjectCacheOptions
} from '../cluster/cluster-cache.js';
export { CachedResourceClient } from '../cluster/cached-client.js';
export { awaitOwnWrites, DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS, ReadYourWrites } from '../cluster/read-your-writes.js';
export type { ReadYourWritesOperation, ReadYourWritesOptions } from '../cluster/read-your-writes.js';
export type { InformerLookup } from '../cluster/cached-client.js';
