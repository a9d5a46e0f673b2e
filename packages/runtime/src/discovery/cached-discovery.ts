/**
 * `CachedDiscoveryClient`: discovery kept in memory (client-go `discovery/cached/memory`). The first read fills the
 * cache (one aggregated answer or the legacy walk) and it stays valid until `invalidate()`: there is no TTL. One
 * group version can be dropped with `invalidateGroupVersion` and is then refetched alone on the next read. A group
 * version that failed with a transient error (connection refused or reset, a 5xx, a 429, a timeout) is retried on
 * the next read that needs it; other failures (a 404, a stale group version) stay until `invalidate()`.
 * Reads return copies of the cached lists' containers; the resource objects are shared (treat them as read-only).
 */
import { ApiError, isConnectionError } from '../client/errors.js';
import { DiscoveryClient, preferredResources, type DiscoveryResult, type ServerVersionInfo } from './discovery-client.js';
import { groupVersionString, type APIGroupInfo, type APIResourceInfo } from './types.js';

/** A group version the cache does not know (client-go `ErrCacheNotFound`): not served when the cache was filled. */
export class CacheNotFoundError extends Error {
  override readonly name = 'CacheNotFoundError';
  constructor(readonly groupVersion: string) {
    super(`discovery cache: group version ${groupVersion} not found`);
  }
}

/** True for failures worth asking again: connection refused/reset/timed out, 5xx, 429 (client-go `isTransientError`). */
export function isTransientDiscoveryError(err: unknown): boolean {
  if (err instanceof ApiError) return err.code >= 500 || err.code === 429;
  return isConnectionError(err) || (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'));
}

/** Discovery cached in memory (see the module comment). */
export class CachedDiscoveryClient {
  readonly delegate: DiscoveryClient;
  private cache: DiscoveryResult | undefined;
  private filling: Promise<DiscoveryResult> | undefined;
  private readonly refetching = new Map<string, Promise<void>>();
  /** Bumped by `invalidate()`: a fill or refetch started before it does not write into the new cache. */
  private generation = 0;

  constructor(delegate: DiscoveryClient) {
    this.delegate = delegate;
  }

  /** True once the cache has been filled (client-go `Fresh()`), until `invalidate()`. */
  get fresh(): boolean {
    return this.cache !== undefined;
  }

  /** Forgets everything; the next read asks the server again. */
  invalidate(): void {
    this.cache = undefined;
    this.filling = undefined;
    this.refetching.clear();
    this.generation++;
  }

  /** Drops one group version; the next read that needs it fetches `/apis/<group>/<version>` alone. */
  invalidateGroupVersion(group: string, version: string): void {
    const gv = groupVersionString({ group, version });
    this.cache?.resources.delete(gv);
    this.cache?.failed.delete(gv);
  }

  /** Every group and resource, from the cache; transiently failed group versions (and dropped ones) are fetched again. */
  async serverGroupsAndResources(signal?: AbortSignal): Promise<DiscoveryResult> {
    const cache = await this.filled(signal);
    const gvs = cache.groups.flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
    await Promise.all(gvs.filter((gv) => this.needsFetch(cache, groupVersionString(gv))).map((gv) => this.refetch(cache, gv.group, gv.version, signal)));
    return { groups: cache.groups.map((g) => ({ ...g, versions: [...g.versions] })), resources: new Map(cache.resources), failed: new Map(cache.failed), aggregated: cache.aggregated };
  }

  /** The served groups, from the cache. */
  async serverGroups(signal?: AbortSignal): Promise<APIGroupInfo[]> {
    return (await this.filled(signal)).groups.map((g) => ({ ...g, versions: [...g.versions] }));
  }

  /**
   * The resources of one group version from the cache (fetched alone when dropped or transiently failed). Rejects
   * with the group version's own error, or {@link CacheNotFoundError} for one the server did not list.
   */
  async serverResourcesForGroupVersion(group: string, version: string, signal?: AbortSignal): Promise<APIResourceInfo[]> {
    const cache = await this.filled(signal);
    const gv = groupVersionString({ group, version });
    const listed = cache.groups.some((g) => g.name === group && g.versions.includes(version));
    if (!listed && !cache.resources.has(gv) && !cache.failed.has(gv)) throw new CacheNotFoundError(gv);
    if (this.needsFetch(cache, gv)) await this.refetch(cache, group, version, signal);
    const failure = cache.failed.get(gv);
    if (failure) throw failure;
    return [...(cache.resources.get(gv) ?? [])];
  }

  /** Preferred resources (see `DiscoveryClient.serverPreferredResources`), from the cache. */
  async serverPreferredResources(signal?: AbortSignal): Promise<{ resources: APIResourceInfo[]; failed: Map<string, Error> }> {
    const all = await this.serverGroupsAndResources(signal);
    return { resources: preferredResources(all), failed: all.failed };
  }

  /** `/version`, never cached. */
  serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo> {
    return this.delegate.serverVersion(signal);
  }

  private async filled(signal: AbortSignal | undefined): Promise<DiscoveryResult> {
    if (this.cache) return this.cache;
    if (!this.filling) {
      const generation = this.generation;
      const filling = this.delegate.serverGroupsAndResources(signal).then(
        (result) => {
          if (generation === this.generation) {
            this.cache = result;
            this.filling = undefined;
          }
          return result;
        },
        (err: unknown) => {
          if (generation === this.generation) this.filling = undefined;
          throw err;
        },
      );
      this.filling = filling;
    }
    return this.filling;
  }

  private needsFetch(cache: DiscoveryResult, gv: string): boolean {
    if (cache.resources.has(gv)) return false;
    const failure = cache.failed.get(gv);
    return failure === undefined || isTransientDiscoveryError(failure);
  }

  private refetch(cache: DiscoveryResult, group: string, version: string, signal: AbortSignal | undefined): Promise<void> {
    const gv = groupVersionString({ group, version });
    let pending = this.refetching.get(gv);
    if (!pending) {
      pending = this.delegate
        .serverResourcesForGroupVersion(group, version, signal)
        .then(
          (list) => {
            cache.resources.set(gv, list);
            cache.failed.delete(gv);
          },
          (err: unknown) => {
            cache.failed.set(gv, err instanceof Error ? err : new Error(String(err)));
          },
        )
        .finally(() => {
          if (this.refetching.get(gv) === pending) this.refetching.delete(gv);
        });
      this.refetching.set(gv, pending);
    }
    return pending;
  }
}
