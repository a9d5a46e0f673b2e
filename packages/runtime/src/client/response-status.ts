/**
 * Turns a non-2xx apiserver response into the `Status` an `ApiError` carries. The apiserver answers errors with a
 * meta/v1 Status body; anything else (a proxy's HTML page, plain text, an empty body) gets a synthesised Status
 * with the HTTP code and the reason client-go's `NewGenericServerResponse` would pick, so `isNotFound()` and
 * friends work either way. A resource request answered "not served" becomes a `ResourceNotServedError`
 * (`requestError`, see not-served.ts).
 */
import { apiErrorFromStatus, newStatus } from './errors.js';
import type { ApiError, FailedRequest } from './errors.js';
import { isNotServedAnswer, notServedError } from './not-served.js';
import type { ResourceRequest, Status, Transport } from './types.js';

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
 * records it (`ApiError.request`).
 */
export function apiErrorFromResponse(code: number, body: Buffer | string, statusText?: string, req?: ResourceRequest): ApiError {
  const err = apiErrorFromStatus(statusBody(code, body) ?? synthesizedStatus(code, body, statusText));
  if (req) err.request = failedRequestOf(req);
  return err;
}

/**
 * The error for a failed resource request: a {@link ResourceNotServedError} when the answer says the resource is not
 * served (`isNotServedAnswer`; discovery is asked through `transport` for its one line), else
 * {@link apiErrorFromResponse}'s. Either records the request.
 */
export async function requestError(transport: Transport, code: number, body: Buffer | string, statusText: string | undefined, req: ResourceRequest): Promise<ApiError> {
  const status = statusBody(code, body);
  if (!isNotServedAnswer(code, status)) return apiErrorFromResponse(code, body, statusText, req);
  const text = (typeof body === 'string' ? body : body.toString('utf8')).replace(/\s+/g, ' ').trim();
  const answer = status?.message ?? (text.length > 200 ? `${text.slice(0, 200)}…` : text || `HTTP ${code}${statusText ? ` ${statusText}` : ''}`);
  const err = await notServedError(transport, req, answer);
  err.request = failedRequestOf(req);
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
