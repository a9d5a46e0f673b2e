/**
 * Name and value validation as k8s.io/apimachinery/pkg/util/validation does it. Each `validate*` function returns
 * the list of problems (empty when valid), with the apiserver's wording; the `is*` helpers are boolean shorthands.
 */

const DNS1123_LABEL_MAX = 63;
const DNS1123_SUBDOMAIN_MAX = 253;
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_MAX = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*$`);
const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** RFC 1123 label: what namespace names (and `metadata.namespace`) must be. */
export function validateDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errs.push(`must be no more than ${DNS1123_LABEL_MAX} characters`);
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    );
  }
  return errs;
}

/** RFC 1123 subdomain: what most object names (all custom resources) must be. */
export function validateDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`);
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    );
  }
  return errs;
}

/** A qualified name (`[prefix/]name`): what label and annotation keys must be. */
export function validateQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const e of validateDNS1123Subdomain(prefix)) errs.push(`prefix part ${e}`);
  } else {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part must be no more than ${QUALIFIED_NAME_MAX} characters`);
  if (name.length > 0 && !QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  }
  return errs;
}

/** A label value: empty, or up to 63 alphanumerics plus `-`, `_`, `.` inside. */
export function validateLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(`must be no more than ${LABEL_VALUE_MAX} characters`);
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  }
  return errs;
}

/** Whether `v` is a valid RFC 1123 label (no problems from {@link validateDNS1123Label}). */
export const isDNS1123Label = (v: string): boolean => validateDNS1123Label(v).length === 0;
/** Whether `v` is a valid RFC 1123 subdomain (no problems from {@link validateDNS1123Subdomain}). */
export const isDNS1123Subdomain = (v: string): boolean => validateDNS1123Subdomain(v).length === 0;
/** Whether `v` is a valid qualified name, e.g. a label key (no problems from {@link validateQualifiedName}). */
export const isQualifiedName = (v: string): boolean => validateQualifiedName(v).length === 0;
/** Whether `v` is a valid label value (no problems from {@link validateLabelValue}). */
export const isValidLabelValue = (v: string): boolean => validateLabelValue(v).length === 0;
