/**
 * `MappingTable`: the mappings of one snapshot of discovery, answered synchronously with client-go's rules
 * (`restmapper.NewDiscoveryRESTMapper`: one apimachinery `DefaultRESTMapper` per group version under a
 * `PriorityRESTMapper`, plus `restmapper`'s shortcut expander):
 *
 * - a resource name matches a plural or a singular, lower-cased (`Deployment` finds the singular `deployment`); a
 *   group matches as a prefix (`storageclasses.storage`); the singular is discovery's, or the lower-cased kind when
 *   discovery gives none (servers before 1.27 give none for built-in resources). Plurals are never guessed;
 * - when several group versions match, priority picks one: core `v1` first, then each group's preferred version,
 *   then its other versions (groups and versions in discovery's order); a tie left after that is ambiguous;
 * - short names come from discovery only; an exact plural or singular beats a short name; a short name two
 *   resources share picks the first in discovery's order, with a warning naming the other.
 *
 * Differences from client-go, on purpose: no `<Kind>List` or `List` mappings (client-go registers them with guessed
 * plurals that the server does not serve), and mappings carry discovery's kind even when asked with a lower-cased one.
 */
import { groupVersionString, resourceInfoOf, type APIGroupInfo, type APIResourceInfo, type GroupKind, type GroupVersionKind, type GroupVersionResource } from '../discovery/types.js';
import { suggestKind, suggestResource } from './suggest.js';
import { AmbiguousResourceError, NoKindMatchError, NoResourceMatchError, type PartialResource, type RESTMapping } from './types.js';

/** One group's discovery: its versions in the server's order and the resources of each version that loaded. */
export interface GroupResources {
  group: APIGroupInfo;
  /** By version; a version that failed to load is absent. */
  versions: Map<string, APIResourceInfo[]>;
}

/** One group version's mappings (apimachinery `DefaultRESTMapper` over a single group version). */
interface VersionMapper {
  group: string;
  version: string;
  /** Plural and singular → the resources with that name (more than one when a plural is another's singular). */
  byName: Map<string, APIResourceInfo[]>;
  /** Kind, as written and lower-cased → the resource (the last one listed wins, as in client-go). */
  byKind: Map<string, APIResourceInfo>;
}

/** A priority pattern: `undefined` matches anything (apimachinery's `*`). */
interface Pattern {
  group: string;
  version: string | undefined;
}

/** Called with a warning (an ambiguous short name); the mapper logs it. */
export type WarningHandler = (message: string) => void;

/** The mappings of one discovery snapshot (see the module comment). Immutable. */
export class MappingTable {
  private readonly mappers: VersionMapper[] = [];
  private readonly patterns: Pattern[];
  /** All resources in discovery's order (groups, their versions, each version's list). */
  readonly resources: readonly APIResourceInfo[];

  constructor(groups: readonly GroupResources[]) {
    const patterns: Pattern[] = [{ group: '', version: 'v1' }];
    const all: APIResourceInfo[] = [];
    for (const { group, versions } of groups) {
      if (group.preferredVersion && versions.has(group.preferredVersion)) patterns.push({ group: group.name, version: group.preferredVersion });
      for (const version of group.versions) {
        const list = versions.get(version);
        if (!list) continue;
        if (version !== group.preferredVersion) patterns.push({ group: group.name, version });
        const mapper: VersionMapper = { group: group.name, version, byName: new Map(), byKind: new Map() };
        for (const r of list) {
          all.push(r);
          for (const name of new Set([r.resource, singularOf(r)])) mapper.byName.set(name, [...(mapper.byName.get(name) ?? []), r]);
          mapper.byKind.set(r.kind, r);
          mapper.byKind.set(r.kind.toLowerCase(), r);
        }
        this.mappers.push(mapper);
      }
    }
    for (const { group } of groups) patterns.push({ group: group.name, version: undefined });
    this.patterns = patterns;
    this.resources = all;
  }

