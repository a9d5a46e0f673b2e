/**
 * The two wire formats of discovery and their conversion into {@link APIGroupInfo} and {@link APIResourceInfo}:
 *
 * - aggregated discovery (`apidiscovery.k8s.io` v2, or v2beta1 from 1.26–1.29 servers): `/api` and `/apis` each
 *   answer one `APIGroupDiscoveryList` with every group, version and resource (client-go
 *   `discovery/aggregated_discovery.go`): a version with `freshness: Stale` is a failed group version, the preferred
 *   version is the first non-stale one, a resource without a `responseKind` is dropped (its subresources with it);
 * - legacy discovery: `/api` (`APIVersions`), `/apis` (`APIGroupList`) and one `APIResourceList` per group version;
 *   subresources are `parent/sub` entries, folded here into their parent's `subresources`.
 *
 * Which format a response is in is decided by its Content-Type, whatever order its parameters are in
 * ({@link contentTypeIsGVK}, client-go `ContentTypeIsGVK`). Nothing here does I/O.
 */
import { groupVersionString, type APIGroupInfo, type APIResourceInfo, type APISubresourceInfo } from './types.js';

const JSON_TYPE = 'application/json';
/** The aggregated discovery v2 media type (client-go `AcceptV2`). */
export const ACCEPT_AGGREGATED_V2 = `${JSON_TYPE};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`;
/** The aggregated discovery v2beta1 media type, served by 1.26–1.29 apiservers (client-go `AcceptV2Beta1`). */
export const ACCEPT_AGGREGATED_V2BETA1 = `${JSON_TYPE};g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList`;
/** The `Accept` of `/api` and `/apis`: aggregated v2, then v2beta1, then legacy JSON (client-go's order). */
export const ACCEPT_DISCOVERY = `${ACCEPT_AGGREGATED_V2},${ACCEPT_AGGREGATED_V2BETA1},${JSON_TYPE}`;

/** A media type's base (lower case) and parameters (names lower case, values unquoted), or undefined if malformed. */
export function parseMediaType(value: string): { type: string; params: Map<string, string> } | undefined {
  const parts = value.split(';');
  const type = parts[0]!.trim().toLowerCase();
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(type)) return undefined;
  const params = new Map<string, string>();
  for (const p of parts.slice(1)) {
    if (p.trim() === '') continue;
    const eq = p.indexOf('=');
    if (eq < 0) return undefined;
    let v = p.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    params.set(p.slice(0, eq).trim().toLowerCase(), v);
  }
  return { type, params };
}

/** True when `contentType` is JSON of the given group/version/kind (`g`, `v`, `as` parameters in any order). */
export function contentTypeIsGVK(contentType: string | undefined, gvk: { group: string; version: string; kind: string }): boolean {
  const mt = contentType === undefined ? undefined : parseMediaType(contentType);
  return !!mt && mt.type === JSON_TYPE && mt.params.get('g') === gvk.group && mt.params.get('v') === gvk.version && mt.params.get('as') === gvk.kind;
}

/** `'v2'`/`'v2beta1'` when a response's Content-Type says aggregated discovery, else undefined (legacy). */
export function aggregatedVersionOf(contentType: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const v of ['v2', 'v2beta1'] as const) {
    if (contentTypeIsGVK(contentType, { group: 'apidiscovery.k8s.io', version: v, kind: 'APIGroupDiscoveryList' })) return v;
  }
  return undefined;
}

/** Groups, the resources of each group version (keyed `apps/v1`, `v1`) and the group versions that failed. */
export interface GroupsAndResources {
  groups: APIGroupInfo[];
  resources: Map<string, APIResourceInfo[]>;
  failed: Map<string, Error>;
}

/** A group version marked `freshness: Stale` in aggregated discovery (client-go `StaleGroupVersionError`). */
export class StaleGroupVersionError extends Error {
  override readonly name = 'StaleGroupVersionError';
  constructor(readonly groupVersion: string) {
    super(`stale GroupVersion discovery: ${groupVersion}`);
  }
}

interface WireKind {
  group?: string;
  version?: string;
  kind?: string;
}
interface WireSubresource {
  subresource?: string;
  responseKind?: WireKind;
  verbs?: string[];
}
interface WireResource {
  resource?: string;
  responseKind?: WireKind;
  scope?: string;
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: WireSubresource[];
}
interface WireGroupDiscovery {
  metadata?: { name?: string };
  versions?: { version?: string; resources?: WireResource[]; freshness?: string }[];
}

