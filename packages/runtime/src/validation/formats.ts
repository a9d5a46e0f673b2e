/**
 * The string formats the apiserver checks (`apiextensions-apiserver/pkg/apiserver/validation/formats.go`: the formats
 * of go-openapi's `strfmt.Default` registry it keeps, plus `k8s-short-name` and `k8s-long-name` from 1.34), each a
 * predicate matching what Go's checker accepts. A format the apiserver does not support is ignored (the server strips
 * it from the schema), as are integer and number formats other than int32/int64 and float/double.
 */
import { isDns1123Label, isDns1123Subdomain } from './name-rules.js';
import { compilePattern } from './regex.js';

type Check = (s: string) => boolean;

const re = (src: string): Check => {
  const c = compilePattern(src);
  return (s) => c.test?.(s) ?? false;
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[mo - 1]!;
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
/** strfmt's `IsDateTime`: an RFC 3339 date-time (`T` or `t`, `Z` or an offset; fractional seconds optional). */
function isDateTime(s: string): boolean {
  const lower = s.toLowerCase();
  const t = lower.indexOf('t');
  return t > 0 && isDate(lower.slice(0, t)) && TIME.test(lower.slice(t + 1));
}

/** Go's `net.ParseIP` for IPv4 (four decimal octets, no leading zeros). */
function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** Go's `net.ParseIP` for IPv6 (with an optional embedded IPv4 tail; no zone). */
function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  let groups = s;
  let tail = 0;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(s.slice(lastColon + 1))) return false;
    groups = s.slice(0, lastColon + 1) + '0:0';
    tail = 0;
  }
  const halves = groups.split('::');
  if (halves.length > 2) return false;
  const parse = (h: string) => (h === '' ? [] : h.split(':'));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  const all = [...left, ...right];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? all.length + tail < 8 : all.length === 8;
}

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^(0|[1-9]\d*)$/.test(bits)) return false;
  if (isIPv4(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

/** Go's `net.ParseMAC`: 6, 8 or 20 octets, `:`- or `-`-separated pairs or `.`-separated quads. */
function isMac(s: string): boolean {
  const octets = (n: number) => n === 6 || n === 8 || n === 20;
  if (s.includes('.')) {
    const parts = s.split('.');
    return octets(parts.length * 2) && parts.every((p) => /^[0-9a-fA-F]{4}$/.test(p));
  }
  const sep = s[2];
  if (sep !== ':' && sep !== '-') return false;
  const parts = s.split(sep);
  return octets(parts.length) && parts.every((p) => /^[0-9a-fA-F]{2}$/.test(p));
}

function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

function isIsbn(s: string, len: 10 | 13): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (len === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
    sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
    return sum % 11 === 0;
  }
  if (!/^(?:[0-9]{13})$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(d[12]);
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]+/g, '');
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) { n *= 2; if (n > 9) n -= 9; }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

const DURATION_UNIT = '(?:ns|us|µs|μs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)';
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/;
const STRFMT_DURATION = new RegExp(`^(\\d+\\s*${DURATION_UNIT}\\s*)+$`);
/** strfmt's `ParseDuration`: Go's `time.ParseDuration`, or counts with units from ns to weeks (`3 days`). */
const isDuration = (s: string) => GO_DURATION.test(s) || STRFMT_DURATION.test(s.trim());

/** Go's `url.ParseRequestURI`: an absolute URI or an absolute path, without spaces or control characters. */
const isUri = (s: string) => /^([a-zA-Z][a-zA-Z0-9+.-]*:|\/)/.test(s) && !/[\s\x00-\x1f\x7f]/.test(s);

/** Go's `mail.ParseAddress` (roughly): `local@domain`, optionally as `Name <local@domain>`. */
const isEmail = (s: string) => /^(?:[^<>@\s]+\s*<)?[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+>?$/.test(s.trim()) && (s.includes('<') === s.trim().endsWith('>'));

const FORMATS: Record<string, Check> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isUri,
  email: isEmail,
  hostname: (s) => s.length <= 255 && re('^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$')(s),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: isCidr,
  mac: isMac,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isIsbn(s, 10) || isIsbn(s, 13),
  isbn10: (s) => isIsbn(s, 10),
  isbn13: (s) => isIsbn(s, 13),
  creditcard: isCreditCard,
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(s),
  byte: isBase64,
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  k8sshortname: (s) => isDns1123Label(s).length === 0,
  k8slongname: (s) => isDns1123Subdomain(s).length === 0,
};

/**
 * The check of a string format the apiserver validates, or undefined when it ignores the format (unknown formats,
 * and any format on a non-string schema: integer and number formats are range checks, not string checks).
 */
export function stringFormatCheck(format: string | undefined, type: string | undefined): Check | undefined {
  if (!format || (type !== undefined && type !== 'string')) return undefined;
  return FORMATS[format.replaceAll('-', '')];
}

/** The format kube-openapi sees after the apiserver strips the ones it does not support (`StripUnsupportedFormats`). */
export function effectiveFormat(s: { type?: string; format?: string; 'x-kubernetes-int-or-string'?: boolean }): string | undefined {
  const f = s.format;
  if (!f) return undefined;
  const type = s['x-kubernetes-int-or-string'] ? undefined : s.type;
  if (type === undefined || type === 'string') return FORMATS[f.replaceAll('-', '')] ? f : undefined;
  if (type === 'integer') return f === 'int32' || f === 'int64' ? f : undefined;
  if (type === 'number') return f === 'float' || f === 'double' ? f : undefined;
  return undefined;
}
