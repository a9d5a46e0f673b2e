/**
 * Authentication and authorization of `/metrics` scrapes by the apiserver (controller-runtime
 * `pkg/metrics/filters.WithAuthenticationAndAuthorization`, what kube-rbac-proxy did in a sidecar before):
 *
 * 1. The request's `Authorization: Bearer <token>` is sent to the apiserver in an authentication.k8s.io/v1
 *    TokenReview. No token, or a token the apiserver does not authenticate: 401 `Unauthorized`.
 * 2. The user it names (with uid, groups and extra) is checked in an authorization.k8s.io/v1 SubjectAccessReview of
 *    the non-resource URL (the request path, `/metrics`) with the lower-cased HTTP method as verb (`get`), as the
 *    apiserver authorizes its own `/metrics`. Not allowed: 403 `Authorization denied for user <name>`.
 * 3. Either review failing (API error, timeout): 500, logged; the next request asks again.
 *
 * So a scraper needs a ClusterRole with `nonResourceURLs: ["/metrics"], verbs: ["get"]` bound to its identity, and
 * the controller's own identity needs `create` on `tokenreviews` and `subjectaccessreviews` (the scaffold's
 * `metrics-reader` and `metrics-auth-role`).
 *
 * Results are cached in memory, keyed by a SHA-256 of the token and by the user and request attributes, like the
 * apiserver's delegating authenticator and authorizer: a Prometheus scraping every 15 s then costs two reviews a
 * minute, not eight. Defaults: an authenticated token 60 s, a rejected one 10 s, an allowed review 60 s, a denied one
 * 10 s (a newly granted role is seen within 10 s, a revoked one within 60 s). Errors are never cached; concurrent
 * requests with one token share one review; at most `maxCacheEntries` (1024) results per cache are kept.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { ResourceInfo, Transport } from '../../client/types.js';
import { realClock, type Clock } from '../../clock.js';
import { getLogger, type Logger } from '../../log.js';

/**
 * What a {@link MetricsFilter} decided about one request: serve it, or answer with `status` and `message` (a plain
 * text body) instead.
 */
export type MetricsFilterResult = { allowed: true; user?: string } | { allowed: false; status: number; message: string };

/**
 * Decides whether a `/metrics` request is served (controller-runtime's `metricsserver.Filter`). Called before the
 * request is routed; a filter that rejects its promise makes the server answer 500 (logged), never crash.
 */
export type MetricsFilter = (req: http.IncomingMessage) => Promise<MetricsFilterResult>;

/** Cache lifetimes and limits of {@link withAuthenticationAndAuthorization}; every field has a default. */
export interface AuthFilterOptions {
  /** How long an authenticated token's TokenReview is reused (default 60 000 ms). */
  authenticatedTtlMs?: number;
  /** How long a rejected token's TokenReview is reused (default 10 000 ms). */
  unauthenticatedTtlMs?: number;
  /** How long an allowed SubjectAccessReview is reused (default 60 000 ms). */
  allowedTtlMs?: number;
  /** How long a denied SubjectAccessReview is reused (default 10 000 ms); 0 asks every time. */
  deniedTtlMs?: number;
  /** Results kept per cache, oldest dropped first (default 1024). */
  maxCacheEntries?: number;
  /** Timeout of each review request (default 10 000 ms, as controller-runtime's). */
  requestTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** authentication.k8s.io/v1 `UserInfo`: who a TokenReview says the token belongs to. */
export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

const TOKEN_REVIEWS: ResourceInfo = {
  group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', listKind: 'TokenReviewList', namespaced: false,
};
const SUBJECT_ACCESS_REVIEWS: ResourceInfo = {
  group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', listKind: 'SubjectAccessReviewList', namespaced: false,
};

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: ReviewedUser;
  error?: string;
}

interface AccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * A {@link MetricsFilter} that authenticates the bearer token with a TokenReview and authorizes the user with a
 * SubjectAccessReview, both posted through `transport` (module comment). The transport's identity needs `create` on
 * `tokenreviews` (authentication.k8s.io) and `subjectaccessreviews` (authorization.k8s.io).
 */
