/**
 * The client side of typed server-side apply (issue 12): apply conflicts parsed from the apiserver's 409 into
 * `ApplyConflictError`, the default field manager and who may override it, and what `apply` sends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultFieldManager, FALLBACK_FIELD_MANAGER } from '@kubegen/runtime/internal/client/apply.js';
import { apiErrorFromStatus, ApiError, ApplyConflictError, applyConflictsOf, isApplyConflict, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { apiErrorFromResponse } from '@kubegen/runtime/internal/client/response-status.js';
import type { KubeObject, ResourceRequest, Status, Transport } from '@kubegen/runtime/internal/client/types.js';

/** kube-apiserver 1.36's answer to an apply that conflicts on three fields (captured from a real server). */
const REAL_CONFLICT =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 3 conflicts: conflicts with \\"a\\":\\n- .spec.color\\n- .spec.replicas\\n- .spec.ports[name=\\"http\\",protocol=\\"TCP\\"].port","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \\"a\\"","field":".spec.color"},{"reason":"FieldManagerConflict","message":"conflict with \\"a\\"","field":".spec.replicas"},{"reason":"FieldManagerConflict","message":"conflict with \\"a\\"","field":".spec.ports[name=\\"http\\",protocol=\\"TCP\\"].port"}]},"code":409}';

describe('ApplyConflictError', () => {
  it('is what a 409 with FieldManagerConflict causes becomes, with every conflict parsed', () => {
    const err = apiErrorFromResponse(409, REAL_CONFLICT);
    assert.ok(err instanceof ApplyConflictError && isApplyConflict(err));
    assert.ok(err instanceof ApiError);
    assert.equal(err.name, 'ApplyConflictError');
    assert.equal(err.code, 409);
    assert.match(err.message, /^Apply failed with 3 conflicts/);
    assert.deepEqual(err.conflicts, [
      { field: '.spec.color', manager: 'a', message: 'conflict with "a"' },
      { field: '.spec.replicas', manager: 'a', message: 'conflict with "a"' },
      { field: '.spec.ports[name="http",protocol="TCP"].port', manager: 'a', message: 'conflict with "a"' },
    ]);
  });

  it('takes the manager from the quotes whatever follows (subresource, an updater\'s apiVersion) and unescapes it', () => {
    const cause = (message: string) => ({ reason: 'FieldManagerConflict', message, field: '.x' });
    const status = newStatus(409, 'Conflict', 'Apply failed', {
      causes: [
        cause('conflict with "st" with subresource "status"'),
        cause('conflict with "kubectl-edit" using apps/v1'),
        cause('conflict with "odd \\"name\\" \\\\ here"'),
        cause('conflict with "bad \\x41 escape"'),
        cause('something else'),
        { reason: 'FieldValueInvalid', message: 'not a conflict', field: '.y' },
      ],
    });
    assert.deepEqual(applyConflictsOf(status).map((c) => c.manager), ['st', 'kubectl-edit', 'odd "name" \\ here', 'bad \\x41 escape', '']);
  });

  it('is not made for other 409s or for the same causes under another code', () => {
    const stale = newStatus(409, 'Conflict', 'Operation cannot be fulfilled on foos "a": the object has been modified');
    assert.ok(!isApplyConflict(apiErrorFromStatus(stale)));
    assert.ok(!isApplyConflict(new ApiError(stale)));
    const parsed = JSON.parse(REAL_CONFLICT) as Status;
    assert.ok(!isApplyConflict(apiErrorFromStatus({ ...parsed, code: 422 })));
    assert.ok(!isApplyConflict(new Error('conflict with "a"')));
  });
});

describe('defaultFieldManager', () => {
  it('is the main script\'s basename without its extension, printable, at most 128 characters', () => {
    assert.equal(defaultFieldManager('/app/dist/main.js'), 'main');
    assert.equal(defaultFieldManager('/usr/local/bin/foo-controller'), 'foo-controller');
    assert.equal(defaultFieldManager('C:/x/ctl.test.mjs'), 'ctl.test');
    assert.equal(defaultFieldManager('/x/.hidden'), '.hidden');
    assert.equal(defaultFieldManager(`/x/${'m'.repeat(200)}.js`), 'm'.repeat(128));
    assert.equal(defaultFieldManager('/x/a\u0007b\u00e9.js'), 'ab');
  });

  it('falls back to kubegen when there is no script (REPL, node -e)', () => {
    assert.equal(FALLBACK_FIELD_MANAGER, 'kubegen');
    assert.equal(defaultFieldManager(''), 'kubegen');
    const saved = process.argv.splice(1);
    try {
      assert.equal(defaultFieldManager(), 'kubegen', 'no process.argv[1]');
    } finally {
      process.argv.push(...saved);
    }
    assert.equal(defaultFieldManager('/x/\u0001.js'), 'kubegen');
  });

  it('reads process.argv[1] by default', () => {
    const saved = process.argv[1];
    try {
      process.argv[1] = '/opt/widget-operator.cjs';
      assert.equal(defaultFieldManager(), 'widget-operator');
    } finally {
      process.argv[1] = saved!;
    }
  });
});

describe('ResourceClient.apply', () => {
  const FOOS = { group: 'example.com', version: 'v1', resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true };
  function recorder(fieldManager?: string): { transport: Transport; seen: ResourceRequest[] } {
    const seen: ResourceRequest[] = [];
    const transport: Transport = {
      fieldManager,
      request: async <T>(req: ResourceRequest) => {
        seen.push(req);
        return {} as T;
      },
      watch: () => Promise.reject(new Error('no watch')),
      raw: () => Promise.reject(new Error('no raw requests here')),
    };
    return { transport, seen };
  }

  it('sends an apply patch with apiVersion/kind filled in, force and dryRun as query parameters', async () => {
    const { transport, seen } = recorder();
    const foos = new ResourceClient<KubeObject>(transport, FOOS, 'ns');
    await foos.apply({ metadata: { name: 'a' } }, { fieldManager: 'me', force: true, dryRun: true });
    await foos.applyStatus({ metadata: { name: 'a' } }, { fieldManager: 'me' });
    assert.deepEqual(
      seen.map((r) => [r.verb, r.patchType, r.namespace, r.name, r.subresource, r.query, r.body]),
      [
        ['patch', 'apply', 'ns', 'a', undefined, { fieldManager: 'me', force: true, dryRun: 'All' }, { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' } }],
        ['patch', 'apply', 'ns', 'a', 'status', { fieldManager: 'me', force: undefined, dryRun: undefined }, { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a' } }],
      ],
    );
  });

  it('names the call\'s field manager, else the transport\'s, else the program\'s name', async () => {
    const plain = recorder();
    await new ResourceClient<KubeObject>(plain.transport, FOOS, 'ns').apply({ metadata: { name: 'a' } });
    assert.equal(plain.seen[0]!.query!['fieldManager'], defaultFieldManager());
    const owned = recorder('operator');
    const foos = new ResourceClient<KubeObject>(owned.transport, FOOS, 'ns');
    await foos.apply({ metadata: { name: 'a' } });
    await foos.apply({ metadata: { name: 'a' } }, { fieldManager: 'call' });
    assert.deepEqual(owned.seen.map((r) => r.query!['fieldManager']), ['operator', 'call']);
  });

  it('HttpTransport takes fieldManager as an option (and so Clientset.fromKubeConfig / createTransport)', () => {
    assert.equal(new HttpTransport({ server: 'https://127.0.0.1:1' }, { fieldManager: 'op' }).fieldManager, 'op');
    assert.equal(new HttpTransport({ server: 'https://127.0.0.1:1' }).fieldManager, undefined);
  });
});