/** Converts an `APIGroupDiscoveryList` (v2 or v2beta1: the same JSON) as client-go `SplitGroupsAndResources` does. */
export function parseAggregatedDiscovery(doc: unknown): GroupsAndResources {
  const out: GroupsAndResources = { groups: [], resources: new Map(), failed: new Map() };
  for (const g of arrayOf<WireGroupDiscovery>((doc as { items?: unknown } | null)?.items)) {
    const name = g.metadata?.name ?? '';
    const group: APIGroupInfo = { name, versions: [], preferredVersion: '' };
    for (const v of arrayOf<NonNullable<WireGroupDiscovery['versions']>[number]>(g.versions)) {
      const version = v.version ?? '';
      const gv = groupVersionString({ group: name, version });
      if (v.freshness === 'Stale') {
        out.failed.set(gv, new StaleGroupVersionError(gv));
        continue;
      }
      group.versions.push(version);
      if (!group.preferredVersion) group.preferredVersion = version;
      const list: APIResourceInfo[] = [];
      for (const r of arrayOf<WireResource>(v.resources)) {
        const kind = r.responseKind?.kind;
        if (!r.resource || !kind) continue; // no GVK: not a usable resource (client-go drops it too)
        list.push({
          group: name,
          version,
          resource: r.resource,
          singular: r.singularResource ?? '',
          kind,
          namespaced: r.scope === 'Namespaced',
          verbs: stringsOf(r.verbs),
          shortNames: stringsOf(r.shortNames),
          categories: stringsOf(r.categories),
          subresources: arrayOf<WireSubresource>(r.subresources)
            .filter((s) => s.subresource && s.responseKind?.kind)
            .map((s) => subresourceInfo(s.subresource!, s.responseKind!.kind, s.verbs)),
        });
      }
      out.resources.set(gv, list);
    }
    out.groups.push(group);
  }
  return out;
}

/** `/api`'s `APIVersions` as the core group (`''`); undefined when it lists no version. */
export function parseAPIVersions(doc: unknown): APIGroupInfo | undefined {
  const versions = stringsOf((doc as { versions?: unknown } | null)?.versions);
  return versions.length > 0 ? { name: '', versions, preferredVersion: versions[0]! } : undefined;
}

/** `/apis`'s `APIGroupList`. A group without a preferred version prefers its first. */
export function parseAPIGroupList(doc: unknown): APIGroupInfo[] {
  type WireGroup = { name?: string; versions?: { version?: string }[]; preferredVersion?: { version?: string } };
  return arrayOf<WireGroup>((doc as { groups?: unknown } | null)?.groups).map((g) => {
    const versions = arrayOf<{ version?: string }>(g.versions)
      .map((v) => v.version ?? '')
      .filter((v) => v !== '');
    return { name: g.name ?? '', versions, preferredVersion: g.preferredVersion?.version || versions[0] || '' };
  });
}

/**
 * One group version's `APIResourceList`: resources with a kind, each with its `parent/sub` entries folded into
 * `subresources` (a subresource whose parent is not listed is dropped).
 */
export function parseAPIResourceList(doc: unknown, group: string, version: string): APIResourceInfo[] {
  type WireAPIResource = { name?: string; singularName?: string; namespaced?: boolean; kind?: string; verbs?: string[]; shortNames?: string[]; categories?: string[] };
  const entries = arrayOf<WireAPIResource>((doc as { resources?: unknown } | null)?.resources);
  const byName = new Map<string, APIResourceInfo>();
  for (const r of entries) {
    if (!r.name || r.name.includes('/') || !r.kind) continue;
    byName.set(r.name, {
      group,
      version,
      resource: r.name,
      singular: r.singularName ?? '',
      kind: r.kind,
      namespaced: r.namespaced === true,
      verbs: stringsOf(r.verbs),
      shortNames: stringsOf(r.shortNames),
      categories: stringsOf(r.categories),
      subresources: [],
    });
  }
  for (const r of entries) {
    const slash = r.name?.indexOf('/') ?? -1;
    if (slash < 0 || !r.kind) continue;
    byName.get(r.name!.slice(0, slash))?.subresources.push(subresourceInfo(r.name!.slice(slash + 1), r.kind, r.verbs));
  }
  return [...byName.values()];
}

function subresourceInfo(name: string, kind: string | undefined, verbs: unknown): APISubresourceInfo {
  return kind ? { name, kind, verbs: stringsOf(verbs) } : { name, verbs: stringsOf(verbs) };
}

function arrayOf<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as T[]) : [];
}

function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
