/**
 * `@kubegen/runtime/discovery`: discovery and the RESTMapper (client-go `discovery`, `discovery/cached/memory`,
 * `restmapper`; controller-runtime's dynamic RESTMapper): what the server serves, kinds to resources and back.
 */
export {
  DiscoveryClient, discoveryFailure, GroupDiscoveryFailedError, preferredResources, type DiscoveryClientOptions,
  type DiscoveryResult, type GroupsAndMaybeResources, type ServerVersionInfo
} from '../discovery/discovery-client.js';
export { CachedDiscoveryClient, CacheNotFoundError, isTransientDiscoveryError } from '../discovery/cached-discovery.js';
export { StaleGroupVersionError } from '../discovery/discovery-formats.js';
export { compareVersionPriority, sortByVersionPriority } from '../discovery/version-priority.js';
export {
  groupVersionString, parseGroupVersion, resourceInfoOf, type APIGroupInfo, type APIResourceInfo,
  type APISubresourceInfo, type GroupKind, type GroupResource, type GroupVersionKind, type GroupVersionResource
} from '../discovery/types.js';
export { DynamicRESTMapper, type DynamicRESTMapperOptions } from '../restmapper/dynamic-mapper.js';
export {
  AmbiguousResourceError, isNoMatchError, mappingOf, NoKindMatchError, NoResourceMatchError, type PartialResource,
  type RESTMapper, type RESTMapping
} from '../restmapper/types.js';
