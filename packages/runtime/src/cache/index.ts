/** The runtime cache: reflector, indexer, shared informers, informer factory and listers (client-go `tools/cache`). */
export * from './keys.js';
export * from './indexer.js';
export * from './backoff.js';
export * from './reflector.js';
export * from './listener.js';
export * from './transform.js';
export * from './lister.js';
export * from './shared-informer.js';
export * from './factory.js';
