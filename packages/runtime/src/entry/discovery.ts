/**
 * `@kubegen/runtime/discovery`: discovery and the RESTMapper (client-go `discovery`, `discovery/cached/memory`,
 * `restmapper`; controller-runtime's dynamic RESTMapper): what the server serves, kinds to resources and back.
 */
export {
  DiscoveryClient, discoveryFailure, GroupDiscoveryFailedError, preferredResources
} from '../discovery/discovery-client.js';
export type {
  DiscoveryClientOptions, DiscoveryResult, GroupsAndMaybeResources, ServerVersionInfo
} from '../discovery/discovery-client.js';
export { CachedDiscoveryClient, CacheNotFoundError, isTransientDiscoveryError } from '../discovery/cached-discovery.js';
export { StaleGroupVersionError } from '../discovery/discovery-formats.js';
export { compareVersionPriority, sortByVersionPriority } from '../discovery/version-priority.js';
export { groupVersionString, parseGroupVersion, resourceInfoOf } from '../discovery/types.js';
export type {
  APIGroupInfo, APIResourceInfo, APISubresourceInfo, GroupKind, GroupResource, GroupVersionKind, GroupVersionResource
} from '../discovery/types.js';
export { DynamicRESTMapper } from '../restmapper/dynamic-mapper.js';
export type { DynamicRESTMapperOptions } from '../restmapper/dynamic-mapper.js';
export {
  AmbiguousResourceError, isNoMatchError, mappingOf, NoKindMatchError, NoResourceMatchError
} from '../restmapper/types.js';
export type { PartialResource, RESTMapper, RESTMapping } from '../restmapper/types.js';
