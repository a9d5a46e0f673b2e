import type { Status } from './types.js';

/**
 * An error answered by the apiserver (or the fake tracker): carries the Kubernetes `Status` (reason, code, details).
 * Network failures are not ApiErrors; they are whatever the transport threw.
 */
export class ApiError extends Error {
  readonly status: Status;
  /** The request this error answered, when the transport recorded it (verb, resource, namespace, name). */
  request: FailedRequest | undefined;
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
  /**
   * {@link request} as {@link describeRequest} writes it, which log lines append to the message (the logger reads
   * it by this name); undefined without one.
   */
  get requestDescription(): string | undefined {
    return this.request ? describeRequest(this.request) : undefined;
  }
}

/**
 * The request an {@link ApiError} answered, as transports record it, so that log lines and messages can name the
 * kind, the verb and the object.
 */
export interface FailedRequest {
  verb: string;
  group: string;
  version: string;
  /** The plural, e.g. `foos`. */
  resource: string;
  kind?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** `list foos.samplecontroller.k8s.io/v1alpha1 (Foo) in namespace ns`, `get deployments.apps/v1 (Deployment) ns/name`. */
export function describeRequest(r: FailedRequest): string {
  const resource = `${r.resource}${r.group ? `.${r.group}` : ''}/${r.version}${r.subresource ? `/${r.subresource}` : ''}`;
  const kind = r.kind ? ` (${r.kind})` : '';
  const target = r.name ? ` ${r.namespace ? `${r.namespace}/` : ''}${r.name}` : r.namespace ? ` in namespace ${r.namespace}` : '';
  return `${r.verb} ${resource}${kind}${target}`;
}

/** Builds a Failure `Status` the way the apiserver does (`StatusReasonNotFound`, etc.). */
export function newStatus(code: number, reason: string, message: string, details?: Status['details']): Status {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
}

/** One field another manager owns that a server-side apply tried to set to a different value. */
export interface ApplyConflict {
  /** The field's path as the apiserver prints it: `.spec.replicas`, `.spec.ports[name="http"].port`. */
  field: string;
  /** The field manager that owns it (`other-manager`); `''` when the message names none. */
  manager: string;
  /** The cause's message verbatim, e.g. `conflict with "other-manager" using samplecontroller.k8s.io/v1alpha1`. */
  message: string;
}

/** The cause type (`details.causes[].reason` on the wire) of a server-side apply conflict (`CauseTypeFieldManagerConflict`). */
export const FIELD_MANAGER_CONFLICT = 'FieldManagerConflict';

/**
 * A 409 Conflict answered to a server-side apply because other field managers own fields it sets to different
 * values (apimachinery `errors.NewApplyConflict`). `conflicts` lists them, one per `FieldManagerConflict` cause, in
 * the order the apiserver gave. Re-apply with `force: true` to take those fields over, or stop setting them.
 */
export class ApplyConflictError extends ApiError {
  readonly conflicts: readonly ApplyConflict[];
  constructor(status: Status) {
    super(status);
    this.name = 'ApplyConflictError';
    this.conflicts = applyConflictsOf(status);
  }
}

/**
 * The field-manager conflicts of a Status: each `FieldManagerConflict` cause as `{ field, manager, message }`. The
 * manager is the Go-quoted name after `conflict with ` (`conflict with "a" with subresource "status" using v1` →
 * `a`). Empty for any other Status.
 */
export function applyConflictsOf(status: Status): ApplyConflict[] {
  const causes = status.details?.causes ?? [];
  return causes
    .filter((c) => c.reason === FIELD_MANAGER_CONFLICT)
    .map((c) => ({ field: c.field ?? '', manager: managerOf(c.message ?? ''), message: c.message ?? '' }));
}

function managerOf(message: string): string {
  const m = /^conflict with "((?:[^"\\]|\\.)*)"/.exec(message);
  if (!m) return '';
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return m[1]!; // a Go escape JSON does not know (\x..): the quoted text as it is
  }
}

/**
 * The `ApiError` for a Status: an {@link ApplyConflictError} for a 409 whose causes are field-manager conflicts,
 * else a plain `ApiError`. Transports (real and fake) build their errors with it.
 */
export function apiErrorFromStatus(status: Status): ApiError {
  if (status.code === 409 && applyConflictsOf(status).length > 0) return new ApplyConflictError(status);
  return new ApiError(status);
}

/** What a {@link ResourceNotServedError} says was asked for and what the server serves instead. */
export interface NotServedDetails {
  group: string;
  version: string;
  /** The plural, e.g. `poddisruptionbudgets`. */
  resource: string;
  /** The kind, when the request named one (typed clients do; a dynamic client keyed by resource may not). */
  kind?: string;
  /** The subresource asked for, when the resource itself is served and only this subresource is not. */
  subresource?: string;
  /**
   * The versions of the group the server serves, as `apiVersion`s in its order of preference (`['policy/v1beta1']`);
   * `[]` when it serves no version of the group; `undefined` when discovery could not tell.
   */
  servedVersions: readonly string[] | undefined;
  /** What the server answered, e.g. `404 page not found` or `the server could not find the requested resource`. */
  answer: string;
}

/**
 * A request for a resource (or a subresource) the server does not serve at all: a kind or version this Kubernetes
 * release does not have or has turned off, a CRD that is not installed, a version the CRD does not serve. The
 * message is one line naming the kind, the versions of its group the server does serve, and what the asked-for
 * version needs (the release, from the descriptor's `lifecycle`, or the CRD to install); `isNotServed` tells it
 * apart. It is a 404 `NotFound` as the apiserver answered, so `isNotFound` is true for it too (apimachinery
 * `errors.IsNotFound` is, for the same answer); the NotFound of an object that does not exist is a plain `ApiError`.
 */
export class ResourceNotServedError extends ApiError {
  readonly notServed: NotServedDetails;
  constructor(line: string, details: NotServedDetails) {
    super(newStatus(404, 'NotFound', line, { group: details.group, kind: details.resource }));
    this.name = 'ResourceNotServedError';
    this.notServed = details;
  }
  /** The versions of the group the server serves (see {@link NotServedDetails.servedVersions}). */
  get servedVersions(): readonly string[] | undefined {
    return this.notServed.servedVersions;
  }
}

/** True when the server does not serve the resource asked for (see {@link ResourceNotServedError}); narrows to it. */
export function isNotServed(err: unknown): err is ResourceNotServedError {
  return err instanceof ResourceNotServedError;
}

/** True for a server-side apply conflict (see {@link ApplyConflictError}); narrows to it. */
export function isApplyConflict(err: unknown): err is ApplyConflictError {
  return err instanceof ApplyConflictError;
}

function reasonOrCode(err: unknown, reason: string, code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.reason === reason || (err.reason === '' && err.code === code);
}

/**
 * True for a 404 NotFound `ApiError` (apimachinery `errors.IsNotFound`): an object that does not exist, and also a
 * resource the server does not serve (a {@link ResourceNotServedError}; `isNotServed` tells the two apart).
 */
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
  if (causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
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
 * reached); `undefined` for errors a person may need to look at, server-side apply conflicts included. Callers log the first two quietly.
 */
export function retryReason(err: unknown): 'conflict' | 'connection' | undefined {
  if (isApplyConflict(err)) return undefined; // another manager owns the fields: a retry conflicts again
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
