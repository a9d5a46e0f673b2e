import type { Status } from './types.js';

/**
 * An error answered by the apiserver (or the fake tracker): carries the Kubernetes `Status` (reason, code, details).
 * Network failures are not ApiErrors; they are whatever the transport threw.
 */
export class ApiError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message || `${status.reason ?? 'Unknown'} (HTTP ${status.code ?? '?'})`);
    this.name = 'ApiError';
    this.status = status;
  }
  get code(): number {
    return this.status.code ?? 0;
  }
  get reason(): string {
    return this.status.reason ?? '';
  }
}

/** Builds a Failure `Status` the way the apiserver does (`StatusReasonNotFound`, etc.). */
export function newStatus(code: number, reason: string, message: string, details?: Status['details']): Status {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
}

function reasonOrCode(err: unknown, reason: string, code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.reason === reason || (err.reason === '' && err.code === code);
}

/** True for a 404 NotFound `ApiError` (apimachinery `errors.IsNotFound`). */
export const isNotFound = (err: unknown): boolean => reasonOrCode(err, 'NotFound', 404);
/** True for a 409 AlreadyExists `ApiError`: the name is taken (apimachinery `errors.IsAlreadyExists`). */
export const isAlreadyExists = (err: unknown): boolean => reasonOrCode(err, 'AlreadyExists', 409);
/** True for a 409 Conflict `ApiError`, e.g. a stale `resourceVersion` (apimachinery `errors.IsConflict`). */
export const isConflict = (err: unknown): boolean => reasonOrCode(err, 'Conflict', 409);
/** True for a 410 Gone or Expired `ApiError`, e.g. a too-old resourceVersion (apimachinery `IsGone`, `IsExpired`). */
export const isGone = (err: unknown): boolean => reasonOrCode(err, 'Gone', 410) || reasonOrCode(err, 'Expired', 410);
/** True for a 422 Invalid `ApiError`: the object failed validation (apimachinery `errors.IsInvalid`). */
export const isInvalid = (err: unknown): boolean => reasonOrCode(err, 'Invalid', 422);
/** True for a 403 Forbidden `ApiError`: RBAC or admission refused it (apimachinery `errors.IsForbidden`). */
export const isForbidden = (err: unknown): boolean => reasonOrCode(err, 'Forbidden', 403);
/** True for a 401 Unauthorized `ApiError`: missing or bad credentials (apimachinery `errors.IsUnauthorized`). */
export const isUnauthorized = (err: unknown): boolean => reasonOrCode(err, 'Unauthorized', 401);
/** True for a 400 BadRequest `ApiError` (apimachinery `errors.IsBadRequest`). */
export const isBadRequest = (err: unknown): boolean => reasonOrCode(err, 'BadRequest', 400);
/** True for a 429 TooManyRequests `ApiError`: throttled (apimachinery `errors.IsTooManyRequests`). */
export const isTooManyRequests = (err: unknown): boolean => reasonOrCode(err, 'TooManyRequests', 429);
/** True for a Timeout (504) or ServerTimeout (500) `ApiError` (apimachinery `IsTimeout`, `IsServerTimeout`). */
export const isTimeout = (err: unknown): boolean => reasonOrCode(err, 'Timeout', 504) || reasonOrCode(err, 'ServerTimeout', 500);
/** True for a 500 InternalError `ApiError` (apimachinery `errors.IsInternalError`). */
export const isInternalError = (err: unknown): boolean => reasonOrCode(err, 'InternalError', 500);
/** True for a 405 MethodNotAllowed `ApiError` (apimachinery `errors.IsMethodNotSupported`). */
export const isMethodNotSupported = (err: unknown): boolean => reasonOrCode(err, 'MethodNotAllowed', 405);

/**
 * True when the apiserver refused a resourceVersion newer than it knows (its watch cache did not catch up in time):
 * a Status cause `ResourceVersionTooLarge`, or, from apiservers before 1.18.6, a Timeout saying "Too large resource
 * version" (client-go's `isTooLargeResourceVersionError`). Retry without the resourceVersion.
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const causes = err.status.details?.causes ?? [];
  if (causes.some((c) => (c.reason ?? c.type) === 'ResourceVersionTooLarge')) return true;
  if (!isTimeout(err)) return false;
  return causes.some((c) => c.message === 'Too large resource version') || (err.status.message ?? '').includes('Too large resource version');
}


/**
 * A request or watch that got no answer in time (a watch that opened but stayed silent, a timeout). Passing it as
 * the abort reason of a request's signal, or to `Watch.stop()`, tells the transport that the connection it used is
 * suspect: new requests go to a fresh connection while the old one is checked (HTTP/2) or dropped (HTTP/1.1).
 */
export class ConnectionStalledError extends Error {
  override readonly name = 'ConnectionStalledError';
}

/** True for a stall: a {@link ConnectionStalledError} or a timeout abort (`AbortSignal.timeout`). */
export function isStall(reason: unknown): boolean {
  return reason instanceof ConnectionStalledError || (reason instanceof Error && reason.name === 'TimeoutError');
}

/**
 * Why a failed write fixes itself on retry: `conflict` (a stale read, 409) or `connection` (the apiserver could not be
 * reached); `undefined` for errors a person may need to look at. Callers log the first two quietly.
 */
export function retryReason(err: unknown): 'conflict' | 'connection' | undefined {
  return isConflict(err) ? 'conflict' : isConnectionError(err) ? 'connection' : undefined;
}

/** Network-level failures worth retrying quietly: refused, reset, unreachable, timed out, stalled. */
export function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ERR_HTTP2_STREAM_CANCEL|ERR_HTTP2_STREAM_ERROR|ERR_HTTP2_SESSION_ERROR|ERR_HTTP2_GOAWAY_SESSION|ERR_HTTP2_INVALID_SESSION|UND_ERR_SOCKET)$/.test(code)) return true;
    if (isStall(e)) return true;
  }
  return false;
}