export function withAuthenticationAndAuthorization(transport: Transport, opts: AuthFilterOptions = {}): MetricsFilter {
  const clock = opts.clock ?? realClock;
  const log = (opts.logger ?? getLogger()).child({ component: 'metrics-auth' });
  const max = opts.maxCacheEntries ?? 1024;
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const tokens = new TtlCache<TokenReviewStatus>(max, clock);
  const access = new TtlCache<AccessReviewStatus>(max, clock);
  const authenticatedTtl = opts.authenticatedTtlMs ?? 60_000;
  const unauthenticatedTtl = opts.unauthenticatedTtlMs ?? 10_000;
  const allowedTtl = opts.allowedTtlMs ?? 60_000;
  const deniedTtl = opts.deniedTtlMs ?? 10_000;

  const review = async <T>(resource: ResourceInfo, spec: object): Promise<T> => {
    const body = { apiVersion: `${resource.group}/${resource.version}`, kind: resource.kind, spec };
    const res = await transport.request<{ status?: T }>({ verb: 'create', resource, body, signal: AbortSignal.timeout(timeoutMs) });
    return res?.status ?? ({} as T);
  };

  return async (req) => {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return { allowed: false, status: 401, message: 'Unauthorized' };
    let authn: TokenReviewStatus;
    try {
      const key = createHash('sha256').update(token).digest('base64');
      authn = await tokens.get(key, () => review<TokenReviewStatus>(TOKEN_REVIEWS, { token }), (s) => (s.authenticated ? authenticatedTtl : unauthenticatedTtl));
    } catch (err) {
      log.error('metrics authentication failed: TokenReview error', { error: errorText(err) });
      return { allowed: false, status: 500, message: 'Authentication failed' };
    }
    const user = authn.user;
    if (!authn.authenticated || !user?.username) {
      log.debug('metrics request not authenticated', { error: authn.error });
      return { allowed: false, status: 401, message: 'Unauthorized' };
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const verb = (req.method ?? 'GET').toLowerCase();
    let authz: AccessReviewStatus;
    try {
      const key = JSON.stringify([user.username, user.uid ?? '', [...(user.groups ?? [])].sort(), sortedExtra(user.extra), path, verb]);
      authz = await access.get(key, () => review<AccessReviewStatus>(SUBJECT_ACCESS_REVIEWS, {
        user: user.username,
        ...(user.uid ? { uid: user.uid } : {}),
        ...(user.groups ? { groups: user.groups } : {}),
        ...(user.extra ? { extra: user.extra } : {}),
        nonResourceAttributes: { path, verb },
      }), (s) => (s.allowed ? allowedTtl : deniedTtl));
    } catch (err) {
      const message = `Authorization for user ${user.username} failed`;
      log.error(`metrics ${message.toLowerCase()}: SubjectAccessReview error`, { user: user.username, error: errorText(err) });
      return { allowed: false, status: 500, message };
    }
    if (!authz.allowed) {
      log.debug('metrics request denied', { user: user.username, path, verb, reason: authz.reason, evaluationError: authz.evaluationError });
      return { allowed: false, status: 403, message: `Authorization denied for user ${user.username}` };
    }
    return { allowed: true, user: user.username };
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive); undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

function sortedExtra(extra: Record<string, string[]> | undefined): [string, string[]][] {
  return Object.entries(extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Results by key for a time that depends on the result. A lookup during the computation shares its promise; a
 * rejected computation is forgotten. Insertion-ordered: beyond `max` entries the oldest are dropped.
 */
class TtlCache<V> {
  private readonly entries = new Map<string, { expires: number; value: Promise<V> }>();

  constructor(
    private readonly max: number,
    private readonly clock: Clock,
  ) {}

  get(key: string, compute: () => Promise<V>, ttlMs: (v: V) => number): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > this.clock.now()) return hit.value;
    const entry = { expires: Number.POSITIVE_INFINITY, value: compute() };
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    entry.value.then(
      (v) => {
        entry.expires = this.clock.now() + ttlMs(v);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }
}
