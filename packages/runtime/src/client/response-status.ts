/**
 * Turns a non-2xx apiserver response into the `Status` an `ApiError` carries. The apiserver answers errors with a
 * meta/v1 Status body; anything else (a proxy's HTML page, plain text, an empty body) gets a synthesised Status
 * with the HTTP code and the reason client-go's `NewGenericServerResponse` would pick, so `isNotFound()` and
 * friends work either way.
 */
import { apiErrorFromStatus, newStatus } from './errors.js';
import type { ApiError } from './errors.js';
import type { Status } from './types.js';

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
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as Status | null;
      if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') {
        return parsed.code ? parsed : { ...parsed, code };
      }
    } catch {
      // not JSON: fall through to a synthesised Status
    }
  }
  const snippet = trimmed.length > MAX_MESSAGE ? `${trimmed.slice(0, MAX_MESSAGE)}…` : trimmed;
  const message = snippet || `the server responded with HTTP ${code}${statusText ? ` ${statusText}` : ''}`;
  return newStatus(code, reasonForCode(code), message);
}

/** An `ApiError` for a non-2xx response (an `ApplyConflictError` for an apply conflict). */
export function apiErrorFromResponse(code: number, body: Buffer | string, statusText?: string): ApiError {
  return apiErrorFromStatus(statusFromResponse(code, body, statusText));
}
