import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crdValidationWebhook, type AdmissionRequest } from '@kubegen/runtime/webhook';
import type { CompileRules, ValidatedCrd } from '@kubegen/runtime/validation';

const CRD: ValidatedCrd = {
  metadata: { name: 'dbs.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced', names: { kind: 'Database', plural: 'dbs' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'size may not shrink' }], properties: { size: { type: 'integer', minimum: 1 } } },
        status: { type: 'object', properties: { phase: { type: 'string', enum: ['Ready', 'Pending'] } } },
      } } },
    }],
  },
};

/** Stub CEL layer: the transition rule `self.size >= oldSelf.size`. */
const noShrink: CompileRules = (node) => ({
  compileErrors: [],
  evaluate: (self, old) => (!node['x-kubernetes-validations'] || !old || (self as { size: number }).size >= (old.value as { size: number }).size
    ? [] : [{ fieldPath: '', reason: 'FieldValueInvalid', message: 'size may not shrink', rule: 'self.size >= oldSelf.size' }]),
});

const db = (size: number, status?: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'db', namespace: 'ns', resourceVersion: '1' }, spec: { size }, ...(status ? { status } : {}) });
const req = (operation: AdmissionRequest['operation'], object: unknown, oldObject?: unknown, subResource?: string): AdmissionRequest => ({
  uid: 'u', kind: { group: 'example.com', version: 'v1', kind: 'Database' }, resource: { group: 'example.com', version: 'v1', resource: 'dbs' },
  operation, userInfo: {}, namespace: 'ns', object: object as never, ...(oldObject ? { oldObject: oldObject as never } : {}), ...(subResource ? { subResource } : {}),
});

describe('crdValidationWebhook', () => {
  it('admits valid objects and denies invalid ones with the apiserver 422 message', async () => {
    const hook = await crdValidationWebhook(CRD, { compileRules: noShrink });
    const signal = new AbortController().signal;
    assert.deepEqual(await hook.handle(req('CREATE', db(2)), signal), { allowed: true });
    assert.deepEqual(await hook.handle(req('CREATE', db(0)), signal), {
      allowed: false,
      status: { code: 422, reason: 'Invalid', message: 'Database.example.com "db" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1' },
    });
  });
  it('runs transition rules against oldObject on UPDATE', async () => {
    const hook = await crdValidationWebhook(CRD, { compileRules: noShrink });
    const signal = new AbortController().signal;
    const r = await hook.handle(req('UPDATE', db(1), db(3)), signal);
    assert.equal(r.allowed, false);
    assert.equal(r.status?.message, 'Database.example.com "db" is invalid: spec: Invalid value: size may not shrink');
    assert.equal((await hook.handle(req('UPDATE', db(4), db(3)), signal)).allowed, true);
  });
  it('checks status writes against the status schema only, and lets DELETE through', async () => {
    const hook = await crdValidationWebhook(CRD, { compileRules: noShrink });
    const signal = new AbortController().signal;
    const r = await hook.handle(req('UPDATE', db(1, { phase: 'Gone' }), db(3), 'status'), signal);
    assert.match(r.status?.message ?? '', /status\.phase: Unsupported value: "Gone": supported values: "Ready", "Pending"/);
    assert.equal((await hook.handle(req('DELETE', undefined, db(3)), signal)).allowed, true);
  });
});