  /** Every kind a (possibly partial) resource name matches, before priority, in discovery's order. */
  kindsFor(partial: PartialResource): GroupVersionKind[] {
    return this.matches(partial).map((r) => ({ group: r.group, version: r.version, kind: r.kind }));
  }

  /** Every resource a (possibly partial) resource name matches, before priority, in discovery's order. */
  resourcesFor(partial: PartialResource): GroupVersionResource[] {
    return this.matches(partial).map(gvrOf);
  }

  /** The resource a partial name means, by priority; throws `NoResourceMatchError` or `AmbiguousResourceError`. */
  resourceFor(partial: PartialResource): APIResourceInfo {
    const found = this.matches(partial);
    if (found.length === 0) throw new NoResourceMatchError(describePartial(partial), suggestResource(partial.resource, this.resources));
    const picked = this.byPriority(found, []);
    if (!picked) throw new AmbiguousResourceError(describePartial(partial), found.map(gvrOf));
    return picked;
  }

  /**
   * Every mapping of a kind: in the given versions (the first of them that serves it, per group version, as
   * apimachinery), else in every version of its group; ordered by priority (the mapping `restMapping` picks first).
   */
  restMappings(gk: GroupKind, versions: readonly string[] = []): RESTMapping[] {
    const asked = versions.filter((v) => v !== '');
    const found: APIResourceInfo[] = [];
    for (const m of this.mappers) {
      if (m.group !== gk.group) continue;
      if (asked.length > 0 && !asked.includes(m.version)) continue;
      const r = m.byKind.get(gk.kind);
      if (r) found.push(r);
    }
    if (found.length === 0) throw this.noKindMatch(gk, asked);
    const rank = (r: APIResourceInfo): number => {
      const v = asked.indexOf(r.version);
      return v >= 0 ? v : asked.length + this.patterns.findIndex((p) => matchesPattern(p, r));
    };
    return found
      .map((r, i) => ({ r, i, rank: rank(r) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ r }) => mappingOf(r));
  }

  /** The mapping of a kind: the first of `versions` that serves it, else by priority (its group's preferred version). */
  restMapping(gk: GroupKind, versions: readonly string[] = []): RESTMapping {
    const asked = versions.filter((v) => v !== '');
    const found = this.restMappings(gk, asked);
    const extra = asked.map((version): Pattern => ({ group: gk.group, version }));
    const picked = this.byPriority(
      found.map((m) => this.infoOf(m)),
      extra,
    );
    if (!picked) throw new AmbiguousResourceError(`kind "${gk.kind}" in group "${gk.group}"`, found.map((m) => m.resource));
    return mappingOf(picked);
  }

  /**
   * A name as kubectl's shortcut expander rewrites it: unchanged when it is a plural or singular (in the asked
   * group), else the resource of the first short name that matches (its version dropped, as in client-go), else,
   * when a group is given, the first short name in a group that starts with it.
   */
  expandShortcut(partial: PartialResource, warn?: WarningHandler): PartialResource {
    const group = partial.group ?? '';
    for (const r of this.resources) {
      if (group && r.group !== group) continue;
      if (partial.resource === r.resource || (r.singular !== '' && partial.resource === r.singular)) return partial;
    }
    let found: APIResourceInfo | undefined;
    const warned = new Set<string>();
    for (const r of this.resources) {
      if (group && r.group !== group) continue;
      if (!r.shortNames.includes(partial.resource)) continue;
      if (!found) {
        found = r;
        continue;
      }
      if (r.group === found.group && r.resource === found.resource) continue;
      const other = r.group ? `${r.resource}.${r.group}` : r.resource;
      if (!warned.has(other)) warn?.(`short name "${partial.resource}" could also match lower priority resource ${other}`);
      warned.add(other);
    }
    if (found) return { group: found.group, resource: found.resource };
    if (!group) return partial;
    const prefixed = this.resources.find((r) => r.group.startsWith(group) && r.shortNames.includes(partial.resource));
    return prefixed ? { ...partial, group: prefixed.group, resource: prefixed.resource } : partial;
  }

