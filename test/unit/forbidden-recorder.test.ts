/**
 * recordForbidden: a pass-through transport that remembers each distinct 403 (from the apiserver's message, else from
 * the request), ignores other errors, and fails naming every refused request with the marker that grants it; and
 * eventually's failFast, which ends a wait at once on such a failure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { ResourceInfo, ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';
import { ForbiddenRequestsError, recordForbidden } from '@kubegen/runtime/internal/testing/envtest/forbidden-recorder.js';
import { eventually } from '@kubegen/runtime/internal/testing/envtest/eventually.js';

const SERVICES: ResourceInfo = { group: '', version: 'v1', resource: 'services', kind: 'Service', listKind: 'ServiceList', namespaced: true };
const FOOS: ResourceInfo = { group: 'x.io', version: 'v1', resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true };
const SA = 'system:serviceaccount:ops:controller-manager';

/** Answers list/watch of services with the apiserver's 403, a status update of foos with a 403 without that message, the rest with 404 or a value. */
const apiserver: Transport = {
  fieldManager: 'mgr',
  async request<T>(req: ResourceRequest): Promise<T> {
    if (req.resource.resource === 'services') throw new ApiError(newStatus(403, 'Forbidden', `services is forbidden: User "${SA}" cannot list resource "services" in API group "" at the cluster scope`));
    if (req.subresource === 'status') throw new ApiError(newStatus(403, 'Forbidden', 'denied'));
    if (req.name === 'missing') throw new ApiError(newStatus(404, 'NotFound', 'not found'));
    return { metadata: { name: req.name } } as T;
  },
  async watch<T>(): Promise<Watch<T>> {
    throw new ApiError(newStatus(403, 'Forbidden', `services is forbidden: User "${SA}" cannot watch resource "services" in API group "" at the cluster scope`));
  },
  async raw() {
    return { statusCode: 200, headers: {}, body: Buffer.from('{}') };
  },
};

describe('recordForbidden', () => {
  it('passes results and errors through and records each distinct 403 once, counting repeats', async () => {
    const t = recordForbidden(apiserver);
    assert.equal(t.fieldManager, 'mgr');
    assert.deepEqual(await t.request({ verb: 'get', resource: FOOS, namespace: 'a', name: 'x' }), { metadata: { name: 'x' } });
    await assert.rejects(t.request({ verb: 'get', resource: FOOS, namespace: 'a', name: 'missing' }), /not found/);
    t.assertNoneForbidden();
    for (let i = 0; i < 3; i++) await assert.rejects(t.request({ verb: 'list', resource: SERVICES }), /forbidden/);
    await assert.rejects(t.watch({ verb: 'watch', resource: SERVICES }), /forbidden/);
    await assert.rejects(t.request({ verb: 'update', resource: FOOS, namespace: 'a', name: 'x', subresource: 'status' }), /denied/);
    assert.deepEqual(
      t.forbidden.map((r) => [r.request.verb, r.request.resource, r.request.subresource, r.request.namespace, r.count]),
      [['list', 'services', undefined, undefined, 3], ['watch', 'services', undefined, undefined, 1], ['update', 'foos', 'status', 'a', 1]],
    );
  });

  it('fails naming every refused request, its user and the marker that grants it', async () => {
    const t = recordForbidden(apiserver);
    await t.request({ verb: 'list', resource: SERVICES }).catch(() => undefined);
    await t.request({ verb: 'list', resource: SERVICES }).catch(() => undefined);
    await t.request({ verb: 'update', resource: FOOS, namespace: 'a', name: 'x', subresource: 'status' }).catch(() => undefined);
    const err = (() => {
      try {
        t.assertNoneForbidden();
      } catch (e) {
        return e as ForbiddenRequestsError;
      }
      return assert.fail('assertNoneForbidden passed');
    })();
    assert.ok(err instanceof ForbiddenRequestsError);
    assert.equal(err.refused.length, 2);
    assert.equal(Object.keys(err).includes('refused'), false, 'a test report shows the message, not the list again');
    assert.equal(
      err.message,
      'the apiserver refused 2 distinct requests (403 Forbidden): add each marker to a controller and run npm run generate:\n' +
        `  - list services (core group) at the cluster scope, as ${SA}; the marker +kubebuilder:rbac:groups="",resources=services,verbs=list grants it (refused 2 times)\n` +
        '  - update foos/status (group x.io) in namespace a; the marker +kubebuilder:rbac:groups=x.io,resources=foos/status,verbs=update grants it',
    );
    t.clear();
    t.assertNoneForbidden();
  });
});

describe('eventually failFast', () => {
  it('ends the wait at once with the failFast error instead of retrying to the timeout', async () => {
    const t = recordForbidden(apiserver);
    let attempts = 0;
    await assert.rejects(
      eventually(
        async () => {
          attempts++;
          await t.request({ verb: 'list', resource: SERVICES }).catch(() => undefined);
          throw new Error('not ready');
        },
        { timeoutMs: 60_000, failFast: () => t.assertNoneForbidden() },
      ),
      (err: unknown) => err instanceof ForbiddenRequestsError,
    );
    assert.equal(attempts, 1, 'no attempt after the refusal (a retry would run until the 60 s timeout)');
  });
});
