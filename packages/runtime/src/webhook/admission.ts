/**
 * Admission webhooks (controller-runtime `pkg/webhook/admission`): the AdmissionReview v1 types, and handlers that
 * turn an `AdmissionRequest` into an `AdmissionResponse`.
 *
 * - `defaultingWebhook(defaulter)`: a mutating webhook. The defaulter gets a deep copy of the object and changes it
 *   in place (or returns a new one); the runtime answers with the JSON Patch from the original to the result.
 * - `validatingWebhook(validator)`: a validating webhook with `validateCreate`, `validateUpdate` and `validateDelete`.
 *   Each returns warnings (or nothing) to admit the request, or throws to deny it: the thrown message is the reason
 *   users see (`admission webhook "…" denied the request: <message>`); an `ApiError` keeps its own status code.
 * - `admissionWebhook(fn)`: any other logic, answering with `allowed`, `denied`, `patched` or its own response.
 *
 * Handlers never see malformed input: the webhook server (server.ts) answers undecodable, oversized or wrong-version
 * bodies itself. A handler that throws unexpectedly is answered as an error (code 500), never a crash.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../client/errors.js';
import type { JsonPatchOperation } from '../client/interfaces.js';
import type { KubeObject } from '../client/types.js';
import { deepCopyJSON } from '../deepcopy.js';
import { createJsonPatch } from '../patch/json-patch-diff.js';

/** `admission.k8s.io/v1` AdmissionRequest: what the apiserver asks about one operation on one object. */
export interface AdmissionRequest<T = KubeObject> {
  /** Identifies this request; the response carries it back (the server fills it in). */
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: { group: string; version: string; kind: string };
  requestResource?: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The new object (CREATE, UPDATE); absent for DELETE. */
  object?: T;
  /** The existing object (UPDATE, DELETE). */
  oldObject?: T;
  dryRun?: boolean;
  options?: Record<string, unknown>;
}

/** `admission.k8s.io/v1` AdmissionResponse (without `uid`, which the server copies from the request). */
export interface AdmissionResponse {
  allowed: boolean;
  /** Why a request is denied (shown to the user), or an error's details. */
  status?: { code?: number; message?: string; reason?: string };
  /** Base64 of a JSON Patch (`patchType: 'JSONPatch'`), for mutating webhooks. */
  patch?: string;
  patchType?: 'JSONPatch';
  /** Shown to the client as `Warning:` lines (kubectl prints them); at most 120 characters each is wise. */
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** Answers admission requests. May be async; a thrown error is answered with `errored(500, err)`. */
export interface AdmissionHandler {
  handle(req: AdmissionRequest, signal: AbortSignal): AdmissionResponse | Promise<AdmissionResponse>;
}

/** Admit the request. */
export function allowed(message?: string, warnings?: string[]): AdmissionResponse {
  return {
    allowed: true,
    ...(message ? { status: { code: 200, message } } : {}),
    ...(warnings && warnings.length > 0 ? { warnings } : {}),
  };
}

/** Deny the request with a reason the user sees (code 403 Forbidden, as controller-runtime's `Denied`). */
export function denied(message: string, warnings?: string[]): AdmissionResponse {
  return { allowed: false, status: { code: 403, reason: 'Forbidden', message }, ...(warnings && warnings.length > 0 ? { warnings } : {}) };
}

/** Answer that the webhook failed (not a policy decision): `code` 400 for bad input, 500 for a bug. */
export function errored(code: number, err: unknown): AdmissionResponse {
  return { allowed: false, status: { code, message: err instanceof Error ? err.message : String(err) } };
}

/** Admit the request with a JSON Patch (empty: plain admit). */
export function patched(ops: readonly JsonPatchOperation[], warnings?: string[]): AdmissionResponse {
  if (ops.length === 0) return allowed(undefined, warnings);
  return { ...allowed(undefined, warnings), patch: Buffer.from(JSON.stringify(ops)).toString('base64'), patchType: 'JSONPatch' };
}

/**
 * Sets defaults on an object being created or updated (controller-runtime's `CustomDefaulter`). Change `obj` in
 * place, or return the object to store; `req` says what is happening (operation, user, dry run).
 */
export type Defaulter<T extends KubeObject> = (obj: T, req: AdmissionRequest<T>) => T | void | Promise<T | void>;

/** A mutating webhook from a defaulter: admits every request, patched with what the defaulter changed. */
export function defaultingWebhook<T extends KubeObject>(defaulter: Defaulter<T>): AdmissionHandler {
  return {
    async handle(req) {
      const r = req as AdmissionRequest<T>;
      // DELETE and CONNECT carry no new object: nothing to default (controller-runtime admits them as they are).
      if (r.operation !== 'CREATE' && r.operation !== 'UPDATE') return allowed();
      if (!r.object) return errored(400, new Error(`${r.operation} request without an object`));
      const original = r.object;
      const copy = deepCopyJSON(original);
      const result = (await defaulter(copy, r)) ?? copy;
      if (isDeepStrictEqual(result, original)) return allowed();
      return patched(createJsonPatch(original, result));
    },
  };
}

/** Warnings returned by a validation that admits the request. */
export type Warnings = string[] | void;

/**
 * Validates operations on an object (controller-runtime's `CustomValidator`). Return warnings (or nothing) to admit;
 * throw to deny with the error's message. A missing method admits that operation.
 */
export interface Validator<T extends KubeObject> {
  validateCreate?(obj: T, req: AdmissionRequest<T>): Warnings | Promise<Warnings>;
  validateUpdate?(oldObj: T, obj: T, req: AdmissionRequest<T>): Warnings | Promise<Warnings>;
  validateDelete?(oldObj: T, req: AdmissionRequest<T>): Warnings | Promise<Warnings>;
}

/** A validating webhook from a validator (see {@link Validator}). */
export function validatingWebhook<T extends KubeObject>(validator: Validator<T>): AdmissionHandler {
  return {
    async handle(req) {
      const r = req as AdmissionRequest<T>;
      let warnings: Warnings;
      try {
        switch (r.operation) {
          case 'CREATE':
            if (!r.object) return errored(400, new Error('CREATE request without an object'));
            warnings = await validator.validateCreate?.(r.object, r);
            break;
          case 'UPDATE':
            if (!r.object || !r.oldObject) return errored(400, new Error('UPDATE request without object and oldObject'));
            warnings = await validator.validateUpdate?.(r.oldObject, r.object, r);
            break;
          case 'DELETE':
            if (!r.oldObject) return errored(400, new Error('DELETE request without oldObject'));
            warnings = await validator.validateDelete?.(r.oldObject, r);
            break;
          default:
            return allowed();
        }
      } catch (err) {
        if (err instanceof ApiError) {
          return { allowed: false, status: { code: err.code, reason: err.reason, message: err.message } };
        }
        return denied(err instanceof Error ? err.message : String(err));
      }
      return allowed(undefined, warnings ?? undefined);
    },
  };
}

/** A webhook from a function of the request (controller-runtime's `admission.HandlerFunc`). */
export function admissionWebhook(fn: (req: AdmissionRequest, signal: AbortSignal) => AdmissionResponse | Promise<AdmissionResponse>): AdmissionHandler {
  return { handle: fn };
}
