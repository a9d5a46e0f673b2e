import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules } from '@kubegen/runtime/internal/validation/cel/index.js';

/**
 * Evaluates `expr` as a rule on an empty object: [] when it is true, else the violations' messages. Compile errors
 * fail the assertion with their text.
 */
function run(expr: string): string[] {
  const c = compileRules({ type: 'object', 'x-kubernetes-validations': [{ rule: expr }] });
  assert.deepEqual(c.compileErrors.map((e) => e.message), [], expr);
  return c.evaluate({}, undefined).map((v) => v.message);
}

/** Each `[expr, expected]`: `expr == expected` holds. */
function holds(cases: [string, string][]): void {
  for (const [expr, expected] of cases) assert.deepEqual(run(`${expr} == ${expected}`), [], `${expr} == ${expected}`);
}

/** Each expression fails at runtime with a message containing `error`. */
function fails(cases: [string, string][]): void {
  for (const [expr, error] of cases) {
    const v = run(expr);
    assert.equal(v.length, 1, expr);
    assert.ok(v[0]!.includes(error), `${expr}: ${v[0]}`);
  }
}

test('lists library (k8s lists.go examples)', () => {
  holds([
    ['[1, 2, 3].isSorted()', 'true'],
    ["['a', 'b', 'b', 'c'].isSorted()", 'true'],
    ['[2.0, 1.0].isSorted()', 'false'],
    ['[1].isSorted()', 'true'],
    ['[].isSorted()', 'true'],
    ['[1, 3].sum()', '4'],
    ['[1.0, 3.0].sum()', '4.0'],
    ["[duration('1m'), duration('1s')].sum()", "duration('1m1s')"],
    ['[].sum()', '0'],
    ['[1, 3].min()', '1'],
    ['[1, 3].max()', '3'],
    ['[1].min()', '1'],
    ['[1, 2, 2, 3].indexOf(2)', '1'],
    ["['a', 'b', 'b', 'c'].lastIndexOf('b')", '2'],
    ['[1.0].indexOf(1.1)', '-1'],
    ["[].indexOf('string')", '-1'],
  ]);
  fails([['[].min() == 1', 'min called on empty list']]);
});

test('ext lists (cel-go ext/lists.go examples) and sets', () => {
  holds([
    ['[1, 2, 2, 3, 3, 3].distinct()', '[1, 2, 3]'],
    ['["b", "b", "c", "a", "c"].distinct()', '["b", "c", "a"]'],
    ['lists.range(5)', '[0, 1, 2, 3, 4]'],
    ['[5, 3, 1, 2].reverse()', '[2, 1, 3, 5]'],
    ['[1,2,3,4].slice(1, 3)', '[2, 3]'],
    ['[1,2,3,4].slice(2, 4)', '[3 ,4]'],
    // cel-go's examples mix ints and lists, which the apiserver's homogeneous-literal check refuses.
    ['[[1],[2,3],[4]].flatten()', '[1, 2, 3, 4]'],
    ['[[1],[],[],[3,4]].flatten()', '[1, 3, 4]'],
    ['[[[1]],[[2,3]]].flatten()', '[[1], [2, 3]]'],
    ['[[[1]],[[2,3]]].flatten(2)', '[1, 2, 3]'],
    ['[3, 2, 1].sort()', '[1, 2, 3]'],
    ['["b", "c", "a"].sort()', '["a", "b", "c"]'],
    ['sets.contains([], [])', 'true'],
    ['sets.contains([], [1])', 'false'],
    ['sets.contains([1, 2, 3, 4], [2, 3])', 'true'],
    ['sets.equivalent([], [])', 'true'],
    ['sets.equivalent([1], [1, 1])', 'true'],
    ['sets.intersects([1], [])', 'false'],
    ['sets.intersects([1], [1, 2])', 'true'],
  ]);
  fails([['[1,2].slice(1, 3) == [2]', 'cannot slice(1, 3), list is length 2']]);
});

