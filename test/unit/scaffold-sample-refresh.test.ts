/**
 * `kubegen generate` in a scaffolded project keeps each kind's sample valid as the types change: a sample kubegen
 * wrote (its sha256 still the one kubegen.project.yaml records) is remade from the types — a new required field
 * appears in it —, the record follows; a sample the user edited is left alone and stays so; the scaffolded tests,
 * which start from the sample, still compile and pass with the new required field.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { spawnSync } from 'node:child_process';
import { runCli } from '../support/cli.js';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';
import { sha256 } from 'kubegen/internal/scaffold/edits.js';

test('generate remakes an unedited sample from the types, and leaves an edited one alone', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-sample-refresh-'));
  const dir = path.join(tmp, 'fleet');
  try {
    assert.equal((await runCli(tmp, 'init', '--domain', 'example.com', 'fleet')).code, 0);
    for (const [kind, controller] of [['Frigate', 'true'], ['Harbor', 'false']]) {
      const made = await runCli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', kind!, `--controller=${controller}`);
      assert.equal(made.code, 0, made.err);
    }
    const frigateSample = path.join(dir, 'config/samples/ships_v1_frigate.yaml');
    const harborSample = path.join(dir, 'config/samples/ships_v1_harbor.yaml');
    // The user edits Harbor's sample; then both kinds gain a required field.
    fs.writeFileSync(harborSample, `${fs.readFileSync(harborSample, 'utf8')}# mine\n`);
    for (const [file, kind] of [['frigate', 'Frigate'], ['harbor', 'Harbor']] as const) {
      const types = path.join(dir, `apis/ships/v1/${file}_types.ts`);
      const text = fs.readFileSync(types, 'utf8');
      fs.writeFileSync(types, text.replace(`export interface ${kind}Spec {\n`, `export interface ${kind}Spec {\n  /** How many decks. */\n  decks: string;\n`));
    }
    const editedBefore = fs.readFileSync(harborSample, 'utf8');

    const gen = await runCli(dir, 'generate');
    assert.equal(gen.code, 0, gen.err);
    assert.match(gen.out, /^refreshed config\/samples\/ships_v1_frigate\.yaml from the types \(kubegen sample\)$/m);
    assert.doesNotMatch(gen.out, /harbor/);
    const frigate = parse(fs.readFileSync(frigateSample, 'utf8')) as { spec?: Record<string, unknown> };
    assert.equal(typeof frigate.spec?.['decks'], 'string', 'the required field is in the sample');
    assert.equal(fs.readFileSync(harborSample, 'utf8'), editedBefore, 'an edited sample is the user\'s');
    const project = parse(fs.readFileSync(path.join(dir, 'kubegen.project.yaml'), 'utf8')) as { resources: { kind: string; scaffolded: { files: { path: string; sha256: string }[] } }[] };
    const record = project.resources.find((r) => r.kind === 'Frigate')!.scaffolded.files.find((f) => f.path === 'config/samples/ships_v1_frigate.yaml')!;
    assert.equal(record.sha256, sha256(fs.readFileSync(frigateSample, 'utf8')), 'the record follows the rewrite');

    // The scaffolded tests start from the sample, so a required field breaks neither their compilation nor their run.
    fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
    linkRuntimePackage(dir);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
    const tsc = spawnSync(TSC, ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(tsc.status, 0, `the project compiles with the required field:\n${tsc.stdout}${tsc.stderr}`);
    const env = { ...process.env };
    delete env['NODE_TEST_CONTEXT'];
    const unit = spawnSync(process.execPath, ['--test', '--test-reporter=spec', 'dist/src/controllers/frigate-controller.test.js'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(unit.status, 0, `the scaffolded unit test passes with the required field:\n${unit.stdout}${unit.stderr}`);

    // Nothing changed: nothing is refreshed.
    const again = await runCli(dir, 'generate');
    assert.equal(again.code, 0, again.err);
    assert.doesNotMatch(again.out, /refreshed/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
