/**
 * Which of the resources a cluster serves the janitor handles: those discovery says support `list`, `watch` and
 * `delete`, each once in its group's preferred version, narrowed by `--include-resources` and `--exclude-resources`.
 *
 * A name in those flags is written as kubectl writes a resource: the plural, singular, kind or a short name
 * (`deployments`, `deployment`, `Deployment`, `deploy`), alone (any group) or followed by `.` and the group
 * (`deployments.apps`, `widgets.example.com`; `.core` for the core group), case-insensitive. A name that matches
 * nothing served is not an error: the resource may be a CRD installed later.
 */
import type { APIResourceInfo } from '@kubegen/runtime/discovery';

/** The verbs a resource must support to be handled. */
export const REQUIRED_VERBS = ['list', 'watch', 'delete'] as const;

/** kube-janitor's default `--exclude-resources`: short-lived or owned objects nobody annotates. */
export const DEFAULT_EXCLUDED_RESOURCES = ['events', 'controllerrevisions'] as const;

/** One name of `--include-resources` / `--exclude-resources`, parsed. */
export interface ResourceName {
  /** Lower-cased plural, singular, kind or short name. */
  name: string;
  /** The group when the name gave one (`''` for `.core`); undefined: any group. */
  group: string | undefined;
}

/** Parses a flag's names (`deployments.apps`, `Widget`); throws a TypeError naming an empty or malformed one. */
export function parseResourceNames(flag: string, values: readonly string[]): ResourceName[] {
  return values.map((raw) => {
    const v = raw.trim().toLowerCase();
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(v)) {
      throw new TypeError(`${flag}: ${JSON.stringify(raw)} is not a resource name (deployments, deployments.apps, Widget.example.com)`);
    }
    const dot = v.indexOf('.');
    if (dot < 0) return { name: v, group: undefined };
    const group = v.slice(dot + 1);
    return { name: v.slice(0, dot), group: group === 'core' ? '' : group };
  });
}

/** `deployments.apps`, `configmaps`: a resource as kubectl names it, and as the janitor's metrics and logs do. */
export function resourceName(r: Pick<APIResourceInfo, 'resource' | 'group'>): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** True when `n` names `r`. */
export function namesResource(n: ResourceName, r: APIResourceInfo): boolean {
  if (n.group !== undefined && n.group !== r.group) return false;
  const names = [r.resource, r.singular, r.kind, ...r.shortNames].map((s) => s.toLowerCase());
  return names.includes(n.name);
}

/** The resource filter of the flags. */
export interface ResourceFilter {
  /** Empty: every resource. */
  include: readonly ResourceName[];
  exclude: readonly ResourceName[];
}

/** True when the flags let the janitor handle `r` (verbs not checked here). */
export function admitted(filter: ResourceFilter, r: APIResourceInfo): boolean {
  if (filter.include.length > 0 && !filter.include.some((n) => namesResource(n, r))) return false;
  return !filter.exclude.some((n) => namesResource(n, r));
}

/** True when discovery says `r` supports every verb the janitor uses. */
export function supportsJanitorVerbs(r: Pick<APIResourceInfo, 'verbs'>): boolean {
  return REQUIRED_VERBS.every((v) => r.verbs.includes(v));
}

/**
 * The resources to handle, one per group and resource name, in discovery's order: `preferred(candidates)` picks the
 * version of each (the janitor asks its RESTMapper). `served` lists every served version of every resource.
 */
export async function selectResources(
  served: readonly APIResourceInfo[],
  filter: ResourceFilter,
  preferred: (versions: APIResourceInfo[]) => Promise<APIResourceInfo>,
): Promise<APIResourceInfo[]> {
  const byName = new Map<string, APIResourceInfo[]>();
  for (const r of served) {
    if (!supportsJanitorVerbs(r) || !admitted(filter, r)) continue;
    const key = resourceName(r);
    byName.set(key, [...(byName.get(key) ?? []), r]);
  }
  const out: APIResourceInfo[] = [];
  for (const versions of byName.values()) out.push(versions.length === 1 ? versions[0]! : await preferred(versions));
  return out;
}
