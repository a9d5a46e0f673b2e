import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main, type MainIO } from 'kubegen/internal/cli/main.js';
import { fieldPathToJsonPath, validateManifests } from 'kubegen/internal/cli/validate-command.js';
import type { CompileRules } from '@kubegen/runtime/validation';
import type { JSONSchemaProps } from 'kubegen/internal/model/index.js';
import { kindCrd } from '../support/crd-yaml.js';

const WIDGET_SPEC: JSONSchemaProps = {
  type: 'object',
  required: ['size'],
  properties: {
    size: { type: 'integer', minimum: 1 },
    color: { type: 'string', enum: ['red', 'blue'] },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const CRD = kindCrd('example.com', 'Widget', { spec: WIDGET_SPEC });

const GOOD = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: good
spec:
  size: 3
`;

const BAD = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: bad
spec:
  size: 0
  color: green
  labels:
    a.b: 1
  extra: true
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: missing
spec: {}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-mine
`;

function capture(cwd: string) {
  let out = '';
  let err = '';
  const io: MainIO = { cwd, env: {}, stdout: (s) => void (out += s), stderr: { write: (s: string) => void (err += s), isTTY: false, columns: 80 }, now: () => 0 };
  return { io, out: () => out, err: () => err };
}

describe('kubegen validate', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-validate-'));
    fs.mkdirSync(path.join(dir, 'crds'));
    fs.mkdirSync(path.join(dir, 'manifests'));
    fs.writeFileSync(path.join(dir, 'crds', 'widget.yaml'), CRD);
    fs.writeFileSync(path.join(dir, 'manifests', 'good.yaml'), GOOD);
    fs.writeFileSync(path.join(dir, 'manifests', 'bad.yaml'), BAD);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints every error as file:line:col: field.path: message and exits 1', async () => {
    const c = capture(dir);
    assert.equal(await main(['validate', '--crds', 'crds', 'manifests'], c.io), 1, c.err());
    assert.deepEqual(c.out().trim().split('\n').sort(), [
      'manifests/bad.yaml:16:7: spec.size: Required value',
      'manifests/bad.yaml:6:9: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
      'manifests/bad.yaml:7:10: spec.color: Unsupported value: "green": supported values: "red", "blue"',
      'manifests/bad.yaml:9:10: spec.labels.a.b: Invalid value: "integer": spec.labels.a.b in body must be of type string: "integer"',
    ].sort());
    assert.match(c.err(), /warning: manifests\/bad\.yaml:10:10: spec\.extra: unknown field "spec\.extra"/);
    assert.match(c.err(), /3 objects checked, 4 errors, 1 warnings, 1 skipped/);
  });

  it('--strict makes unknown fields errors, and then reports only them: strict decoding refuses before validation', async () => {
    const c = capture(dir);
    assert.equal(await main(['validate', '--strict', '--crds', 'crds', 'manifests/bad.yaml'], c.io), 1);
    assert.deepEqual(c.out().trim().split('\n'), [
      'manifests/bad.yaml:10:10: spec.extra: unknown field "spec.extra"',
      'manifests/bad.yaml:16:7: spec.size: Required value',
    ], 'the first object (an unknown field) has no schema errors reported; the second (none) has its own');
  });

  it('exits 0 for valid manifests', async () => {
    const c = capture(dir);
    assert.equal(await main(['validate', '--crds', 'crds/widget.yaml', 'manifests/good.yaml'], c.io), 0, c.out() + c.err());
    assert.equal(c.out(), '');
  });

  it('--output json reports objects, errors with identity and position, warnings and skipped kinds', async () => {
    const c = capture(dir);
    assert.equal(await main(['validate', '-o', 'json', '--crds', 'crds', 'manifests'], c.io), 1);
    const report = JSON.parse(c.out());
    assert.equal(report.objects, 3);
    assert.equal(report.errors.length, 4);
    const required = report.errors.find((e: { reason: string }) => e.reason === 'FieldValueRequired');
    assert.deepEqual(required, { file: 'manifests/bad.yaml', line: 16, column: 7, apiVersion: 'example.com/v1', kind: 'Widget', name: 'missing', path: 'spec.size', reason: 'FieldValueRequired', message: 'Required value' });
    assert.deepEqual(report.skipped.map((s: { kind: string }) => s.kind), ['ConfigMap']);
    assert.equal(report.warnings[0].reason, 'UnknownField');
  });

  it('a missing path and a bad output format are errors, with exit codes 1 and 2', async () => {
    const c = capture(dir);
    assert.equal(await main(['validate', '--crds', 'crds', 'nope.yaml'], c.io), 1);
    assert.match(c.out(), /nope\.yaml: no such file or folder/);
    assert.equal(await main(['validate', '-o', 'xml', '--crds', 'crds', 'manifests'], capture(dir).io), 2);
  });

  it('evaluates CEL rules through the given CEL layer', async () => {
    const crdDir = path.join(dir, 'rules');
    fs.mkdirSync(crdDir, { recursive: true });
    fs.writeFileSync(path.join(crdDir, 'crd.yaml'), kindCrd('example.com', 'Widget', { spec: { ...WIDGET_SPEC, 'x-kubernetes-validations': [{ rule: 'self.size < 3', message: 'too big' }] } as JSONSchemaProps }));
    const stub: CompileRules = () => ({ compileErrors: [], evaluate: (self) => ((self as { size: number }).size < 3 ? [] : [{ fieldPath: '', reason: 'FieldValueInvalid', message: 'too big', rule: 'self.size < 3' }]) });
    const report = await validateManifests([crdDir], [path.join(dir, 'manifests', 'good.yaml')], dir, { compileRules: stub });
    assert.deepEqual(report.errors.map((e) => `${e.line}:${e.column} ${e.path} ${e.message}`), ['6:3 spec Invalid value: too big']);
  });

  it('checks the items of a v1 List, located inside it', async () => {
    fs.writeFileSync(path.join(dir, 'list.yaml'), `apiVersion: v1
kind: List
items:
  - apiVersion: example.com/v1
    kind: Widget
    metadata: { name: ok }
    spec: { size: 1 }
  - apiVersion: example.com/v1
    kind: Widget
    metadata: { name: bad }
    spec:
      size: -1
`);
    const report = await validateManifests([path.join(dir, 'crds')], [path.join(dir, 'list.yaml')], dir);
    assert.equal(report.objects, 2);
    assert.deepEqual(report.errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.name} ${e.path}`), ['list.yaml:12:13 bad spec.size']);
  });

  it('resolves field paths with dotted map keys against the document', () => {
    assert.deepEqual(fieldPathToJsonPath({ spec: { m: { 'a.b': { c: 1 } }, l: [{ x: 1 }] } }, 'spec.m.a.b.c'), ['spec', 'm', 'a.b', 'c']);
    assert.deepEqual(fieldPathToJsonPath({ spec: { l: [{ x: 1 }] } }, 'spec.l[0].x'), ['spec', 'l', 0, 'x']);
    assert.deepEqual(fieldPathToJsonPath({ metadata: { labels: { 'a.b': 'x' } } }, 'metadata.labels[a.b]'), ['metadata', 'labels', 'a.b']);
  });
});
