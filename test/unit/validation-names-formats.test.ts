import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDns1123Label, isQualifiedName, isValidLabelValue, nameIsDnsSubdomain } from '@kubegen/runtime/internal/validation/name-rules.js';
import { effectiveFormat, stringFormatCheck } from '@kubegen/runtime/internal/validation/formats.js';
import { goFloat, goNumber, goQuote } from '@kubegen/runtime/internal/validation/field-error.js';

describe('validation: name rules with the apiserver texts', () => {
  it('DNS-1123 labels: dots and length have their own messages', () => {
    assert.deepEqual(isDns1123Label('a.b'), ['must not contain dots']);
    // The texts the 1.36 apiserver gives (checked on it): DNS names count "characters", label keys and values "bytes",
    // and Go's RegexError writes its examples as `'a',  or 'b', `.
    assert.deepEqual(isDns1123Label('x'.repeat(64)), ['must be no more than 63 characters']);
    assert.match(isDns1123Label('A')[0]!, /^a lowercase RFC 1123 label must consist of .* \(e\.g\. 'my-name',  or '123-abc', regex used for validation is '\[a-z0-9\]\(\[-a-z0-9\]\*\[a-z0-9\]\)\?'\)$/);
  });
  it('generateName may end in a dash (masked as Go masks it)', () => {
    assert.deepEqual(nameIsDnsSubdomain('web-', true), []);
    assert.equal(nameIsDnsSubdomain('web-', false).length, 1);
  });
  it('qualified names: prefix and name parts', () => {
    assert.deepEqual(isQualifiedName('example.com/app'), []);
    assert.deepEqual(isQualifiedName('/app'), ['prefix part must be non-empty']);
    assert.match(isQualifiedName('a/b/c')[0]!, /^a valid label key must consist of/);
    assert.deepEqual(isValidLabelValue(''), []);
    assert.match(isValidLabelValue('-x')[0]!, /^a valid label must be an empty string or consist of .* \(e\.g\. 'MyValue',  or 'my_value',  or '12345', regex used/);
    assert.deepEqual(isValidLabelValue('v'.repeat(64)), ['must be no more than 63 bytes']);
    assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 bytes']);
  });
});

describe('validation: formats the apiserver checks', () => {
  const ok = (format: string, value: string) => stringFormatCheck(format, 'string')!(value);
  it('checks the supported string formats as Go parses them', () => {
    assert.equal(ok('ipv4', '10.0.0.1'), true);
    assert.equal(ok('ipv4', '010.0.0.1'), false);
    assert.equal(ok('ipv6', '::1'), true);
    assert.equal(ok('ipv6', '1::2::3'), false);
    assert.equal(ok('cidr', '10.0.0.0/8'), true);
    assert.equal(ok('cidr', '10.0.0.0/33'), false);
    assert.equal(ok('mac', '00:1a:2b:3c:4d:5e'), true);
    assert.equal(ok('uuid', '123e4567-e89b-12d3-a456-426614174000'), true);
    assert.equal(ok('date', '2023-02-29'), false);
    assert.equal(ok('byte', 'aGVsbG8='), true);
    assert.equal(ok('byte', 'aGVsbG8'), false);
    assert.equal(ok('duration', '1h30m'), true);
    assert.equal(ok('duration', '3 days'), true);
    assert.equal(ok('hostname', 'example.com'), true);
    assert.equal(ok('k8s-long-name', 'a.b-c'), true);
  });
  it('ignores what the apiserver strips: unknown formats, string formats on other types', () => {
    assert.equal(stringFormatCheck('not-a-format', 'string'), undefined);
    assert.equal(stringFormatCheck('date-time', 'integer'), undefined);
    assert.equal(effectiveFormat({ type: 'integer', format: 'int32' }), 'int32');
    assert.equal(effectiveFormat({ type: 'integer', format: 'uint8' }), undefined);
    assert.equal(effectiveFormat({ type: 'number', format: 'double' }), 'double');
  });
});

describe('validation: Go value printing', () => {
  it('prints numbers as int64 or %v float64, strings as %q', () => {
    assert.equal(goNumber(3), '3');
    assert.equal(goNumber(1.5), '1.5');
    assert.equal(goFloat(1000000), '1e+06');
    assert.equal(goFloat(123456), '123456');
    assert.equal(goFloat(0.00001), '1e-05');
    assert.equal(goQuote('a"b\n\u0001'), '"a\\"b\\n\\x01"');
  });
});
