/**
 * `codegen generate|verify --apis` end to end through the binary: outputs (code, CRDs, role.yaml), defaults,
 * the config-file keys, verify covering the YAML outputs, and `--emit-markers` feeding back into `--apis`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fixture, REPO_ROOT, SAMPLE_CRD } from '../support/paths.js';
import { runCodegenBin } from '../support/cli.js';

const codegen = runCodegenBin;

describe('codegen --apis', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-apis-cli-'));
    fs.cpSync(fixture('apis', 'multi', 'apis'), path.join(dir, 'apis'), { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes code, CRDs into config/crd/bases and role.yaml into config/rbac by default; verify checks all of it', () => {
    const g = codegen(dir, 'generate', '--apis', 'apis', '--out', 'generated');
    assert.equal(g.code, 0, g.stderr);
    assert.match(g.stdout, /wrote 3 CRDs into config\/crd\/bases and role\.yaml into config\/rbac\n$/);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'config', 'crd', 'bases')).sort(), [
      'ports.example.com_harbors.yaml', 'ships.example.com_fleets.yaml', 'ships.example.com_frigates.yaml',
    ]);
    assert.ok(fs.existsSync(path.join(dir, 'config', 'rbac', 'role.yaml')));
    assert.ok(!fs.existsSync(path.join(dir, 'generated', 'ships.example.com', 'v1', 'types.ts')));
    assert.equal(codegen(dir, 'verify', '--apis', 'apis', '--out', 'generated').code, 0);

    const role = path.join(dir, 'config', 'rbac', 'role.yaml');
    fs.writeFileSync(role, fs.readFileSync(role, 'utf8').replace('- watch\n', ''));
    fs.rmSync(path.join(dir, 'config', 'crd', 'bases', 'ships.example.com_fleets.yaml'));
    const v = codegen(dir, 'verify', '--apis', 'apis', '--out', 'generated');
    assert.equal(v.code, 1);
    assert.match(v.stdout, /\+\+\+ b\/config\/rbac\/role\.yaml/);
    assert.match(v.stdout, /missing file \(would be generated\): config\/crd\/bases\/ships\.example\.com_fleets\.yaml/);
    assert.equal(
      v.stderr,
      'error: config/crd/bases (1 missing) and config/rbac (1 changed) are out of date; run `npx kubegen generate --apis apis --out generated` to update them\n',
      'names every folder that differs and the command that updates them',
    );
  });

  it('reads apis, out, crdOut and rbacOut from the config file, relative to it', () => {
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'apis: apis\nout: src/generated\ncrdOut: deploy/crds\nrbacOut: deploy/rbac\n');
    const g = codegen(dir, 'generate');
    assert.equal(g.code, 0, g.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'deploy', 'crds', 'ships.example.com_frigates.yaml')));
    assert.ok(fs.existsSync(path.join(dir, 'deploy', 'rbac', 'role.yaml')));
    assert.ok(fs.existsSync(path.join(dir, 'src', 'generated', 'index.ts')));
    assert.equal(codegen(dir, 'verify').code, 0);
  });

  it('collects +kubebuilder:rbac markers from --rbac-source folders and the rbacSources config key', () => {
    fs.mkdirSync(path.join(dir, 'controllers'));
    fs.writeFileSync(
      path.join(dir, 'controllers', 'harbor-controller.ts'),
      '// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create\nexport const x = 1;\n',
    );
    const without = codegen(dir, 'generate', '--apis', 'apis', '--out', 'generated');
    assert.equal(without.code, 0, without.stderr);
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'config', 'rbac', 'role.yaml'), 'utf8'), /deployments/);
    const g = codegen(dir, 'generate', '--apis', 'apis', '--out', 'generated', '--rbac-source', 'controllers');
    assert.equal(g.code, 0, g.stderr);
    const role = fs.readFileSync(path.join(dir, 'config', 'rbac', 'role.yaml'), 'utf8');
    assert.match(role, /- apps\n[\s\S]*- deployments\n[\s\S]*- create\n/);
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'apis: apis\nout: generated\nrbacSources: [controllers]\n');
    assert.equal(codegen(dir, 'verify').code, 0, 'the config key scans the same folder');
    const bad = codegen(dir, 'generate', '--apis', 'apis', '--out', 'generated', '--rbac-source', 'nope');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /nope: no such folder/);
  });

  it('refuses a foreign file where a CRD would go, before writing anything', () => {
    fs.mkdirSync(path.join(dir, 'config', 'crd', 'bases'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'config', 'crd', 'bases', 'ships.example.com_fleets.yaml'), 'hand: written\n');
    const g = codegen(dir, 'generate', '--apis', 'apis', '--out', 'generated');
    assert.equal(g.code, 1);
    assert.match(g.stderr, /refusing to replace/);
    assert.ok(!fs.existsSync(path.join(dir, 'generated')));
  });

  it('--crds with --emit-markers writes types that --apis reads back into the same CRD', () => {
    const a = codegen(dir, 'generate', '--crds', SAMPLE_CRD, '--out', 'from-crd', '--emit-markers');
    assert.equal(a.code, 0, a.stderr);
    const types = fs.readFileSync(path.join(dir, 'from-crd', 'samplecontroller.k8s.io', 'v1alpha1', 'types.ts'), 'utf8');
    assert.match(types, /\+kubebuilder:validation:Maximum=10/);
    fs.mkdirSync(path.join(dir, 'rt', 'apis', 'samplecontroller', 'v1alpha1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'rt', 'apis', 'samplecontroller', 'v1alpha1', 'types.ts'), types);
    const b = codegen(path.join(dir, 'rt'), 'generate', '--apis', 'apis', '--out', 'generated');
    assert.equal(b.code, 0, b.stderr);
    const crd = fs.readFileSync(path.join(dir, 'rt', 'config', 'crd', 'bases', 'samplecontroller.k8s.io_foos.yaml'), 'utf8');
    assert.match(crd, /replicas:\n {16}maximum: 10\n {16}minimum: 1\n {16}type: integer\n/);
  });

  it('--crds and --apis together is a usage error', () => {
    const r = codegen(dir, 'generate', '--apis', 'apis', '--crds', SAMPLE_CRD, '--out', 'x');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /pass either --crds or --apis, not both/);
  });
});
