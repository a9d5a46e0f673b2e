/**
 * What the mapper has learnt from discovery so far: the group list (in the server's order) and the resources of
 * each group version it loaded, with the failures of those that did not load. Filled lazily, a group (or every
 * group) at a time; a group version that answers 404 is evicted (controller-runtime#2663). Not safe for concurrent
 * loads: the mapper runs them one at a time.
 */
import { isNotFound } from '../client/errors.js';
import type { DiscoveryClient, GroupsAndMaybeResources } from '../discovery/discovery-client.js';
import { groupVersionString, type APIGroupInfo, type APIResourceInfo } from '../discovery/types.js';
import type { GroupResources } from './mapping-table.js';

/** The mapper's discovery state (see the module comment). `changed` is called whenever what it holds changes. */
export class DiscoverySnapshot {
  private groups = new Map<string, APIGroupInfo>();
  private loaded = new Map<string, APIResourceInfo[]>();
  private failures = new Map<string, Error>();
  private aggregated = false;
  /** True once the group list was loaded (and until `clear()` or `dropGroup()`). */
  listed = false;

  constructor(
    private readonly discovery: DiscoveryClient,
    private readonly changed: () => void,
  ) {}

  /** `/api` and `/apis`: the groups, and with aggregated discovery every resource too (replacing what was held). */
  async loadGroupList(): Promise<void> {
    this.apply(await this.discovery.groupsAndMaybeResources());
  }

  /**
   * Loads the group versions never tried of the groups in `scope` (every group when undefined; else the groups whose
   * name starts with it, as group names match by prefix).
   */
  async loadUntried(scope: string | undefined): Promise<void> {
    const gvs = this.groupVersionsIn(scope === undefined ? undefined : [scope]).filter((gv) => {
      const key = groupVersionString(gv);
      return !this.loaded.has(key) && !this.failures.has(key);
    });
    if (gvs.length > 0) await this.fetch(gvs);
  }

  /**
   * Asks again: the group list (with aggregated discovery, everything), then, from a legacy server, every version of
   * the groups in `scopes` (of every group when undefined).
   */
  async refresh(scopes: string[] | undefined): Promise<void> {
    await this.loadGroupList();
    if (!this.aggregated) await this.fetch(this.groupVersionsIn(scopes));
  }

  /** The resources of a loaded group version (undefined when not served or not loaded). */
  resourcesOf(group: string, version: string): readonly APIResourceInfo[] | undefined {
    return this.loaded.get(groupVersionString({ group, version }));
  }

  /** Why group versions of the groups in `scope` did not load. */
  failuresOf(scope: string): Map<string, Error> {
    const out = new Map<string, Error>();
    for (const [gv, err] of this.failures) {
      const slash = gv.indexOf('/');
      if (inScope(slash < 0 ? '' : gv.slice(0, slash), scope)) out.set(gv, err);
    }
    return out;
  }

  /** The loaded groups for a `MappingTable`, without the resource versions `hidden` says are gone. */
  groupResources(hidden: (group: string, version: string, resource: string) => boolean): GroupResources[] {
    return [...this.groups.values()].map((group) => {
      const versions = new Map<string, APIResourceInfo[]>();
      for (const v of group.versions) {
        const list = this.loaded.get(groupVersionString({ group: group.name, version: v }));
        if (list) versions.set(v, list.filter((r) => !hidden(group.name, v, r.resource)));
      }
      return { group, versions };
    });
  }

  /** Forgets one group's resources and the group list: the next lookup asks again. */
  dropGroup(group: string): void {
    for (const gv of [...this.loaded.keys(), ...this.failures.keys()]) {
      if (gv.slice(0, Math.max(0, gv.indexOf('/'))) === group || (group === '' && !gv.includes('/'))) {
        this.loaded.delete(gv);
        this.failures.delete(gv);
      }
    }
    this.listed = false;
    this.changed();
  }

  clear(): void {
    this.groups.clear();
    this.loaded.clear();
    this.failures.clear();
    this.listed = false;
    this.changed();
  }

  private apply(r: GroupsAndMaybeResources): void {
    this.groups = new Map(r.groups.map((g) => [g.name, { ...g, versions: [...g.versions] }]));
    this.aggregated = r.resources !== undefined;
    if (r.resources) {
      this.loaded = new Map(r.resources);
      this.failures = new Map(r.failed);
    } else {
      const listed = new Set(this.groupVersionsIn(undefined).map(groupVersionString));
      for (const gv of [...this.loaded.keys()]) if (!listed.has(gv)) this.loaded.delete(gv);
      for (const gv of [...this.failures.keys()]) if (!listed.has(gv)) this.failures.delete(gv);
    }
    this.listed = true;
    this.changed();
  }

  /** Fetches group versions; a 404 evicts the version (and its group when none is left), other failures are kept. */
  private async fetch(gvs: { group: string; version: string }[]): Promise<void> {
    const { resources, failed } = await this.discovery.fetchGroupVersions(gvs);
    for (const [gv, list] of resources) {
      this.loaded.set(gv, list);
      this.failures.delete(gv);
    }
    for (const gv of gvs) {
      const key = groupVersionString(gv);
      const err = failed.get(key);
      if (!err) continue;
      this.loaded.delete(key);
      if (isNotFound(err)) {
        this.failures.delete(key);
        const g = this.groups.get(gv.group);
        if (g) g.versions = g.versions.filter((v) => v !== gv.version);
        if (g && g.versions.length === 0) this.groups.delete(gv.group);
        else if (g && g.preferredVersion === gv.version) g.preferredVersion = g.versions[0]!;
      } else {
        this.failures.set(key, err);
      }
    }
    this.changed();
  }

  /** The listed group versions of the groups whose name starts with one of `scopes` (all when undefined). */
  private groupVersionsIn(scopes: string[] | undefined): { group: string; version: string }[] {
    return [...this.groups.values()]
      .filter((g) => scopes === undefined || scopes.some((s) => inScope(g.name, s)))
      .flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
  }
}

/**
 * Whether a group is in a lookup's scope: groups match by prefix (`storage` finds `storage.k8s.io`, as kubectl's
 * `storageclasses.storage`), except the core group `''`, which is only itself.
 */
export function inScope(group: string, scope: string): boolean {
  return scope === '' ? group === '' : group.startsWith(scope);
}
