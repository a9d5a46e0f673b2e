/**
 * A request for a resource the server does not serve, told apart from an object that does not exist, and said in
 * one line (a {@link ResourceNotServedError}).
 *
 * What the apiserver answers (kube-apiserver 1.20 and the CRD apiserver 1.36 alike): for a group version it does not
 * serve, a bare `404 page not found` (text/plain), or under `/api/` on a server without the core group a JSON list of
 * its root paths; for a resource (or subresource, or version) missing from a group it serves, a `Status` NotFound
 * "the server could not find the requested resource" with empty `details`. An object that does not exist is a
 * NotFound whose `details` name it (`pods "x" not found`): that one stays a plain `ApiError`.
 *
 * The line asks discovery, only on this path and afresh each time (a CRD may have been installed since):
 * `PodDisruptionBudget policy/v1 is not served by this apiserver (it serves policy/v1beta1); policy/v1
 * PodDisruptionBudget needs Kubernetes 1.21 or later`. The release comes from the descriptor's `lifecycle`, compared
 * with the server's `/version`; for a custom resource the line asks whether its CRD is installed.
 */
import { compareReleaseVersions, parseReleaseVersion, type ReleaseVersion } from '../release-version.js';
import { ResourceNotServedError } from './errors.js';
import { apiVersionOf, type ResourceDescriptor, type ResourceInfo, type ResourceRequest, type Status, type Transport } from './types.js';

/** The message of the apiserver's NotFound for a path no resource is served at (apimachinery's, for a 404 without one). */
export const NOT_SERVED_MESSAGE = 'the server could not find the requested resource';

/**
 * True when a 404 says the resource is not served rather than that an object does not exist: no `Status` body, or
 * the NotFound `Status` of an unknown path ({@link NOT_SERVED_MESSAGE}, naming no object). Any other NotFound is
 * about an object, and stays one.
 */
export function isNotServedAnswer(code: number, status: Status | undefined): boolean {
  if (code !== 404) return false;
  return status === undefined || (status.reason === 'NotFound' && status.message === NOT_SERVED_MESSAGE && !status.details?.name);
}

/** What discovery says the server serves of the asked group (see {@link notServedLine}). */
export interface ServedGroup {
  /** The group's served versions as `apiVersion`s, in the server's order of preference; `[]`: the group is not served. */
  groupVersions: readonly string[];
  /** The asked group version's resources (by plural) and their subresources, when that group version is served. */
  resources?: ReadonlyMap<string, readonly string[]>;
  /**
   * Whether the server serves the core group (`/api`): a kube-apiserver does; the CRD apiserver alone (envtest's
   * `crd-only` profile) or an aggregated apiserver does not, and no flag turns built-in kinds on there.
   */
  coreServed?: boolean;
}

/** The facts a not-served line is made of. */
export interface NotServedFacts {
  resource: ResourceInfo & Pick<ResourceDescriptor, 'lifecycle'>;
  subresource?: string | undefined;
  /** What discovery found, or why it failed. */
  served: ServedGroup | { error: string };
  /** The server's version (`/version`), when known: it picks which end of the lifecycle to name. */
  serverVersion?: (ReleaseVersion & { gitVersion: string }) | undefined;
  /**
   * Said instead of "this apiserver has it turned off" when the server's release has the version but does not serve
   * it (the fake: it serves only what was registered).
   */
  turnedOffHint?: string;
}

/** Groups Kubernetes serves itself: a missing resource there is a release or configuration question, not a missing CRD. */
const BUILT_IN_GROUPS = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'extensions', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
  'apiregistration.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'certificates.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io',
  'networking.k8s.io', 'node.k8s.io', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io',
  'storage.k8s.io', 'storagemigration.k8s.io', 'apidiscovery.k8s.io',
]);

/**
 * The one line of a {@link ResourceNotServedError}: what was asked (kind and group version, or the subresource),
 * what the server serves of that group, then what the asked version needs (see the module comment).
 */
export function notServedLine(facts: NotServedFacts): string {
  const r = facts.resource;
  const gv = apiVersionOf(r);
  const subject = r.kind ? `${r.kind} ${gv}` : `${r.resource} ${gv}`;
  const served = facts.served;
  if ('error' in served) return `${subject} is not served by this apiserver (discovery could not say what it serves: ${served.error})${tail(facts)}`;
  const subresources = served.resources?.get(r.resource);
  if (facts.subresource && subresources) {
    const has = subresources.length > 0 ? `${r.resource} has ${subresources.join(', ')}` : `${r.resource} has none`;
    return `the ${facts.subresource} subresource of ${subject} is not served by this apiserver (${has})`;
  }
  const group = r.group || 'the core group';
  let what: string;
  if (served.groupVersions.length === 0) what = `it serves no version of ${group}`;
  else if (served.resources) what = `it serves ${served.groupVersions.join(', ')}, and ${gv} has no ${r.resource}`;
  else what = `it serves ${served.groupVersions.join(', ')}`;
  return `${subject} is not served by this apiserver (${what})${tail(facts)}`;
}

