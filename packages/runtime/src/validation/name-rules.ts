/**
 * Kubernetes name and key rules with the apiserver's message texts, as 1.36 words them: DNS-1123 labels and
 * subdomains and DNS-1035 labels (`k8s.io/apimachinery/pkg/util/validation`: lengths "characters"), qualified names
 * (label keys) and label values (`pkg/api/validate/content`, which `util/validation` aliases for them: lengths
 * "bytes"), generateName masking and path segment names (`pkg/api/validation`). Each returns the list of messages
 * (empty when valid), as Go's do; lengths are counted in UTF-8 bytes, as Go's `len`. Used by object metadata
 * validation and by CEL's format library.
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** `util/validation.MaxLenError` (DNS names) and `content.MaxLenError` (label keys and values). */
const maxLenError = (n: number) => `must be no more than ${n} characters`;
const maxBytesError = (n: number) => `must be no more than ${n} bytes`;
const EMPTY_ERROR = 'must be non-empty';

/** Go's `RegexError`: the message, the examples and the regex (`'a',  or 'b', `: Go's spacing, kept). */
function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${re}')`;
}

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  return dns1123Subdomain(value, maxLenError);
}

/** `content.IsDNS1123Subdomain`, the label key's prefix check: the same, its length in "bytes". */
function contentDns1123Subdomain(value: string): string[] {
  return dns1123Subdomain(value, maxBytesError);
}

function dns1123Subdomain(value: string, tooLong: (n: number) => string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 253) errs.push(tooLong(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  }
  return errs;
}

/** `IsQualifiedName` (a label key): an optional DNS subdomain prefix and `/`, and a name of at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...contentDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (utf8Length(name) > 63) errs.push(`name part ${maxBytesError(63)}`);
  if (!LABEL_KEY.test(name)) {
    errs.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxBytesError(63));
  if (!LABEL_VALUE.test(value)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** `NameIsDNSSubdomain(name, prefix)`: a generateName prefix may end in `-` (Go masks it, dropping one more character). */
export function nameIsDnsSubdomain(name: string, prefix: boolean): string[] {
  return isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

/** `NameIsDNSLabel(name, prefix)` (namespace names). */
export function nameIsDnsLabel(name: string, prefix: boolean): string[] {
  return isDns1123Label(prefix ? maskTrailingDash(name) : name);
}

/** Go's `maskTrailingDash`, including its quirk of dropping the character before the dash too. */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** `IsPathSegmentName` / `IsPathSegmentPrefix`: the names of embedded resources' metadata. */
export function pathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix) for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}