test('regex library: find and findAll with RE2 semantics (k8s regex.go examples)', () => {
  holds([
    ['"abc 123".find(\'[0-9]+\')', "'123'"],
    ['"abc 123".find(\'xyz\')', "''"],
    ['"123 abc 456".findAll(\'[0-9]+\')', "['123', '456']"],
    ['"123 abc 456".findAll(\'[0-9]+\', 1)', "['123']"],
    ['"123 abc 456".findAll(\'xyz\')', '[]'],
    ['"ABC".find(\'(?i)b\')', "'B'"],
    ['"abc".matches(\'^(?i)A\')', 'true'],
  ]);
  // A constant pattern that is not RE2 is refused when the rule compiles (k8s builds find/findAll patterns up front);
  // one computed at runtime fails the evaluation.
  const c = compileRules({ type: 'object', 'x-kubernetes-validations': [{ rule: '"abc".find(\'(?<=a)b\') == ""' }] });
  assert.match(c.compileErrors[0]?.message ?? '', /^program instantiation failed: error parsing regexp: /);
  fails([['"abc".find("(?<=" + "a)b") == ""', 'Illegal regex']]);
});

test('strings extension at the version the 1.36 apiserver enables', () => {
  holds([
    ["'hello'.charAt(1)", "'e'"],
    ["'hello mellow'.indexOf('ello')", '1'],
    ["'hello mellow'.lastIndexOf('ello')", '7'],
    ["'TacoCat'.lowerAscii()", "'tacocat'"],
    ["'TacoCat'.upperAscii()", "'TACOCAT'"],
    ["'hello hello'.replace('he', 'we')", "'wello wello'"],
    ["'hello hello hello'.split(' ')", "['hello', 'hello', 'hello']"],
    ["'tacocat'.substring(4)", "'cat'"],
    ["'tacocat'.substring(0, 4)", "'taco'"],
    ["'  \\ttrim\\n    '.trim()", "'trim'"],
    ["['hello', 'mellow'].join()", "'hellomellow'"],
    ["['hello', 'mellow'].join(' ')", "'hello mellow'"],
    ["'%s is %d'.format(['x', 3])", "'x is 3'"],
    ['strings.quote("first\\nsecond")', '"\\"first\\\\nsecond\\""'],
  ]);
});

test('URL library (k8s urls.go examples)', () => {
  holds([
    ["isURL('https://user:pass@example.com:80/path?query=val#fragment')", 'true'],
    ["isURL('/absolute-path')", 'true'],
    ["isURL('https://a:b:c/')", 'false'],
    ["isURL('../relative-path')", 'false'],
    ["url('/path').getScheme()", "''"],
    ["url('https://example.com/').getScheme()", "'https'"],
    ["url('https://example.com:80/').getHost()", "'example.com:80'"],
    ["url('https://example.com/').getHost()", "'example.com'"],
    ["url('https://[::1]:80/').getHost()", "'[::1]:80'"],
    ["url('https://[::1]/').getHost()", "'[::1]'"],
    ["url('/path').getHost()", "''"],
    ["url('https://example.com:80/').getHostname()", "'example.com'"],
    ["url('https://127.0.0.1:80/').getHostname()", "'127.0.0.1'"],
    ["url('https://[::1]:80/').getHostname()", "'::1'"],
    ["url('/path').getHostname()", "''"],
    ["url('https://example.com:80/').getPort()", "'80'"],
    ["url('https://example.com/').getPort()", "''"],
    ["url('/path').getPort()", "''"],
    ["url('https://example.com/path').getEscapedPath()", "'/path'"],
    ["url('https://example.com/path with spaces/').getEscapedPath()", "'/path%20with%20spaces/'"],
    ["url('https://example.com').getEscapedPath()", "''"],
    ["url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", "{'k1': ['a'], 'k2': ['b', 'c']}"],
    ["url('https://example.com/path?key with spaces=value with spaces').getQuery()", "{'key with spaces': ['value with spaces']}"],
    ["url('https://example.com/path?').getQuery()", '{}'],
    ["url('https://example.com/path').getQuery()", '{}'],
  ]);
  fails([["url('../relative-path') == url('/x')", 'evaluating rule']]);
});

