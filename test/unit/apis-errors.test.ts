/**
 * Bad TypeScript input through the `codegen` binary: each problem is one `error: file:line:col: ...` line (all of a run's
 * problems at once, sorted),
 * exit code 1, no stack trace, and nothing written (neither the code folder nor config/crd/bases nor config/rbac).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fixture, REPO_ROOT } from '../support/paths.js';
import { CODEGEN_BIN } from '../support/paths.js';

const BIN = CODEGEN_BIN;

const CASES: [string, RegExp][] = [
  ['unknown-marker', /^error: apis\/things\/v1\/types\.ts:9:9: unknown marker \+kubebuilder:validation:Maximun\n$/],
  ['malformed-marker', /^error: apis\/things\/v1\/types\.ts:9:9: malformed marker \+kubebuilder:validation:Maximum=three: expected a number, found "three"\n$/],
  ['unsupported-construct', /^error: apis\/things\/v1\/types\.ts:10:16: function type \(size: number\) => void cannot be a schema\n$/],
  ['missing-group', /^error: apis\/things\/v1\/doc\.ts:1:1: no \+groupName marker for things\/v1: .*doc\.ts\)\n$/],
  ['two-storage', /^error: apis\/things\/v2\/types\.ts:5:4: kind Thing\.things\.example\.com has 2 storage versions \(v1, v2\); mark exactly one \+kubebuilder:storageversion\n$/],
  // Every error of the run, one line each, sorted by file and position (three kinds in two folders).
  [
    'many-errors',
    new RegExp(
      [
        /^error: apis\/things\/v1\/gadget_types\.ts:9:9: unknown marker \+kubebuilder:validation:Maximun\n/.source,
        /error: apis\/things\/v1\/thing_types\.ts:9:17: Date cannot be a schema: .*use Time \(or MicroTime\) from '@kubegen\/runtime'\n/.source,
        /error: apis\/widgets\/v1\/widget_types\.ts:1:1: no \+groupName marker for widgets\/v1: .*\n$/.source,
      ].join(''),
    ),
  ],
];

describe('codegen --apis with bad input', () => {
  for (const [name, message] of CASES) {
    it(`${name}: one-line message with file:line:col, exit 1, nothing written`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-apis-bad-'));
      try {
        fs.cpSync(fixture('apis', 'bad', name, 'apis'), path.join(dir, 'apis'), { recursive: true });
        const r = spawnSync(process.execPath, [BIN, 'generate', '--apis', 'apis', '--out', 'generated'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stderr, message);
        assert.equal(r.stdout, '');
        assert.deepEqual(fs.readdirSync(dir), ['apis'], 'nothing but the input is left in the folder');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
