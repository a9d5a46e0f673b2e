/**
 * The names of kinds and resources (apimachinery `schema.GroupVersionKind` and friends) and what discovery says
 * about a served resource. Shared by discovery, the RESTMapper, the dynamic client and informers, and the builder.
 */
import type { ResourceInfo } from '../client/types.js';

/** A kind in a group version: `{ group: 'apps', version: 'v1', kind: 'Deployment' }` (`''` is the core group). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A resource in a group version: `{ group: 'apps', version: 'v1', resource: 'deployments' }`. */
export interface GroupVersionResource {
  group: string;
  version: string;
  /** The plural, lower-case name used in URLs. */
  resource: string;
}

/** A kind in a group, any version. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** A resource in a group, any version. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A subresource of a served resource (`status`, `scale`, `log`…), as discovery lists it. */
export interface APISubresourceInfo {
  name: string;
  /** The kind the subresource takes and returns (`Scale` for `scale`), when discovery says. */
  kind?: string;
  verbs: string[];
}

/**
 * One resource a server serves in one group version (client-go's `metav1.APIResource`, with what aggregated
 * discovery adds): the plural, singular and kind, scope, verbs, short names, categories and subresources.
 */
export interface APIResourceInfo {
  group: string;
  version: string;
  /** Plural, e.g. `deployments`. */
  resource: string;
  /** Singular, e.g. `deployment` (discovery gives it; never guessed). */
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: APISubresourceInfo[];
}

/** A served group: its versions in the server's order of preference, and the preferred one. */
export interface APIGroupInfo {
  /** `''` for the core group. */
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** `apps/v1`, `v1`: the `apiVersion` of a group version. */
export function groupVersionString(gv: { group: string; version: string }): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/** Splits an `apiVersion` (`apps/v1`, `v1`) into group and version. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The `ResourceInfo` clients, informers and the fake need for a discovered resource. `listKind` is `<Kind>List`
 * (discovery does not carry it; the apiserver names lists so).
 */
export function resourceInfoOf(r: Pick<APIResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>): ResourceInfo {
  return { group: r.group, version: r.version, resource: r.resource, kind: r.kind, listKind: `${r.kind}List`, namespaced: r.namespaced };
}
