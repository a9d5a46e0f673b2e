/**
 * The RESTMapper contract (apimachinery `meta.RESTMapper`): kinds to resources and back, with scope. Implemented by
 * the discovery-backed `DynamicRESTMapper` (restmapper/dynamic-mapper.ts); asynchronous, since a miss may have to
 * ask the server.
 */
import type { ResourceInfo } from '../client/types.js';
import type { GroupKind, GroupVersionKind, GroupVersionResource } from '../discovery/types.js';

/** How to reach a kind: its resource, its kind, its scope, and the `ResourceInfo` clients and informers take. */
export interface RESTMapping {
  resource: GroupVersionResource;
  groupVersionKind: GroupVersionKind;
  namespaced: boolean;
  info: ResourceInfo;
}

/** The mapping of a `ResourceInfo` (a generated descriptor, a built-in), whose kind and scope it carries. */
export function mappingOf(info: ResourceInfo): RESTMapping {
  return {
    resource: { group: info.group, version: info.version, resource: info.resource },
    groupVersionKind: { group: info.group, version: info.version, kind: info.kind },
    namespaced: info.namespaced,
    info,
  };
}

/** A resource, possibly partial: a missing group or version matches any (kubectl's `deployments`, `deployments.apps`). */
export interface PartialResource {
  group?: string;
  version?: string;
  resource: string;
}

/** Maps kinds and resources (see the module comment). Methods reject with the errors below. */
export interface RESTMapper {
  /** The kind served at `resource` (plural, singular or short name; group and version optional). */
  kindFor(resource: PartialResource): Promise<GroupVersionKind>;
  /** The fully qualified resource for a possibly partial one (the preferred version when none is given). */
  resourceFor(resource: PartialResource): Promise<GroupVersionResource>;
  /** The mapping of a kind: in the first of `versions` that serves it, else the group's preferred version. */
  restMapping(gk: GroupKind, ...versions: string[]): Promise<RESTMapping>;
  /** Every mapping of a kind, preferred version first. */
  restMappings(gk: GroupKind, ...versions: string[]): Promise<RESTMapping[]>;
  /**
   * A name as kubectl accepts it: `deploy`, `deployments`, `deployment`, `Deployment`, `deployments.apps`,
   * `deployments.v1.apps`, a short name; categories (`all`) with {@link RESTMapper.resolveCategory}.
   */
  resolve(name: string): Promise<RESTMapping>;
  /** The resources of a category (`all`), preferred versions. */
  resolveCategory(category: string): Promise<RESTMapping[]>;
  /** Forgets everything learnt; the next lookup asks the server again. */
  reset(): void;
}

/** No kind matches what was asked (apimachinery `NoKindMatchError`): names it and, when one is close, suggests it. */
export class NoKindMatchError extends Error {
  override readonly name = 'NoKindMatchError';
  constructor(
    readonly asked: string,
    readonly suggestion?: string,
  ) {
    super(`no matches for ${asked}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`);
  }
}

/** No resource matches what was asked (apimachinery `NoResourceMatchError`). */
export class NoResourceMatchError extends Error {
  override readonly name = 'NoResourceMatchError';
  constructor(
    readonly asked: string,
    readonly suggestion?: string,
  ) {
    super(`the server doesn't have a resource type "${asked}"${suggestion ? ` (did you mean ${suggestion}?)` : ''}`);
  }
}

/** A name matches several resources of equal priority (apimachinery `AmbiguousResourceError`). */
export class AmbiguousResourceError extends Error {
  override readonly name = 'AmbiguousResourceError';
  constructor(
    readonly asked: string,
    readonly matches: readonly GroupVersionResource[],
  ) {
    super(`${asked} matches several resources: ${matches.map((m) => `${m.resource}.${m.version}${m.group ? `.${m.group}` : ''}`).join(', ')}`);
  }
}

/** True for {@link NoKindMatchError} and {@link NoResourceMatchError} (apimachinery `meta.IsNoMatchError`). */
export function isNoMatchError(err: unknown): boolean {
  return err instanceof NoKindMatchError || err instanceof NoResourceMatchError;
}
