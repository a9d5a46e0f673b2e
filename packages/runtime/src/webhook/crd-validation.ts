/**
 * A validating webhook that runs a CRD's own validation (`@kubegen/runtime/validation`: schema, list types, metadata
 * names and the CEL rules of `x-kubernetes-validations`, transition rules against `oldObject`) inside admission, for
 * clusters whose apiserver is older than the Kubernetes version the CRD's rules need (CEL rules from 1.25,
 * `messageExpression` and `reason`/`fieldPath` from 1.28, `optionalOldSelf` ratcheting from 1.30…): such a server
 * ignores or cannot evaluate them, the webhook enforces them. A refused object is denied with the 422 Invalid the
 * apiserver itself would answer (reason, message and causes); status writes are checked against the status schema.
 */
import type { KubeObject } from '../client/types.js';
import type { CompileRules, FieldError, ValidatedCrd } from '../validation/index.js';
import { allowed, errored, type AdmissionHandler, type AdmissionResponse } from './admission.js';

/** Options of {@link crdValidationWebhook}. */
export interface CrdValidationWebhookOptions {
  /** The CEL layer (default: the runtime's, loaded with the validator). */
  compileRules?: CompileRules;
}

/** The 422's message: `Kind.group "name" is invalid: <causes>` (one cause alone, several in brackets). */
function invalidMessage(kind: string, group: string, name: string, errors: readonly FieldError[]): string {
  const texts = errors.map((e) => `${e.path}: ${e.message}`);
  return `${kind}.${group} "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`}`;
}

/**
 * An admission handler validating the CRD's custom resources as its apiserver would (see the module comment). Builds
 * the validator once, loading the validation code (and the CEL layer, for CRDs with rules) on the first call.
 */
export async function crdValidationWebhook(crd: ValidatedCrd, options: CrdValidationWebhookOptions = {}): Promise<AdmissionHandler> {
  const { createValidator } = await import('../validation/index.js');
  const validator = await createValidator(crd, options);
  return {
    handle(req): AdmissionResponse {
      if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allowed();
      if (!req.object) return errored(400, new Error(`${req.operation} request without an object`));
      if (req.operation === 'UPDATE' && !req.oldObject) return errored(400, new Error('UPDATE request without oldObject'));
      const operation = req.operation === 'CREATE' ? 'create' : req.subResource === 'status' ? 'status' : 'update';
      const result = validator.validate(req.object, { operation, ...(req.oldObject ? { old: req.oldObject } : {}), ...(req.namespace ? { namespace: req.namespace } : {}) });
      if (result.errors.length === 0) return allowed();
      const name = (req.object as KubeObject).metadata?.name ?? req.name ?? '';
      return { allowed: false, status: { code: 422, reason: 'Invalid', message: invalidMessage(validator.kind, validator.group, name, result.errors) } };
    },
  };
}
