/**
 * `kubegen sample` and CEL rules (issue 29, item 4): the sample is checked with the kind's validator and repaired for
 * the common rule shapes (one-of by `has`, mutual exclusion, literals and `in`, bounds, sizes); what it cannot satisfy
 * is named (kind, field path, rule) on stderr. The corpus' samples against the real apiserver: test/integration/
 * corpus-crud.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { minimalSample, sampleValidator, type UnsatisfiedRule } from 'kubegen/internal/generate/sample/index.js';
import { groupVersions, type KindVersion } from 'kubegen/internal/model/index.js';
import { parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { thingCrd } from '../support/crd-yaml.js';
import { runCodegenBin } from '../support/cli.js';

/** The Thing CRD with `spec` properties and `spec`'s own rules (YAML flow). */
function ruledCrd(props: Record<string, string>, rules: string[], required: string[] = []): string {
  const text = thingCrd(props);
  const req = required.length ? `            required: [${required.join(', ')}]\n` : '';
  const xv = `            x-kubernetes-validations:\n${rules.map((r) => `            - {rule: ${JSON.stringify(r)}}\n`).join('')}`;
  return text.replace(/(\n {10}spec:\n {12}type: object\n)/, `$1${req}${xv}`);
}

const kindOf = (text: string): KindVersion => groupVersions({ resources: parseCrdText(text, 'c.yaml') })[0]!.kinds[0]!;

async function checked(text: string): Promise<{ spec: Record<string, unknown>; unsatisfied: UnsatisfiedRule[]; errors: number }> {
  const kv = kindOf(text);
  const validator = await sampleValidator(kv);
  const unsatisfied: UnsatisfiedRule[] = [];
  const s = minimalSample(kv, { validator, onUnsatisfied: (u) => unsatisfied.push(u) });
  const errors = validator.validate(s, { namespace: 'default' }).errors.length;
  return { spec: s['spec'] as Record<string, unknown>, unsatisfied, errors };
}

describe('minimalSample with a validator satisfies the common CEL rule shapes', () => {
  it('one of two fields (has(a) || has(b)) and exactly one (has(a) != has(b))', async () => {
    const r = await checked(ruledCrd({ a: '{type: string}', b: '{type: string}', c: '{type: integer}', d: '{type: integer}' }, ['has(self.a) || has(self.b)', 'has(self.c) != has(self.d)']));
    assert.deepEqual(r.unsatisfied, []);
    assert.equal(r.errors, 0);
    assert.ok('a' in r.spec || 'b' in r.spec, JSON.stringify(r.spec));
    assert.equal(['c', 'd'].filter((k) => k in r.spec).length, 1, JSON.stringify(r.spec));
  });

  it('mutual exclusion of two fields the schema requires one of', async () => {
    const r = await checked(ruledCrd({ a: '{type: string, default: x}', b: '{type: string, default: "y"}' }, ['!(has(self.a) && has(self.b))']));
    // Both are defaulted, so the server fills both: a sample cannot drop a default. The rule is named, not hidden.
    assert.equal(r.unsatisfied.length, 1);
    assert.equal(r.unsatisfied[0]!.rule, '!(has(self.a) && has(self.b))');
    assert.equal(r.unsatisfied[0]!.path, 'spec');
    const r2 = await checked(ruledCrd({ a: '{type: string}', b: '{type: string}' }, ['!(has(self.a) && has(self.b))', 'has(self.a) || has(self.b)']));
    assert.deepEqual(r2.unsatisfied, []);
    assert.equal(['a', 'b'].filter((k) => k in r2.spec).length, 1);
  });

  it('bounds, sizes and enum-like in over required fields', async () => {
    const r = await checked(ruledCrd(
      { low: '{type: integer}', list: '{type: array, items: {type: string}}', mode: '{type: string}', port: '{type: integer, x-kubernetes-validations: [{rule: "0 < self && self <= 65535"}]}' },
      ['self.low >= 10', 'size(self.list) > 0', "self.mode in ['Fast', 'Slow']"],
      ['low', 'list', 'mode', 'port'],
    ));
    assert.deepEqual(r.unsatisfied, []);
    assert.equal(r.errors, 0);
    assert.ok((r.spec['low'] as number) >= 10);
    assert.equal((r.spec['list'] as unknown[]).length, 1);
    assert.equal(r.spec['mode'], 'Fast');
    assert.ok((r.spec['port'] as number) > 0);
  });

  it('names what it cannot satisfy: kind, field path and rule, on stderr of kubegen sample (exit 0, the sample printed)', async () => {
    const text = ruledCrd({ name: '{type: string}' }, ["self.name.startsWith('zz') && self.name.endsWith('q')"], ['name']);
    const r = await checked(text);
    assert.equal(r.unsatisfied.length, 1);
    assert.match(r.unsatisfied[0]!.message, /failed rule/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-sample-cel-'));
    try {
      fs.writeFileSync(path.join(dir, 'crd.yaml'), text);
      const res = runCodegenBin(undefined, 'sample', '--crds', path.join(dir, 'crd.yaml'));
      assert.equal(res.code, 0, res.stderr);
      assert.equal(parse(res.stdout.replace(/^---\n/, '')).kind, 'Thing');
      assert.match(res.stderr, /^warning: sample Thing\.x\.io\/v1: spec breaks the rule "self\.name\.startsWith\('zz'\) && self\.name\.endsWith\('q'\)": Invalid value: (?:"object": )?failed rule/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
