/**
 * `recordForbidden(transport)`: a `Transport` that passes every request through and remembers each one the apiserver
 * refused with 403 Forbidden (verb, resource, group, scope, user and the `+kubebuilder:rbac` marker that would grant
 * it; see `client/forbidden.ts`). Give it to a manager that runs as its ServiceAccount
 * (`Envtest.installProjectRbac`), and a test can fail naming every request the project's RBAC does not allow,
 * rather than timing out on an object that never became Ready. It relies on no log line of the manager.
 */
import { describeForbidden, forbiddenRequestOf, type ForbiddenRequest } from '../../client/forbidden.js';
import type { RawRequestInit, RawResponse, ResourceRequest, Transport, Watch } from '../../client/types.js';

/** One refused request and how often it was refused. */
export interface RecordedForbidden {
  request: ForbiddenRequest;
  /** `describeForbidden(request)`: the line a failure message shows. */
  description: string;
  count: number;
}

/** Thrown by {@link ForbiddenRecorder.assertNoneForbidden}: names every refused request. */
export class ForbiddenRequestsError extends Error {
  /** The refused requests (not enumerable: a test runner's report shows the message, not this list again). */
  declare readonly refused: readonly RecordedForbidden[];

  constructor(refused: readonly RecordedForbidden[]) {
    const lines = refused.map((r) => `  - ${r.description}${r.count > 1 ? ` (refused ${r.count} times)` : ''}`);
    super(
      `the apiserver refused ${refused.length === 1 ? 'a request' : `${refused.length} distinct requests`} (403 Forbidden): ` +
        `add each marker to a controller and run npm run generate:\n${lines.join('\n')}`,
    );
    this.name = 'ForbiddenRequestsError';
    Object.defineProperty(this, 'refused', { value: refused, enumerable: false });
  }
}

/**
 * A pass-through `Transport` recording every 403 (see the module comment). Results and errors are returned and
 * thrown unchanged.
 */
export class ForbiddenRecorder implements Transport {
  private readonly seen = new Map<string, RecordedForbidden>();

  /** `inner`: the transport requests go through (the manager's, authenticated as its ServiceAccount). */
  constructor(readonly inner: Transport) {}

  /** The inner transport's field manager. */
  get fieldManager(): string | undefined {
    return this.inner.fieldManager;
  }

  /** As the inner transport says (false when it does not say). */
  isWatchListSemanticsUnsupported(): boolean {
    return this.inner.isWatchListSemanticsUnsupported?.() ?? false;
  }

  /** Sends `req` through the inner transport; a 403 is recorded, then rethrown. */
  async request<T = unknown>(req: ResourceRequest): Promise<T> {
    try {
      return await this.inner.request<T>(req);
    } catch (err) {
      this.record(err, req);
      throw err;
    }
  }

  /** Opens a watch through the inner transport; a 403 is recorded, then rethrown. */
  async watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
    try {
      return await this.inner.watch<T>(req);
    } catch (err) {
      this.record(err, req);
      throw err;
    }
  }

  /** A raw request through the inner transport (discovery, /version); its status is the caller's to read. */
  raw(method: string, path: string, init?: RawRequestInit): Promise<RawResponse> {
    return this.inner.raw(method, path, init);
  }

  /** Every distinct refused request so far, in the order first seen. */
  get forbidden(): RecordedForbidden[] {
    return [...this.seen.values()];
  }

  /** Throws a {@link ForbiddenRequestsError} naming every refused request, if there was any. */
  assertNoneForbidden(): void {
    if (this.seen.size > 0) throw new ForbiddenRequestsError(this.forbidden);
  }

  /** Forgets what was recorded. */
  clear(): void {
    this.seen.clear();
  }

  /** Closes the inner transport when it can be closed (an `HttpTransport`). */
  close(): void {
    (this.inner as { close?: () => void }).close?.();
  }

  private record(err: unknown, req: ResourceRequest): void {
    const request = forbiddenRequestOf(err, {
      verb: req.verb,
      group: req.resource.group,
      resource: req.resource.resource,
      subresource: req.subresource,
      namespace: req.resource.namespaced ? req.namespace : undefined,
    });
    if (!request) return;
    const description = describeForbidden(request);
    const entry = this.seen.get(description);
    if (entry) entry.count++;
    else this.seen.set(description, { request, description, count: 1 });
  }
}

/** Wraps `transport` in a {@link ForbiddenRecorder}. */
export function recordForbidden(transport: Transport): ForbiddenRecorder {
  return new ForbiddenRecorder(transport);
}
