/**
 * `kubegen sample` (issue 12's sample generator): minimal objects that satisfy the schema's simple constraints.
 * test/integration/corpus-crud.test.ts drives them through the generated clientset on both envtest profiles.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { minimalSample } from 'kubegen/internal/generate/sample/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { thingCrd } from '../support/crd-yaml.js';
import { fixture } from '../support/paths.js';
import { runCodegenBin } from '../support/cli.js';

function sampleOf(props: Record<string, string>): Record<string, any> {
  const text = thingCrd(props).replace(/(\n {10}spec:\n {12}type: object\n)/, `$1            required: [${Object.keys(props).join(', ')}]\n`);
  return minimalSample(groupVersions({ resources: parseCrdText(text, 'c.yaml') })[0]!.kinds[0]!);
}

describe('minimalSample', () => {
  it('fills required fields only, honouring defaults, enums, bounds, lengths, patterns, formats, minItems and minProperties', () => {
    const s = sampleOf({
      withDefault: '{type: string, default: chosen}',
      color: '{type: string, enum: [red, green]}',
      low: '{type: integer, minimum: 3}',
      exclusive: '{type: integer, minimum: 3, exclusiveMinimum: true}',
      stepped: '{type: integer, minimum: 5, multipleOf: 4}',
      negative: '{type: number, maximum: -2}',
      long: '{type: string, minLength: 12}',
      dns: '{type: string, pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$", maxLength: 10}',
      when: '{type: string, format: date-time}',
      tags: '{type: array, minItems: 2, uniqueItems: true, items: {type: string}}',
      labels: '{type: object, minProperties: 1, additionalProperties: {type: string}}',
      nested: '{type: object, required: [a], properties: {a: {type: boolean}, b: {type: string}}}',
      optionalIsLeftOut: '{type: object, properties: {x: {type: string}}}',
    });
    const spec = s['spec'];
    assert.deepEqual(Object.keys(s), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual(s['metadata'], { name: 'thing-sample' });
    assert.equal(spec.withDefault, 'chosen');
    assert.equal(spec.color, 'red');
    assert.equal(spec.low, 3);
    assert.equal(spec.exclusive, 4);
    assert.equal(spec.stepped, 8);
    assert.equal(spec.negative, -2);
    assert.ok(spec.long.length >= 12, spec.long);
    assert.match(spec.dns, /^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    assert.ok(spec.dns.length <= 10);
    assert.equal(spec.when, '2024-01-01T00:00:00Z');
    assert.equal(spec.tags.length, 2);
    assert.notEqual(spec.tags[0], spec.tags[1]);
    assert.equal(Object.keys(spec.labels).length, 1);
    assert.deepEqual(spec.nested, { a: false });
    assert.deepEqual(spec.optionalIsLeftOut, {}, 'required, but with no required fields of its own');
    assert.deepEqual(sampleOf({ dns: '{type: string, pattern: "^[a-z]([-a-z0-9]*[a-z0-9])?$", maxLength: 10}' }).spec.dns, spec.dns, 'deterministic');
  });
});

describe('minimalSample options', () => {
  it('names the object as asked, and fills status (with its required fields) only when asked', async () => {
    const crd = fs.readFileSync(fixture('crds', 'sample-controller', 'crd-status-subresource.yaml'), 'utf8').replace(
      /(\n {12}status:\n {14}type: object\n)/,
      '$1              required: [availableReplicas]\n',
    );
    assert.match(crd, /required: \[availableReplicas\]/, 'the fixture has a status schema to require a field in');
    const kv = groupVersions({ resources: parseCrdText(crd, 'foo.yaml') })[0]!.kinds[0]!;
    const plain = minimalSample(kv, { name: 'a' });
    assert.deepEqual(plain['metadata'], { name: 'a' });
    assert.equal(plain['status'], undefined);
    assert.deepEqual(minimalSample(kv, { withStatus: true })['status'], { availableReplicas: 0 });
  });
});

describe('kubegen sample', () => {
  it('reads TypeScript API types with --apis, and needs one of --crds, --apis and --kind', () => {
    const res = runCodegenBin(undefined, 'sample', '--apis', fixture('apis', 'multi', 'apis'), '--kind', 'Frigate');
    assert.equal(res.code, 0, res.stderr);
    const frigate = parse(res.stdout.replace(/^---\n/, '')) as Record<string, any>;
    assert.equal(frigate['kind'], 'Frigate');
    assert.equal(frigate['spec'].class, 'Light', 'the first value of the string-literal union');
    assert.equal(frigate['spec'].replicas, 1, 'the marker default');
    assert.match(frigate['spec'].callSign, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'the Pattern marker');
    const neither = runCodegenBin(undefined, 'sample');
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /needs --crds <paths...>, --apis <dir>, or --kind <kind> of a built-in kind/);
    const both = runCodegenBin(undefined, 'sample', '--apis', 'a', '--crds', 'b');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /takes one of --crds <paths...> and --apis <dir>, not both/);
  });

  it('prints one YAML document per kind (storage version), or one kind; an unknown kind is an error', () => {
    const run = (...args: string[]) => runCodegenBin(undefined, 'sample', ...args);
    const all = run('--crds', fixture('crds', 'cert-manager'));
    assert.equal(all.code, 0, all.stderr);
    const kinds = all.stdout.split(/^---$/m).slice(1).map((d) => parse(d).kind);
    assert.deepEqual(kinds.sort(), ['Certificate', 'CertificateRequest', 'Challenge', 'ClusterIssuer', 'Issuer', 'Order']);
    const one = run('--crds', fixture('crds', 'cert-manager'), '--kind', 'Order');
    assert.deepEqual(parse(one.stdout.replace(/^---\n/, '')).spec.issuerRef, { name: 'name' });
    const none = run('--crds', fixture('crds', 'cert-manager'), '--kind', 'Nope');
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no kind Nope in .*fixtures\/crds\/cert-manager/);
  });
});
