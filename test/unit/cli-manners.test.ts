/**
 * Command-line manners: kubebuilder's CRD folder layout (kustomization.yaml beside the CRDs) is read as it is;
 * install bundles (CRDs among Deployments) are refused with file:line, or skipped and listed with --skip-non-crds;
 * a mistyped command, option or value gets the closest one suggested (every mistyped option at once, exit 2); a
 * closed stdout ends quietly with exit 0.
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

  it('kubegen sample reads an install bundle with --skip-non-crds, as generate and verify do', async () => {
    const dir = path.join(tmp, 'bundle-sample');
    fs.mkdirSync(dir);
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec: {}\n';
    fs.writeFileSync(path.join(dir, 'install.yaml'), `${deployment}---\n${fs.readFileSync(SAMPLE_CRD, 'utf8')}`);
    const refused = await cli(dir, 'sample', '--crds', 'install.yaml');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /install\.yaml:2:\d+.*expected kind CustomResourceDefinition, found "Deployment"/);
    assert.equal(refused.out, '');
    const skipped = await cli(dir, 'sample', '--crds', 'install.yaml', '--skip-non-crds');
    assert.equal(skipped.code, 0, skipped.err);
    assert.equal(skipped.err, 'skipped install.yaml:1: Deployment web is not a CustomResourceDefinition\n');
    assert.match(skipped.out, /^---\napiVersion: samplecontroller\.k8s\.io\/v1alpha1\nkind: Foo\n/);
    const withApis = await cli(dir, 'sample', '--apis', 'apis', '--skip-non-crds');
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
    assert.equal(opt.err, "error: unknown option '--cdrs' (did you mean --crds?)\n(run kubegen generate --help for usage)\n");
    const bare = await cli(tmp, '--cdrs', 'x', '--versoin');
    assert.equal(bare.code, 2, 'the default command (generate), and the program\'s own options as suggestions');
    assert.match(bare.err, /^error: unknown option '--cdrs' \(did you mean --crds\?\)\nerror: unknown option '--versoin' \(did you mean --version\?\)\n/);
  });

  it('names every mistyped option, each with the closest, before complaining about missing required ones', async () => {
    const res = await cli(tmp, 'create', 'api', '--group', 'g', '--versoin', 'v1', '--kidn', 'Foo');
    assert.equal(res.code, 2);
    assert.equal(
      res.err,
      "error: unknown option '--versoin' (did you mean --version?)\nerror: unknown option '--kidn' (did you mean --kind?)\n(run kubegen create api --help for usage)\n",
    );
    const webhook = await cli(tmp, 'create', 'webhook', '--group', 'g', '--version', 'v1', '--kind', 'Foo', '--defaultng', '--programatic-validation');
    assert.equal(webhook.code, 2);
    assert.match(webhook.err, /'--defaultng' \(did you mean --defaulting\?\)\n.*'--programatic-validation' \(did you mean --programmatic-validation\?\)/);
    const sample = await cli(tmp, 'sample', '--crd', 'x');
    assert.match(sample.err, /^error: unknown option '--crd' \(did you mean --crds\?\)$/m);
    const loadtest = await cli(tmp, 'loadtest', '--templat', 't.yaml', '--count', '1', '--', 'node', 'controller.js', '--not-ours');
    assert.equal(loadtest.code, 2);
    assert.equal(loadtest.err, "error: unknown option '--templat' (did you mean --template?)\n(run kubegen loadtest --help for usage)\n", 'what follows -- is the controller\'s');
    const far = await cli(tmp, 'init', '--xyzzy');
    assert.equal(far.err, "error: unknown option '--xyzzy'\n(run kubegen init --help for usage)\n");
    assert.equal(fs.readdirSync(tmp).filter((n) => !['layout', 'bundle', 'bundle-sample'].includes(n)).length, 0, 'nothing was written');
  });

  it('suggests the closest value from a fixed set (usage error, exit 2)', async () => {
    const bool = await cli(tmp, 'create', 'api', '--group', 'g', '--version', 'v1', '--kind', 'Foo', '--namespaced=ture');
    assert.equal(bool.code, 2);
    assert.match(bool.err, /^error: option '--namespaced \[bool\]' argument 'ture' is invalid\. expected true or false \(did you mean true\?\)$/m);
    const controller = await cli(tmp, 'create', 'api', '--group', 'g', '--version', 'v1', '--kind', 'Foo', '--controller=flase');
    assert.match(controller.err, /expected true or false \(did you mean false\?\)/);
    const profile = await cli(tmp, 'loadtest', '--envtest', 'crd-onyl', '--template', 't.yaml', '--count', '1', '--', 'node', 'c.js');
    assert.equal(profile.code, 2);
    assert.match(profile.err, /argument 'crd-onyl' is invalid\. expected one of full, crd-only, cluster \(did you mean crd-only\?\)/);
    const only = await cli(tmp, 'dashboard', '--only', 'prometheus_rules.yaml');
    assert.equal(only.code, 2);
    assert.match(only.err, /^error: --only prometheus_rules\.yaml: no such file \(did you mean prometheus_rule\.yaml\?\)/);
  });

  it('suggests the closest kind of the input (bad input, exit 1)', async () => {
    const res = await cli(tmp, 'sample', '--crds', SAMPLE_CRD, '--kind', 'Fo');
    assert.equal(res.code, 1);
    assert.match(res.err, /^error: no kind Fo in .* \(did you mean Foo\?\)$/m);
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
