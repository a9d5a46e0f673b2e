/**
 * Turns a non-2xx apiserver response into the `Status` an `ApiError` carries. The apiserver answers errors with a
 * meta/v1 Status body; anything else (a proxy's HTML page, plain text, an empty body) gets a synthesised Status
 * with the HTTP code and the reason client-go's `NewGenericServerResponse` would pick, so `isNotFound()` and
 * friends work either way.
 */
import { apiErrorFromStatus, newStatus } from './errors.js';
import type { ApiError, FailedRequest } from './errors.js';
import type { ResourceInfo, ResourceRequest, Status } from './types.js';

/** The `StatusReason` client-go assigns to a bare HTTP code. */
export function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

const MAX_MESSAGE = 1024;

/** Decodes an error response body into a `Status` (the body's own when it is one; `code` is filled in if absent). */
export function statusFromResponse(code: number, body: Buffer | string, statusText?: string): Status {
  return statusBody(code, body) ?? synthesizedStatus(code, body, statusText);
}

/** The response body's own `Status`, if it is one. */
function statusBody(code: number, body: Buffer | string): Status | undefined {
  const trimmed = (typeof body === 'string' ? body : body.toString('utf8')).trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(trimmed) as Status | null;
    if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') return parsed.code ? parsed : { ...parsed, code };
  } catch {
    // not JSON: a synthesised Status
  }
  return undefined;
}

function synthesizedStatus(code: number, body: Buffer | string, statusText?: string): Status {
  const trimmed = (typeof body === 'string' ? body : body.toString('utf8')).trim();
  const snippet = trimmed.length > MAX_MESSAGE ? `${trimmed.slice(0, MAX_MESSAGE)}…` : trimmed;
  const message = snippet || `the server responded with HTTP ${code}${statusText ? ` ${statusText}` : ''}`;
  return newStatus(code, reasonForCode(code), message);
}

/**
 * An `ApiError` for a non-2xx response (an `ApplyConflictError` for an apply conflict). With the request, the error
 * records it (`ApiError.request`), and a bare 404 (no Status body: the apiserver serves no such resource, e.g. a CRD
 * that is not installed) says which kind and resource were asked for, and which CRD would serve them.
 */
export function apiErrorFromResponse(code: number, body: Buffer | string, statusText?: string, req?: ResourceRequest): ApiError {
  let status = statusBody(code, body);
  if (!status) {
    status = synthesizedStatus(code, body, statusText);
    if (code === 404 && req) status = { ...status, message: notServedMessage(req.resource, status.message ?? ''), details: { group: req.resource.group, kind: req.resource.resource } };
  }
  const err = apiErrorFromStatus(status);
  if (req) err.request = failedRequestOf(req);
  return err;
}

/** What an `ApiError` records of the request it answered. */
export function failedRequestOf(req: ResourceRequest): FailedRequest {
  const r = req.resource;
  return {
    verb: req.verb,
    group: r.group,
    version: r.version,
    resource: r.resource,
    kind: r.kind,
    ...(req.subresource ? { subresource: req.subresource } : {}),
    ...(req.namespace ? { namespace: req.namespace } : {}),
    ...(req.name ? { name: req.name } : {}),
  };
}

/** Groups Kubernetes serves itself: a missing resource there is a version question, not a missing CRD. */
const BUILT_IN_GROUPS = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'extensions', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
  'apiregistration.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'certificates.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io',
  'networking.k8s.io', 'node.k8s.io', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io',
  'storage.k8s.io', 'storagemigration.k8s.io',
]);

/**
 * `the server does not serve Foo (foos.samplecontroller.k8s.io/v1alpha1): is the CustomResourceDefinition
 * foos.samplecontroller.k8s.io installed and established? (404: 404 page not found)`. Without a kind (a dynamic
 * client keyed by resource only): `the server does not serve foos.samplecontroller.k8s.io/v1alpha1: …`.
 */
export function notServedMessage(r: ResourceInfo, answer: string): string {
  const gr = r.group ? `${r.resource}.${r.group}` : r.resource;
  const hint = BUILT_IN_GROUPS.has(r.group)
    ? `does this Kubernetes version serve ${r.group || 'core'}/${r.version}?`
    : `is the CustomResourceDefinition ${gr} installed and established, with version ${r.version} served?`;
  const what = r.kind ? `${r.kind} (${gr}/${r.version})` : `${gr}/${r.version}`;
  return `the server does not serve ${what}: ${hint} (404: ${answer})`;
}