  /** The resources of a category (`all`) as kubectl names them (`deployments.apps`), in discovery's order, once each. */
  categoryNames(category: string): string[] {
    const names = this.resources.filter((r) => r.categories.includes(category)).map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource));
    return [...new Set(names)];
  }

  /** The resource behind a mapping (the table's own object). */
  private infoOf(m: RESTMapping): APIResourceInfo {
    const mapper = this.mappers.find((v) => v.group === m.resource.group && v.version === m.resource.version)!;
    return mapper.byName.get(m.resource.resource)!.find((r) => r.resource === m.resource.resource)!;
  }

  private noKindMatch(gk: GroupKind, versions: readonly string[]): NoKindMatchError {
    const where =
      versions.length === 0
        ? `in group "${gk.group}"`
        : versions.length === 1
          ? `in version "${groupVersionString({ group: gk.group, version: versions[0]! })}"`
          : `in versions ${JSON.stringify(versions.map((version) => groupVersionString({ group: gk.group, version })))}`;
    const suggestion = suggestKind(gk.kind, gk.group, this.resources);
    return new NoKindMatchError(`kind "${gk.kind}" ${where}`, suggestion === `${gk.kind}${gk.group ? `.${gk.group}` : ''}` ? undefined : suggestion);
  }

  /** The resources a partial name matches in each group version (apimachinery `MultiRESTMapper.ResourcesFor`). */
  private matches(partial: PartialResource): APIResourceInfo[] {
    const name = partial.resource.toLowerCase();
    const group = partial.group ?? '';
    const version = partial.version ?? '';
    if (!name) return [];
    const out: APIResourceInfo[] = [];
    for (const m of this.mappers) {
      if (group && version ? m.group !== group || m.version !== version : group ? !m.group.startsWith(group) : version ? m.version !== version : false) continue;
      for (const r of m.byName.get(name) ?? []) if (!out.includes(r)) out.push(r);
    }
    return out;
  }

  /**
   * The one resource priority picks among `found` (apimachinery `PriorityRESTMapper`): patterns narrow the list in
   * order, a pattern that matches nothing is skipped, the first that leaves one wins; undefined when none does.
   */
  private byPriority(found: APIResourceInfo[], first: Pattern[]): APIResourceInfo | undefined {
    if (found.length === 1) return found[0];
    let remaining = found;
    for (const p of [...first, ...this.patterns]) {
      const matched = remaining.filter((r) => matchesPattern(p, r));
      if (matched.length === 1) return matched[0];
      if (matched.length > 1) remaining = matched;
    }
    return remaining.length === 1 ? remaining[0] : undefined;
  }
}

/** Discovery's singular, or the lower-cased kind when it gives none (client-go's only guess: never a plural). */
export function singularOf(r: Pick<APIResourceInfo, 'singular' | 'kind'>): string {
  return r.singular || r.kind.toLowerCase();
}

/** The mapping of a discovered resource. */
export function mappingOf(r: APIResourceInfo): RESTMapping {
  return {
    resource: gvrOf(r),
    groupVersionKind: { group: r.group, version: r.version, kind: r.kind },
    namespaced: r.namespaced,
    info: resourceInfoOf(r),
  };
}

function gvrOf(r: APIResourceInfo): GroupVersionResource {
  return { group: r.group, version: r.version, resource: r.resource };
}

function matchesPattern(p: Pattern, r: APIResourceInfo): boolean {
  return p.group === r.group && (p.version === undefined || p.version === r.version);
}

/** `deployments`, `deployments.apps`, `deployments.v1.apps`: a partial resource as kubectl writes it. */
export function describePartial(p: PartialResource): string {
  return [p.resource, p.version, p.group].filter((s) => s).join('.');
}
