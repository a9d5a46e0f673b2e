/**
 * Command-line manners: kubebuilder's CRD folder layout (kustomization.yaml beside the CRDs) is read as it is;
 * install bundles (CRDs among Deployments) are refused with file:line, or skipped and listed with --skip-non-crds;
 * a mistyped command or option gets the closest one suggested; a closed stdout ends quietly with exit 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from 'kubegen/internal/cli/main.js';
import type { MainIO } from 'kubegen/internal/cli/main.js';
import { CODEGEN_BIN, SAMPLE_CRD } from '../support/paths.js';

async function cli(cwd: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: MainIO = { cwd, env: {}, stdout: (s) => void (out += s), stderr: { write: (s: string) => (err += s) }, now: () => 0 };
  return { code: await main(argv, io), out, err };
}

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-manners-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('CRD folders and install bundles', () => {
  it("reads kubebuilder's config/crd layout, naming the skipped kustomization.yaml only with --verbose", async () => {
    const dir = path.join(tmp, 'layout');
    fs.mkdirSync(path.join(dir, 'config/crd/bases'), { recursive: true });
    fs.copyFileSync(SAMPLE_CRD, path.join(dir, 'config/crd/bases/samplecontroller.k8s.io_foos.yaml'));
    fs.writeFileSync(path.join(dir, 'config/crd/kustomization.yaml'), 'resources:\n- bases/samplecontroller.k8s.io_foos.yaml\n');
    const quiet = await cli(dir, 'generate', '--crds', 'config/crd', '--out', 'gen');
    assert.equal(quiet.code, 0, quiet.err);
    assert.doesNotMatch(quiet.err, /kustomization/);
    const verbose = await cli(dir, 'generate', '--crds', 'config/crd', '--out', 'gen2', '--verbose');
    assert.equal(verbose.code, 0, verbose.err);
    assert.match(verbose.err, /^skipped (.*\/)?config\/crd\/kustomization\.yaml: a kustomization file$/m);
  });

  it('refuses an install bundle naming file and line, or skips and lists what is not a CRD with --skip-non-crds', async () => {
    const dir = path.join(tmp, 'bundle');
    fs.mkdirSync(dir);
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec: {}\n';
    fs.writeFileSync(path.join(dir, 'install.yaml'), `${deployment}---\n${fs.readFileSync(SAMPLE_CRD, 'utf8')}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n`);
    const refused = await cli(dir, 'generate', '--crds', 'install.yaml', '--out', 'gen');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /install\.yaml:2:\d+.*expected kind CustomResourceDefinition, found "Deployment"/);
    assert.ok(!fs.existsSync(path.join(dir, 'gen')), 'nothing written');
    const skipped = await cli(dir, 'generate', '--crds', 'install.yaml', '--out', 'gen', '--skip-non-crds');
    assert.equal(skipped.code, 0, skipped.err);
    assert.match(skipped.err, /^skipped (.*\/)?install\.yaml:1: Deployment web is not a CustomResourceDefinition$/m);
    assert.match(skipped.err, /^skipped (.*\/)?install\.yaml:\d+: Service web is not a CustomResourceDefinition$/m);
    assert.ok(fs.existsSync(path.join(dir, 'gen/samplecontroller.k8s.io/v1alpha1/types.ts')));
    const withApis = await cli(dir, 'generate', '--apis', 'apis', '--out', 'gen', '--skip-non-crds');
    assert.equal(withApis.code, 2);
    assert.match(withApis.err, /--skip-non-crds goes with --crds/);
  });
});

describe('mistakes on the command line', () => {
  it('suggests the closest command and option', async () => {
    const cmd = await cli(tmp, 'generat', '--crds', 'x');
    assert.equal(cmd.code, 2);
    assert.match(cmd.err, /^error: unknown command 'generat' \(did you mean 'generate'\?\)$/m);
    assert.match((await cli(tmp, 'verfy')).err, /did you mean 'verify'\?/);
    const far = await cli(tmp, 'xyzzy');
    assert.equal(far.code, 2);
    assert.match(far.err, /^error: unknown command 'xyzzy'$/m);
    const opt = await cli(tmp, 'generate', '--cdrs', 'x', '--out', 'y');
    assert.equal(opt.code, 2);
    assert.match(opt.err, /unknown option '--cdrs'[\s\S]*Did you mean --crds\?/);
  });

  it('ends quietly with exit 0 when stdout is closed (kubegen … | head -1)', async () => {
    const child = spawn(process.execPath, [CODEGEN_BIN, 'init', '--domain', 'example.com', path.join(tmp, 'piped')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy()); // the reader goes away after the first chunk
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Error/);
  });
});
