/**
 * The fake's discovery, computed from the resources its tracker serves at the moment of the request (so CRDs added
 * to a running fake show up at once): aggregated discovery (`apidiscovery.k8s.io` v2, or v2beta1 when that is all
 * the request accepts) at `/api` and `/apis` when the request's `Accept` asks for it, else the legacy documents
 * (`/api`, `/apis`, `/apis/<group>`, `/api/v1`, `/apis/<group>/<version>`). `format: 'legacy'` serves the legacy
 * documents whatever the request accepts, as a server before 1.26 does.
 *
 * Order: the core group first, then groups in the order their first resource was registered; a group's versions by
 * Kubernetes version priority (the first is preferred); a version's resources in registration order. Without any
 * core resource, `/api` answers 404 (as the CRD apiserver does). Group versions listed in `stale` are `Stale` in
 * aggregated discovery and answer 503 in the legacy walk (an aggregated API whose backend is down).
 */
import { newStatus } from '../../client/errors.js';
import type { RawResponse } from '../../client/types.js';
import { ACCEPT_AGGREGATED_V2, ACCEPT_AGGREGATED_V2BETA1, contentTypeIsGVK } from '../../discovery/discovery-formats.js';
import { groupVersionString } from '../../discovery/types.js';
import { sortByVersionPriority } from '../../discovery/version-priority.js';
import type { FakeResource } from './fake-resource.js';

/** How the fake answers discovery: `aggregated` (the default, as 1.30+ servers) or `legacy` only. */
export type FakeDiscoveryFormat = 'aggregated' | 'legacy';

/** What the fake's discovery serves and how (see the module comment). */
export interface FakeDiscoveryOptions {
  format: FakeDiscoveryFormat;
  /** `apps/v1`, `v1`: group versions reported stale (aggregated) or failing with 503 (legacy). */
  stale: ReadonlySet<string>;
}

/** The verbs a resource lists when its `FakeResource` names none. */
export const DEFAULT_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface Group {
  name: string;
  /** By priority, preferred first. */
  versions: string[];
  byVersion: Map<string, FakeResource[]>;
}

/** The answer to a discovery path, or undefined when `path` is not a discovery path. */
export function serveDiscovery(resources: readonly FakeResource[], path: string, accept: string | undefined, opts: FakeDiscoveryOptions): RawResponse | undefined {
  const groups = groupsOf(resources);
  const core = groups.find((g) => g.name === '');
  const named = groups.filter((g) => g.name !== '');
  const aggregated = opts.format === 'aggregated' ? aggregatedAccepted(accept) : undefined;
  if (path === '/api') {
    if (!core) return notFound();
    if (aggregated) return json(200, aggregatedList(aggregated, [core], opts), `${aggregated === 'v2' ? ACCEPT_AGGREGATED_V2 : ACCEPT_AGGREGATED_V2BETA1}`);
    return json(200, { kind: 'APIVersions', versions: core.versions, serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: 'fake:443' }] });
  }
  if (path === '/apis') {
    if (aggregated) return json(200, aggregatedList(aggregated, named, opts), `${aggregated === 'v2' ? ACCEPT_AGGREGATED_V2 : ACCEPT_AGGREGATED_V2BETA1}`);
    return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: named.map(legacyGroup) });
  }
  const m = /^\/(?:api\/([^/]+)|apis\/([^/]+)(?:\/([^/]+))?)$/.exec(path);
  if (!m) return undefined;
  const [groupName, version] = m[1] !== undefined ? ['', m[1]] : [m[2]!, m[3]];
  const group = groups.find((g) => g.name === groupName);
  if (version === undefined) return group ? json(200, { kind: 'APIGroup', apiVersion: 'v1', ...legacyGroup(group) }) : notFound();
  const list = group?.byVersion.get(version);
  if (!list) return notFound();
  const gv = groupVersionString({ group: groupName, version });
  if (opts.stale.has(gv)) return json(503, newStatus(503, 'ServiceUnavailable', `the server is currently unable to handle the request (get ${gv})`));
  return json(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: list.flatMap(legacyResources) });
}