test('IP and CIDR libraries (k8s ip.go, cidr.go examples)', () => {
  holds([
    ["isIP('127.0.0.1')", 'true'],
    ["isIP('::1')", 'true'],
    ["isIP('127.0.0.256')", 'false'],
    ["isIP(':::1')", 'false'],
    ["isIP('::ffff:1.2.3.4')", 'false'],
    ["isIP('fe80::1%eth0')", 'false'],
    ["isIP('01.2.3.4')", 'false'],
    ["ip.isCanonical('127.0.0.1')", 'true'],
    ["ip.isCanonical('2001:db8::abcd')", 'true'],
    ["ip.isCanonical('2001:DB8::ABCD')", 'false'],
    ["ip.isCanonical('2001:db8::0:0:0:abcd')", 'false'],
    ["ip('127.0.0.1').family()", '4'],
    ["ip('::1').family()", '6'],
    ["ip('0.0.0.0').isUnspecified()", 'true'],
    ["ip('127.0.0.1').isUnspecified()", 'false'],
    ["ip('::').isUnspecified()", 'true'],
    ["ip('::1').isUnspecified()", 'false'],
    ["ip('127.0.0.1').isLoopback()", 'true'],
    ["ip('192.168.0.1').isLoopback()", 'false'],
    ["ip('::1').isLoopback()", 'true'],
    ["ip('2001:db8::abcd').isLoopback()", 'false'],
    ["ip('224.0.0.1').isLinkLocalMulticast()", 'true'],
    ["ip('224.0.1.1').isLinkLocalMulticast()", 'false'],
    ["ip('ff02::1').isLinkLocalMulticast()", 'true'],
    ["ip('fd00::1').isLinkLocalMulticast()", 'false'],
    ["ip('169.254.169.254').isLinkLocalUnicast()", 'true'],
    ["ip('192.168.0.1').isLinkLocalUnicast()", 'false'],
    ["ip('fe80::1').isLinkLocalUnicast()", 'true'],
    ["ip('fd80::1').isLinkLocalUnicast()", 'false'],
    ["ip('192.168.0.1').isGlobalUnicast()", 'true'],
    ["ip('255.255.255.255').isGlobalUnicast()", 'false'],
    ["ip('2001:db8::abcd').isGlobalUnicast()", 'true'],
    ["ip('ff00::1').isGlobalUnicast()", 'false'],
    ["ip('2001:db8::0:0:0:abcd') == ip('2001:db8::abcd')", 'true'],
    ["string(ip('2001:DB8::ABCD'))", "'2001:db8::abcd'"],
    ["type(ip('::1')) == net.IP", 'true'],
    ["isCIDR('192.168.0.0/16')", 'true'],
    ["isCIDR('::1/128')", 'true'],
    ["isCIDR('192.168.0.0/33')", 'false'],
    ["isCIDR('::1/129')", 'false'],
    ["cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", 'true'],
    ["cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))", 'false'],
    ["cidr('192.168.0.0/24').containsIP('192.168.0.1')", 'true'],
    ["cidr('192.168.0.0/24').containsIP('192.168.1.1')", 'false'],
    ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", 'true'],
    ["cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))", 'false'],
    ["cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", 'true'],
    ["cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')", 'false'],
    ["cidr('192.168.0.1/24').ip()", "ip('192.168.0.1')"],
    ["cidr('192.168.0.1/24').ip().family()", '4'],
    ["cidr('::1/128').ip()", "ip('::1')"],
    ["cidr('::1/128').ip().family()", '6'],
    ["cidr('192.168.0.0/24').masked()", "cidr('192.168.0.0/24')"],
    ["cidr('192.168.0.1/24').masked()", "cidr('192.168.0.0/24')"],
    ["cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", 'true'],
    ["cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", 'false'],
    ["cidr('192.168.0.0/16').prefixLength()", '16'],
    ["cidr('::1/128').prefixLength()", '128'],
  ]);
  fails([
    ["ip('127.0.0.256').family() == 4", 'parse error during conversion from string'],
    ["cidr('192.168.0.0/33').prefixLength() == 1", 'network address parse error'],
  ]);
});