/** `; <what the asked version needs>`: from the lifecycle, else the CRD to install, else nothing. */
function tail(facts: NotServedFacts): string {
  const r = facts.resource;
  const needs = lifecycleClause(facts);
  if (needs) return `; ${needs}`;
  if (BUILT_IN_GROUPS.has(r.group)) return '';
  const gr = `${r.resource}.${r.group}`;
  return `; is the CustomResourceDefinition ${gr} installed and established, with version ${r.version} served?`;
}

/**
 * What the lifecycle says about the asked version on this server: it needs a later release, it was removed (and
 * what replaces it), or, when the server's release has it, that it is turned off there.
 */
function lifecycleClause(facts: NotServedFacts): string | undefined {
  const r = facts.resource;
  const lc = r.lifecycle;
  if (!lc) return undefined;
  const what = `${apiVersionOf(r)} ${r.kind || r.resource}`;
  const sv = facts.serverVersion;
  const introduced = lc.introduced ? parseReleaseVersion(lc.introduced) : undefined;
  const removed = lc.removed ? parseReleaseVersion(lc.removed) : undefined;
  const parts: string[] = [];
  if (introduced && (!sv || compareReleaseVersions(sv, introduced) < 0)) parts.push(`needs Kubernetes ${lc.introduced} or later`);
  if (removed && (!sv || compareReleaseVersions(sv, removed) >= 0)) {
    const rep = lc.replacement;
    parts.push(`was removed in Kubernetes ${lc.removed}${rep ? ` (use ${apiVersionOf(rep)} ${rep.kind})` : ''}`);
  }
  if (parts.length > 0) return `${what} ${parts.join(' and ')}`;
  if (!sv || (!introduced && !removed)) return undefined;
  if (facts.turnedOffHint) return facts.turnedOffHint;
  const span = lc.introduced ? `Kubernetes ${lc.introduced}${lc.removed ? ` to ${lc.removed} (removed there)` : ' and later'}` : `Kubernetes before ${lc.removed}`;
  if (!('error' in facts.served) && facts.served.coreServed === false) {
    return `${what} is in ${span}, but this apiserver (${sv.gitVersion}) serves no built-in kinds: it is not a kube-apiserver (a CRD or aggregated apiserver)`;
  }
  return `${what} is in ${span}, so this apiserver (${sv.gitVersion}) has it turned off (kube-apiserver --runtime-config=${apiVersionOf(r)}=true turns it on)`;
}

/**
 * The {@link ResourceNotServedError} for `req`, which the server answered as not served with `answer`: asks the
 * server's discovery (its legacy group lists, the asked group version's resources when that is served, and
 * `/version` when the descriptor has a lifecycle) through `transport`. Never rejects: when discovery fails the line
 * says so.
 */
export async function notServedError(transport: Transport, req: ResourceRequest, answer: string): Promise<ResourceNotServedError> {
  const r = req.resource as ResourceInfo & Pick<ResourceDescriptor, 'lifecycle'>;
  // Loaded on this path only: most programs never meet a resource their server does not serve.
  const { DiscoveryClient } = await import('../discovery/discovery-client.js');
  const discovery = new DiscoveryClient(transport, { legacyOnly: true });
  const [served, serverVersion] = await Promise.all([
    servedGroup(discovery, r).catch((err: unknown) => ({ error: err instanceof Error ? err.message : String(err) })),
    r.lifecycle ? discovery.serverVersion().then(releaseOf, () => undefined) : undefined,
  ]);
  const subresourceServed = req.subresource !== undefined && !('error' in served) && served.resources?.has(r.resource) === true;
  const line = notServedLine({ resource: r, subresource: subresourceServed ? req.subresource : undefined, served, serverVersion });
  return new ResourceNotServedError(line, {
    group: r.group,
    version: r.version,
    resource: r.resource,
    ...(r.kind ? { kind: r.kind } : {}),
    ...(subresourceServed ? { subresource: req.subresource } : {}),
    servedVersions: 'error' in served ? undefined : served.groupVersions,
    answer,
  });
}

/** The asked group's served versions, and the asked group version's resources when it is one of them. */
async function servedGroup(
  discovery: import('../discovery/discovery-client.js').DiscoveryClient,
  r: ResourceInfo,
): Promise<ServedGroup> {
  const { groups } = await discovery.groupsAndMaybeResources();
  const group = groups.find((g) => g.name === r.group);
  const groupVersions = (group?.versions ?? []).map((version) => apiVersionOf({ group: r.group, version }));
  const coreServed = groups.some((g) => g.name === '');
  if (!group?.versions.includes(r.version)) return { groupVersions, coreServed };
  const resources = await discovery.serverResourcesForGroupVersion(r.group, r.version);
  return { groupVersions, coreServed, resources: new Map(resources.map((x) => [x.resource, x.subresources.map((s) => s.name)])) };
}

function releaseOf(info: { gitVersion: string }): (ReleaseVersion & { gitVersion: string }) | undefined {
  const v = parseReleaseVersion(info.gitVersion);
  return v ? { ...v, gitVersion: info.gitVersion } : undefined;
}
