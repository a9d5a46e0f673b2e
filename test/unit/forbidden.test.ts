import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { describeForbidden, explainError, forbiddenRequestOf, rbacMarkerFor } from '@kubegen/runtime/internal/client/forbidden.js';

const forbidden = (message: string): ApiError => new ApiError(newStatus(403, 'Forbidden', message));

describe('forbiddenRequestOf', () => {
  it('reads verb, resource, group, scope and user from the apiserver message', () => {
    const err = forbidden('services is forbidden: User "system:serviceaccount:ops:controller-manager" cannot list resource "services" in API group "" at the cluster scope');
    assert.deepEqual(forbiddenRequestOf(err), { verb: 'list', group: '', resource: 'services', user: 'system:serviceaccount:ops:controller-manager' });
  });

  it('splits a subresource and keeps the namespace', () => {
    const err = forbidden('foos.x.io "a" is forbidden: User "bob" cannot update resource "foos/status" in API group "x.io" in the namespace "ns1"');
    assert.deepEqual(forbiddenRequestOf(err), { verb: 'update', group: 'x.io', resource: 'foos', subresource: 'status', namespace: 'ns1', user: 'bob' });
  });

  it('falls back to the request when the message does not say, and ignores other errors', () => {
    const req = { verb: 'watch', group: 'apps', resource: 'deployments', namespace: 'a' };
    assert.deepEqual(forbiddenRequestOf(forbidden('denied by a webhook'), req), { verb: 'watch', group: 'apps', resource: 'deployments', namespace: 'a' });
    assert.equal(forbiddenRequestOf(forbidden('denied by a webhook')), undefined);
    assert.equal(forbiddenRequestOf(new ApiError(newStatus(404, 'NotFound', 'x')), req), undefined);
    assert.equal(forbiddenRequestOf(new Error('x'), req), undefined);
  });
});

describe('rbacMarkerFor and describeForbidden', () => {
  it('writes the marker generate --apis reads, quoting the core group', () => {
    assert.equal(rbacMarkerFor({ verb: 'list', group: '', resource: 'services' }), '+kubebuilder:rbac:groups="",resources=services,verbs=list');
    assert.equal(rbacMarkerFor({ verb: 'update', group: 'x.io', resource: 'foos', subresource: 'status' }), '+kubebuilder:rbac:groups=x.io,resources=foos/status,verbs=update');
  });

  it('names verb, resource, group, scope, user and the marker in one line', () => {
    assert.equal(
      describeForbidden({ verb: 'list', group: '', resource: 'services', user: 'system:serviceaccount:ops:sa' }),
      'list services (core group) at the cluster scope, as system:serviceaccount:ops:sa; the marker +kubebuilder:rbac:groups="",resources=services,verbs=list grants it',
    );
    assert.match(describeForbidden({ verb: 'get', group: 'apps', resource: 'deployments', namespace: 'n' }), /^get deployments \(group apps\) in namespace n; /);
  });
});

it('an escalation refusal names the permissions not held and their markers, not the allowed write', () => {
  const message =
    'roles.rbac.authorization.k8s.io "reader" is forbidden: user "system:serviceaccount:ns:writer" (groups=["system:serviceaccounts" "system:serviceaccounts:ns" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
    '{APIGroups:[""], Resources:["endpoints"], Verbs:["get" "list"]}\n{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["patch"]}\n{NonResourceURLs:["/healthz"], Verbs:["get"]}';
  const err = new ApiError(newStatus(403, 'Forbidden', message));
  err.request = { verb: 'create', group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', namespace: 'ns' } as NonNullable<ApiError['request']>;
  const refused = forbiddenRequestOf(err, err.request);
  assert.deepEqual(refused?.notHeld, [
    { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['patch'], resourceNames: ['web'] },
    { apiGroups: [], resources: [], verbs: ['get'], nonResourceURLs: ['/healthz'] },
  ]);
  assert.equal(
    explainError(err),
    'forbidden: create roles (group rbac.authorization.k8s.io) in namespace ns, as system:serviceaccount:ns:writer: refused as privilege escalation, the object grants permissions not held: ' +
      'get, list endpoints (core group); patch deployments named web (group apps); get /healthz; the markers +kubebuilder:rbac:groups="",resources=endpoints,verbs=get;list ' +
      '+kubebuilder:rbac:groups=apps,resources=deployments,resourceNames=web,verbs=patch +kubebuilder:rbac:urls=/healthz,verbs=get grant them',
  );
});
