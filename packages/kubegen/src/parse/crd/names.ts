/**
 * Validation of everything in a CRD that later becomes a file path, URL segment or identifier in generated code.
 * Each check returns an error message, or undefined when the value is fine.
 */
import { RESERVED_WORDS } from '../../model/identifiers.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const VERSION = /^v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

/** Group: a DNS-1123 subdomain (lower-case labels separated by dots, at most 253 characters). */
export function checkGroup(group: unknown): string | undefined {
  if (typeof group !== 'string' || group === '') return 'group must be a non-empty string';
  if (group.length > 253 || !group.split('.').every((l) => DNS1123_LABEL.test(l) && l.length <= 63)) {
    return `group ${JSON.stringify(group)} is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')`;
  }
  return undefined;
}

/** Version: a Kubernetes version name such as `v1`, `v1beta2`, `v2alpha1`. */
export function checkVersion(name: unknown): string | undefined {
  if (typeof name !== 'string' || !VERSION.test(name) || name.length > 63) {
    return `version name ${JSON.stringify(name)} is not a Kubernetes version (expected e.g. v1, v1beta1, v2alpha3)`;
  }
  return undefined;
}

/** Plural, singular, short names: DNS-1123 labels. */
export function checkLabel(what: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 63 || !DNS1123_LABEL.test(value)) {
    return `${what} ${JSON.stringify(value)} is not a DNS-1123 label (lower-case letters, digits and '-')`;
  }
  return undefined;
}

/** Kind and listKind: letters and digits starting with a letter, and not a reserved word. */
export function checkKind(what: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || !KIND.test(value)) {
    return `${what} ${JSON.stringify(value)} must match ^[A-Za-z][A-Za-z0-9]*$`;
  }
  if (RESERVED_WORDS.has(value)) return `${what} ${JSON.stringify(value)} is a reserved word in TypeScript`;
  return undefined;
}