test('quantity library (k8s quantity.go examples)', () => {
  holds([
    ["isQuantity('1.3G')", 'true'],
    ["isQuantity('1.3Gi')", 'true'],
    ["isQuantity('1,3G')", 'false'],
    ["isQuantity('10000k')", 'true'],
    ["isQuantity('200K')", 'false'],
    ["isQuantity('Three')", 'false'],
    ["isQuantity('Mi')", 'false'],
    ['quantity("50000000G").isInteger()', 'true'],
    ['quantity("50k").isInteger()', 'true'],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', 'false'],
    ['quantity("50k").asInteger()', '50000'],
    ['quantity("50k").sub(20000).asApproximateFloat()', '30000.0'],
    ['quantity("50k").add(quantity("20k"))', 'quantity("70k")'],
    ['quantity("50k").add(20)', 'quantity("50020")'],
    ['quantity("50k").sub(quantity("20k"))', 'quantity("30k")'],
    ['quantity("50k").sub(20000)', 'quantity("30k")'],
    ['quantity("50k").sign()', '1'],
    ['quantity("-50k").sign()', '-1'],
    ['quantity("0").sign()', '0'],
    ['quantity("1Gi").isGreaterThan(quantity("1G"))', 'true'],
    ['quantity("1Mi").isLessThan(quantity("1G"))', 'true'],
    ['quantity("1Gi").compareTo(quantity("1Gi"))', '0'],
    ['quantity("1k") == quantity("1000")', 'true'],
    ['quantity("500m").asApproximateFloat()', '0.5'],
  ]);
  fails([['quantity("9999999999999999999999999999999999999G").asInteger() == 1', 'cannot convert value to integer']]);
});

test('format library (k8s format.go examples)', () => {
  holds([
    ['format.dns1123Label().validate("my-label-name").hasValue()', 'false'],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io").hasValue()', 'false'],
    ['format.dns1035Label().validate("my-label-name").hasValue()', 'false'],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1").hasValue()', 'false'],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-").hasValue()', 'false'],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-").hasValue()', 'false'],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-").hasValue()', 'false'],
    ['format.uri().validate("http://example.com").hasValue()', 'false'],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', 'false'],
    ['format.byte().validate("aGVsbG8=").hasValue()', 'false'],
    ['format.date().validate("2021-01-01").hasValue()', 'false'],
    ['format.datetime().validate("2021-01-01T00:00:00Z").hasValue()', 'false'],
    ['format.dns1123Label().validate("a.b").value()', "['must not contain dots']"],
    ['format.labelValue().validate("-x").value().size()', '1'],
    ['format.named("dns1123Label").hasValue()', 'true'],
    ['format.named("nope").hasValue()', 'false'],
    ['format.named("uuid").value().validate("nope").value()', "['does not match the UUID format']"],
    [
      'format.dns1123Label().validate("Upper").value()',
      "[\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"]",
    ],
    // From k8s.io/apiserver/pkg/cel/library/format_test.go (1.36).
    [
      'format.qualifiedName().validate("contains a space").value()',
      "[\"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\"]",
    ],
  ]);
});

test('semver library (k8s semverlib.go examples)', () => {
  holds([
    ["isSemver('1.0.0')", 'true'],
    ["isSemver('hello')", 'false'],
    ["isSemver('v1.0')", 'false'],
    ["isSemver('v1.0', true)", 'true'],
    ["isSemver('1.0', true)", 'true'],
    ["isSemver('01.01.01', true)", 'true'],
    ["semver('v1.0.0', true)", "semver('1.0.0')"],
    ["semver('1.0', true)", "semver('1.0.0')"],
    ["semver('01.01.01', true)", "semver('1.1.1')"],
    ['semver("1.2.3").major()', '1'],
    ['semver("1.2.3").minor()', '2'],
    ['semver("1.2.3").patch()', '3'],
    ['semver("1.2.3").compareTo(semver("1.2.3"))', '0'],
    ['semver("1.2.3").compareTo(semver("2.0.0"))', '-1'],
    ['semver("1.2.3").compareTo(semver("0.1.2"))', '1'],
    ['semver("1.2.3").isGreaterThan(semver("1.2.3-alpha"))', 'true'],
    ['semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))', 'true'],
    ['semver("1.0.0+a") == semver("1.0.0+b")', 'true'],
  ]);
  fails([["semver('200K').major() == 1", 'evaluating rule']]);
});
