/**
 * `ApiError`s with the codes, reasons, messages and details the apiserver uses (`k8s.io/apimachinery/pkg/api/errors`),
 * so code under test sees in the fake exactly what it would see from a real cluster.
 */
import { ApiError, newStatus } from '../../client/errors.js';
import { notServedMessage } from '../../client/response-status.js';
import type { ResourceInfo } from '../../client/types.js';
import { groupKindOf, groupResourceOf } from './fake-resource.js';

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

/**
 * A request for a resource (or subresource) the tracker does not serve. With the resource (one the tracker has not
 * registered: a kind not installed), the message names the kind and its CRD as the real transport's does.
 */
export function resourceNotFound(r?: ResourceInfo): ApiError {
  const answer = 'the server could not find the requested resource';
  return new ApiError(newStatus(404, 'NotFound', r ? notServedMessage(r, answer) : answer, r ? { group: r.group, kind: r.resource } : {}));
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
