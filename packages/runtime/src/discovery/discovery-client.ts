/**
 * `DiscoveryClient`: what the server serves (client-go `discovery.DiscoveryClient`). It asks `/api` and `/apis` for
 * aggregated discovery first (two requests give every group, version and resource); when either answers in the
 * legacy format it falls back to the walk of `/apis/<group>/<version>` (fetched in parallel, a bounded number at a
 * time). Partial failure is a normal result, not an exception: a group version that is stale or fails to load is
 * an entry in `failed` next to everything that did load (client-go `ErrGroupDiscoveryFailed`). Nothing is cached
 * here; see `CachedDiscoveryClient`.
 */
import { apiErrorFromResponse } from '../client/response-status.js';
import type { RawResponse, Transport } from '../client/types.js';
import {
  ACCEPT_DISCOVERY,
  aggregatedVersionOf,
  parseAggregatedDiscovery,
  parseAPIGroupList,
  parseAPIResourceList,
  parseAPIVersions,
} from './discovery-formats.js';
import { groupVersionString, type APIGroupInfo, type APIResourceInfo } from './types.js';

/** Settings of a {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /** Ask for the legacy format only (client-go `WithLegacy()`), as servers before 1.26 answer anyway. */
  legacyOnly?: boolean;
  /** How many group versions the legacy walk fetches at once (default 8). */
  concurrency?: number;
  /** Timeout of each request in ms (default: the transport's). */
  timeoutMs?: number;
}

/**
 * Everything discovery found: the groups (core first, then in the server's order, each with its versions in the
 * server's order of preference), the resources of each group version that loaded (keyed by `apiVersion`: `v1`,
 * `apps/v1`), and the group versions that did not (stale or failed), with why.
 */
export interface DiscoveryResult {
  groups: APIGroupInfo[];
  resources: Map<string, APIResourceInfo[]>;
  failed: Map<string, Error>;
  /** True when the server answered with aggregated discovery (two requests), false after the legacy walk. */
  aggregated: boolean;
}

/** The server's `/version` (apimachinery `version.Info`). */
export interface ServerVersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  gitTreeState?: string;
  buildDate?: string;
  goVersion?: string;
  compiler?: string;
  platform?: string;
  [key: string]: unknown;
}

/**
 * Some group versions could not be discovered (client-go `ErrGroupDiscoveryFailed`); `groups` says which and why.
 * {@link discoveryFailure} builds it from a partial {@link DiscoveryResult}.
 */
export class GroupDiscoveryFailedError extends Error {
  override readonly name = 'GroupDiscoveryFailedError';
  constructor(readonly groups: ReadonlyMap<string, Error>) {
    const parts = [...groups].map(([gv, err]) => `${gv}: ${err.message}`).sort();
    super(`unable to retrieve the complete list of server APIs: ${parts.join(', ')}`);
  }
}

/** The error that describes a partial result's failed group versions, or undefined when nothing failed. */
export function discoveryFailure(result: Pick<DiscoveryResult, 'failed'>): GroupDiscoveryFailedError | undefined {
  return result.failed.size > 0 ? new GroupDiscoveryFailedError(result.failed) : undefined;
}

/** Groups and, when both `/api` and `/apis` answered aggregated discovery, every resource (`resources` set). */
export interface GroupsAndMaybeResources {
  groups: APIGroupInfo[];
  resources: Map<string, APIResourceInfo[]> | undefined;
  failed: Map<string, Error>;
}

/** Discovery over a `Transport` (see the module comment). */
export class DiscoveryClient {
  readonly transport: Transport;
  private readonly legacyOnly: boolean;
  private readonly concurrency: number;
  private readonly timeoutMs: number | undefined;

  constructor(transport: Transport, opts: DiscoveryClientOptions = {}) {
    this.transport = transport;
    this.legacyOnly = opts.legacyOnly ?? false;
    this.concurrency = Math.max(1, opts.concurrency ?? 8);
    this.timeoutMs = opts.timeoutMs;
  }

  /**
   * `/api` and `/apis` (client-go `GroupsAndMaybeResources`): the groups, and every resource when both answered in
   * the aggregated format (a 404 on `/api`, as from a server without the core group, counts as an empty answer).
   * Rejects when either request fails.
   */
  async groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources> {
    const accept = this.legacyOnly ? 'application/json' : ACCEPT_DISCOVERY;
    const [api, apis] = await Promise.all([this.get('/api', accept, signal), this.get('/apis', accept, signal)]);
    // A 404 on /api is tolerated (client-go: aggregated apiservers and the CRD apiserver serve no core group).
    const core = api.statusCode === 404 ? { groups: [], resources: new Map<string, APIResourceInfo[]>(), failed: new Map<string, Error>() } : this.parseRoot(api, '/api');
    const rest = this.parseRoot(apis, '/apis');
    const failed = new Map([...core.failed, ...rest.failed]);
    const groups = [...core.groups, ...rest.groups];
    const resources = core.resources && rest.resources ? new Map([...core.resources, ...rest.resources]) : undefined;
    return { groups, resources, failed };
  }

  /** The served groups (core first), each with its versions and preferred version. */
  async serverGroups(signal?: AbortSignal): Promise<APIGroupInfo[]> {
    return (await this.groupsAndMaybeResources(signal)).groups;
  }

