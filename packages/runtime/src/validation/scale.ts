/**
 * The scale subresource's checks on every write (`customResourceValidator.ValidateScaleSpec/Status`): the replicas
 * paths hold non-negative int32s (or nothing), the label selector path a string. Paths are printed as the CRD writes
 * them (`.spec.replicas`), as the apiserver does.
 */
import { fieldInvalid, goValue, type FieldError } from './field-error.js';
import { isObject, type JsonObject } from './json-value.js';

/** The scale subresource of a CRD version. */
export interface ScaleSpec {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

const goTypeName = (v: unknown): string =>
  typeof v === 'number' ? (Number.isInteger(v) ? 'int64' : 'float64') : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool'
    : Array.isArray(v) ? '[]interface {}' : isObject(v) ? 'map[string]interface {}' : '<nil>';

function nested(obj: JsonObject, path: string): { found: boolean; value?: unknown; fields: string[] } {
  const fields = path.replace(/^\./, '').split('.');
  let cur: unknown = obj;
  for (const f of fields) {
    if (!isObject(cur) || !(f in cur)) return { found: false, fields };
    cur = cur[f];
  }
  return { found: true, value: cur, fields };
}

function replicas(obj: JsonObject, path: string | undefined): FieldError[] {
  if (!path) return [];
  const { found, value, fields } = nested(obj, path);
  if (!found) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return [fieldInvalid(path, 0, `${fields.join('.')} accessor error: ${value === null ? '<nil>' : typeof value === 'string' ? value : goValue(value)} is of the type ${goTypeName(value)}, expected int64`)];
  }
  if (value < 0) return [fieldInvalid(path, value, 'should be a non-negative integer')];
  if (value > 2147483647) return [fieldInvalid(path, value, 'should be less than or equal to 2147483647')];
  return [];
}

/** `ValidateScaleSpec`. */
export const validateScaleSpec = (obj: JsonObject, scale: ScaleSpec | undefined): FieldError[] => (scale ? replicas(obj, scale.specReplicasPath) : []);

/** `ValidateScaleStatus`. */
export function validateScaleStatus(obj: JsonObject, scale: ScaleSpec | undefined): FieldError[] {
  if (!scale) return [];
  const errs = replicas(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    const { found, value, fields } = nested(obj, scale.labelSelectorPath);
    if (found && typeof value !== 'string') {
      errs.push(fieldInvalid(scale.labelSelectorPath, '', `${fields.join('.')} accessor error: ${value === null ? '<nil>' : goValue(value)} is of the type ${goTypeName(value)}, expected string`));
    }
  }
  return errs;
}
