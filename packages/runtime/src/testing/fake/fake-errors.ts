/**
 * `ApiError`s with the codes, reasons, messages and details the apiserver uses (`k8s.io/apimachinery/pkg/api/errors`),
 * so code under test sees in the fake exactly what it would see from a real cluster.
 */
import { ApiError, newStatus, ResourceNotServedError } from '../../client/errors.js';
import { NOT_SERVED_MESSAGE, notServedLine, type ServedGroup } from '../../client/not-served.js';
import { apiVersionOf, type ResourceInfo } from '../../client/types.js';
import { sortByVersionPriority } from '../../discovery/version-priority.js';
import { parseReleaseVersion } from '../../release-version.js';
import { FAKE_SERVER_VERSION } from './fake-raw.js';
import { groupKindOf, groupResourceOf, type FakeResource } from './fake-resource.js';

/** One invalid field, as in a 422's `details.causes`. */
export interface FieldCause {
  /** The cause type (`FieldValueInvalid`, `FieldValueRequired`, … as `field.ErrorType`). */
  type: string;
  field: string;
  message: string;
}

export function notFound(r: ResourceInfo, name: string): ApiError {
  return new ApiError(
    newStatus(404, 'NotFound', `${groupResourceOf(r)} "${name}" not found`, { name, group: r.group, kind: r.resource }),
  );
}

/** A request for a subresource the tracker does not serve, or under a namespace for a cluster-scoped resource. */
export function resourceNotFound(): ApiError {
  return new ApiError(newStatus(404, 'NotFound', NOT_SERVED_MESSAGE, {}));
}

/**
 * A request for a resource the tracker has not registered (a kind not installed): the {@link ResourceNotServedError}
 * the real transport gives, its line made from what is `registered` (the fake's discovery) and the fake's version.
 */
export function resourceNotServed(r: ResourceInfo, registered: readonly FakeResource[]): ResourceNotServedError {
  const versions = sortByVersionPriority(new Set(registered.filter((x) => x.group === r.group).map((x) => x.version)));
  const served: ServedGroup = { groupVersions: versions.map((version) => apiVersionOf({ group: r.group, version })) };
  if (versions.includes(r.version)) {
    const inVersion = registered.filter((x) => x.group === r.group && x.version === r.version);
    served.resources = new Map(inVersion.map((x) => [x.resource, [...(x.statusSubresource ? ['status'] : []), ...(x.scale ? ['scale'] : []), ...(x.subresources ?? []).map((s) => s.name)]]));
  }
  const release = parseReleaseVersion(FAKE_SERVER_VERSION.gitVersion);
  const line = notServedLine({
    resource: r,
    served,
    serverVersion: release ? { ...release, gitVersion: FAKE_SERVER_VERSION.gitVersion } : undefined,
    turnedOffHint: 'the fake serves only the resources it was given (createFakeClientset, ObjectTracker.register)',
  });
  return new ResourceNotServedError(line, {
    group: r.group,
    version: r.version,
    resource: r.resource,
    ...(r.kind ? { kind: r.kind } : {}),
    servedVersions: served.groupVersions,
    answer: NOT_SERVED_MESSAGE,
  });
}

export function alreadyExists(r: ResourceInfo, name: string): ApiError {
  return new ApiError(
    newStatus(409, 'AlreadyExists', `${groupResourceOf(r)} "${name}" already exists`, { name, group: r.group, kind: r.resource }),
  );
}

export function conflict(r: ResourceInfo, name: string, why: string): ApiError {
  return new ApiError(
    newStatus(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceOf(r)} "${name}": ${why}`, {
      name,
      group: r.group,
      kind: r.resource,
    }),
  );
}

export const STALE_OBJECT = 'the object has been modified; please apply your changes to the latest version and try again';

export function invalid(r: ResourceInfo, name: string, causes: FieldCause[]): ApiError {
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  return new ApiError(
    newStatus(422, 'Invalid', `${groupKindOf(r)} "${name}" is invalid: ${summary}`, {
      name,
      group: r.group,
      kind: r.kind,
      causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
    }),
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(newStatus(400, 'BadRequest', message));
}

export function unsupportedMediaType(message: string): ApiError {
  return new ApiError(newStatus(415, 'UnsupportedMediaType', message));
}

/** The status a watch's ERROR event carries when asked to start before the retained history. */
export function expiredStatus(requested: number, oldest: number) {
  return newStatus(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}