/** The aggregated version the request accepts (v2 preferred), if any. */
function aggregatedAccepted(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  const types = (accept ?? '').split(',');
  const accepts = (version: string): boolean => types.some((t) => contentTypeIsGVK(t, { group: 'apidiscovery.k8s.io', version, kind: 'APIGroupDiscoveryList' }));
  return accepts('v2') ? 'v2' : accepts('v2beta1') ? 'v2beta1' : undefined;
}

function groupsOf(resources: readonly FakeResource[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of resources) {
    let g = groups.get(r.group);
    if (!g) groups.set(r.group, (g = { name: r.group, versions: [], byVersion: new Map() }));
    const list = g.byVersion.get(r.version) ?? [];
    list.push(r);
    g.byVersion.set(r.version, list);
  }
  for (const g of groups.values()) g.versions = sortByVersionPriority(g.byVersion.keys());
  return [...groups.values()];
}

function aggregatedList(version: 'v2' | 'v2beta1', groups: Group[], opts: FakeDiscoveryOptions): unknown {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => {
        const stale = opts.stale.has(groupVersionString({ group: g.name, version: v }));
        return { version: v, resources: stale ? [] : g.byVersion.get(v)!.map(aggregatedResource), freshness: stale ? 'Stale' : 'Current' };
      }),
    })),
  };
}

function aggregatedResource(r: FakeResource): unknown {
  return {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular ?? r.kind.toLowerCase(),
    verbs: r.verbs ?? DEFAULT_VERBS,
    ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories?.length ? { categories: r.categories } : {}),
    ...(subresourcesOf(r).length
      ? { subresources: subresourcesOf(r).map((s) => ({ subresource: s.name, ...(s.kind ? { responseKind: s.kind } : {}), verbs: s.verbs })) }
      : {}),
  };
}

function legacyGroup(g: Group): Record<string, unknown> {
  const gv = (version: string) => ({ groupVersion: groupVersionString({ group: g.name, version }), version });
  return { name: g.name, versions: g.versions.map(gv), preferredVersion: gv(g.versions[0]!) };
}

function legacyResources(r: FakeResource): unknown[] {
  const main = {
    name: r.resource,
    singularName: r.singular ?? r.kind.toLowerCase(),
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs ?? DEFAULT_VERBS,
    ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories?.length ? { categories: r.categories } : {}),
  };
  const subs = subresourcesOf(r).map((s) => ({
    name: `${r.resource}/${s.name}`,
    singularName: '',
    namespaced: r.namespaced,
    ...(s.kind && (s.kind.group !== r.group || s.kind.version !== r.version) ? { group: s.kind.group, version: s.kind.version } : {}),
    kind: s.kind?.kind ?? r.kind,
    verbs: s.verbs,
  }));
  return [main, ...subs];
}

/** `status`, `scale` and the extra subresources of a resource, with the kinds they answer with. */
function subresourcesOf(r: FakeResource): { name: string; kind?: { group: string; version: string; kind: string }; verbs: string[] }[] {
  const out: { name: string; kind?: { group: string; version: string; kind: string }; verbs: string[] }[] = [];
  if (r.statusSubresource) out.push({ name: 'status', kind: { group: r.group, version: r.version, kind: r.kind }, verbs: ['get', 'patch', 'update'] });
  if (r.scale) out.push({ name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] });
  for (const s of r.subresources ?? []) out.push({ name: s.name, ...(s.kind ? { kind: { group: r.group, version: r.version, kind: s.kind } } : {}), verbs: s.verbs });
  return out;
}

function notFound(): RawResponse {
  return { statusCode: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from('404 page not found\n') };
}

function json(statusCode: number, body: unknown, contentType = 'application/json'): RawResponse {
  return { statusCode, headers: { 'content-type': contentType }, body: Buffer.from(JSON.stringify(body)) };
}