  /**
   * The resources of one group version (`/api/v1`, `/apis/<group>/<version>`), legacy format. Rejects with an
   * `ApiError` when the server answers an error (a 404 when the group version is not served).
   */
  async serverResourcesForGroupVersion(group: string, version: string, signal?: AbortSignal): Promise<APIResourceInfo[]> {
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const res = await this.get(path, 'application/json', signal);
    ok(res, path);
    return parseAPIResourceList(parseJson(res, path), group, version);
  }

  /**
   * Every group and resource (client-go `ServerGroupsAndResources`): one aggregated answer, or the legacy walk.
   * Resolves with a partial result when some group versions fail; rejects only when `/api` or `/apis` does.
   */
  async serverGroupsAndResources(signal?: AbortSignal): Promise<DiscoveryResult> {
    const first = await this.groupsAndMaybeResources(signal);
    if (first.resources) return { groups: first.groups, resources: first.resources, failed: first.failed, aggregated: true };
    const gvs = first.groups.flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
    const { resources, failed } = await this.fetchGroupVersions(gvs, signal);
    return { groups: first.groups, resources: ordered(first.groups, resources), failed: new Map([...first.failed, ...failed]), aggregated: false };
  }

  /**
   * The resources of these group versions, fetched in parallel (at most `concurrency` at a time): what loaded and,
   * per group version, why the others did not.
   */
  async fetchGroupVersions(gvs: readonly { group: string; version: string }[], signal?: AbortSignal): Promise<Pick<DiscoveryResult, 'resources' | 'failed'>> {
    const resources = new Map<string, APIResourceInfo[]>();
    const failed = new Map<string, Error>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < gvs.length) {
        const gv = gvs[next++]!;
        try {
          resources.set(groupVersionString(gv), await this.serverResourcesForGroupVersion(gv.group, gv.version, signal));
        } catch (err) {
          if (signal?.aborted) throw err;
          failed.set(groupVersionString(gv), err instanceof Error ? err : new Error(String(err)));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, gvs.length) }, worker));
    return { resources, failed };
  }

  /**
   * One resource per group and resource name, in its group's preferred version where that serves it, else the first
   * version that does (client-go `ServerPreferredResources`); with the group versions that failed.
   */
  async serverPreferredResources(signal?: AbortSignal): Promise<{ resources: APIResourceInfo[]; failed: Map<string, Error> }> {
    const all = await this.serverGroupsAndResources(signal);
    return { resources: preferredResources(all), failed: all.failed };
  }

  /** `/version`: the server's version. */
  async serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo> {
    const res = await this.get('/version', 'application/json', signal);
    ok(res, '/version');
    const info = parseJson(res, '/version') as ServerVersionInfo | null;
    if (!info || typeof info !== 'object' || typeof info.gitVersion !== 'string') throw new Error('unable to parse the server version: /version answered no gitVersion');
    return info;
  }

  private get(path: string, accept: string, signal: AbortSignal | undefined): Promise<RawResponse> {
    return this.transport.raw('GET', path, { accept, ...(signal ? { signal } : {}), ...(this.timeoutMs !== undefined ? { timeoutMs: this.timeoutMs } : {}) });
  }

  /** `/api` or `/apis` in whichever format the Content-Type names; `resources` undefined for the legacy format. */
  private parseRoot(res: RawResponse, path: string): { groups: APIGroupInfo[]; resources: Map<string, APIResourceInfo[]> | undefined; failed: Map<string, Error> } {
    ok(res, path);
    const doc = parseJson(res, path);
    if (aggregatedVersionOf(header(res, 'content-type'))) return parseAggregatedDiscovery(doc);
    const groups = path === '/api' ? [parseAPIVersions(doc)].filter((g): g is APIGroupInfo => g !== undefined) : parseAPIGroupList(doc);
    return { groups, resources: undefined, failed: new Map() };
  }
}

/** The preferred-version pick of `ServerPreferredResources` over a result (see `serverPreferredResources`). */
export function preferredResources(all: Pick<DiscoveryResult, 'groups' | 'resources'>): APIResourceInfo[] {
  const chosen = new Map<string, APIResourceInfo>();
  for (const g of all.groups) {
    for (const version of g.versions) {
      for (const r of all.resources.get(groupVersionString({ group: g.name, version })) ?? []) {
        const key = `${g.name}/${r.resource}`;
        if (chosen.has(key) && version !== g.preferredVersion) continue;
        chosen.set(key, r);
      }
    }
  }
  return [...chosen.values()];
}

/** `resources` re-keyed in group, then version order (the order discovery lists them). */
function ordered(groups: APIGroupInfo[], resources: Map<string, APIResourceInfo[]>): Map<string, APIResourceInfo[]> {
  const out = new Map<string, APIResourceInfo[]>();
  for (const g of groups) {
    for (const version of g.versions) {
      const gv = groupVersionString({ group: g.name, version });
      const list = resources.get(gv);
      if (list) out.set(gv, list);
    }
  }
  return out;
}

function header(res: RawResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Rejects a non-2xx answer with the `ApiError` its body describes. */
function ok(res: RawResponse, path: string): void {
  if (res.statusCode >= 200 && res.statusCode < 300) return;
  const err = apiErrorFromResponse(res.statusCode, res.body);
  err.message = `GET ${path}: ${err.message}`;
  throw err;
}

function parseJson(res: RawResponse, path: string): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch (err) {
    throw new Error(`GET ${path}: the response is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}
