/**
 * Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go): `format.dns1123Label()` and the other
 * named formats, `format.named(name)` (an optional), and `<Format>.validate(s)`, which is `optional.none()` when `s`
 * is valid and otherwise an optional list of apimachinery's error messages.
 */
import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import { optionalOf, listOf, STRING, opaque } from '../decl.js';
import { noneValue, optionalValue } from '../optional.js';
import { parseDate, parseDateTime } from '../time.js';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, maskTrailingDash } from '../../name-rules.js';
import { opaqueType } from './opaque.js';
import { typed } from './typed.js';
import { mapType } from '@bufbuild/cel';

const FORMAT = opaqueType('kubernetes.NamedFormat');

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Each named format's validation (messages as the server words them). */
export const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: (s) => isDns1123Label(s),
  dns1123Subdomain: (s) => isDns1123Subdomain(s),
  dns1035Label: (s) => isDns1035Label(s),
  qualifiedName: (s) => isQualifiedName(s),
  dns1123LabelPrefix: (s) => isDns1123Label(maskTrailingDash(s)),
  dns1123SubdomainPrefix: (s) => isDns1123Subdomain(maskTrailingDash(s)),
  dns1035LabelPrefix: (s) => isDns1035Label(maskTrailingDash(s)),
  labelValue: (s) => isValidLabelValue(s),
  uri: (s) => (isRequestURI(s) ? [] : [`parse "${s}": invalid URI for request`]),
  uuid: (s) => (UUID.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? [] : ['invalid base64']),
  date: (s) => (parseDate(s) ? [] : ['invalid date']),
  datetime: (s) => (parseDateTime(s) ? [] : ['invalid datetime']),
};

/** Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment handling. */
function isRequestURI(s: string): boolean {
  if (s === '') return false;
  if (s.startsWith('/')) return true;
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s);
}

const OPT = mapType(CelScalar.DYN, CelScalar.DYN);

export const FORMAT_FUNCS: CelFunc[] = [
  ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], FORMAT.type, () => FORMAT.wrap(name))),
  typed(
    celFunc('format.named', [CelScalar.STRING], OPT, (name) => (name in FORMATS ? optionalValue(FORMAT.wrap(name)) : noneValue()) as never),
    () => optionalOf(opaque('kubernetes.NamedFormat')),
  ),
  typed(
    celMethod('validate', FORMAT.type, [CelScalar.STRING], OPT, function (s) {
      const errs = FORMATS[FORMAT.text(this)]!(s);
      return (errs.length === 0 ? noneValue() : optionalValue(errs)) as never;
    }),
    () => optionalOf(listOf(STRING)),
  ),
];
