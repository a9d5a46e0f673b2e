/**
 * `kubegen generate|verify --rbac-source <dir>...` with no other input (controller-gen's `rbac` generator alone): a
 * controller with no API types of its own, such as examples/ttl-janitor, gets its role.yaml from its markers —
 * wildcards included — with no code folder; `verify` checks it; the config key `rbacSources` alone does the same;
 * bad input (no markers, a missing folder, an option that only makes sense with code) is refused, writing nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { runCodegenBin as codegen } from '../support/cli.js';

const JANITOR_MARKERS = `/**
 * +kubebuilder:rbac:groups=*,resources=*,verbs=list;watch;delete
 * +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list;watch
 */
export const janitor = 1;
`;
const EVENTS_MARKER = `// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch\nexport const events = 1;\n`;
const WEBHOOK_MARKER = `// +kubebuilder:webhook:path=/validate-v1-configmap,mutating=false,failurePolicy=fail,sideEffects=None,groups=core,resources=configmaps,verbs=create,versions=v1,name=vconfigmap.kb.io,admissionReviewVersions=v1\nexport const hook = 1;\n`;

describe('kubegen --rbac-source without --crds or --apis', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-rbac-only-'));
    fs.mkdirSync(path.join(dir, 'src', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'janitor.ts'), JANITOR_MARKERS);
    fs.writeFileSync(path.join(dir, 'src', 'sub', 'events.ts'), EVENTS_MARKER);
    // Tests are not scanned (as for --apis): their markers would grant test-only permissions.
    fs.writeFileSync(path.join(dir, 'src', 'janitor.test.ts'), '// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=create\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const role = (): string => fs.readFileSync(path.join(dir, 'config', 'rbac', 'role.yaml'), 'utf8');

  it('writes only role.yaml, wildcards as written, and verify checks it', () => {
    const g = codegen(dir, 'generate', '--rbac-source', 'src');
    assert.equal(g.code, 0, g.stderr);
    assert.equal(g.stdout, 'wrote role.yaml (3 rules from +kubebuilder:rbac markers) into config/rbac\n');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['config', 'src'], 'no code folder, no CRD folder');
    assert.deepEqual(fs.readdirSync(path.join(dir, 'config')), ['rbac']);
    assert.equal(
      role().replace(/^#.*\n/gm, ''),
      [
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: manager-role',
        'rules:',
        '- apiGroups:',
        '  - ""',
        '  resources:',
        '  - events',
        '  verbs:',
        '  - create',
        '  - patch',
        '- apiGroups:',
        '  - "*"',
        '  resources:',
        '  - "*"',
        '  verbs:',
        '  - delete',
        '  - list',
        '  - watch',
        '- apiGroups:',
        '  - apiextensions.k8s.io',
        '  resources:',
        '  - customresourcedefinitions',
        '  verbs:',
        '  - list',
        '  - watch',
        '',
      ].join('\n'),
    );
    const v = codegen(dir, 'verify', '--rbac-source', 'src');
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout, 'config/rbac is up to date (1 files)\n');

    fs.writeFileSync(path.join(dir, 'src', 'sub', 'events.ts'), EVENTS_MARKER.replace('create;patch', 'create'));
    const stale = codegen(dir, 'verify', '--rbac-source', 'src');
    assert.equal(stale.code, 1);
    assert.match(stale.stdout, /\+\+\+ b\/config\/rbac\/role\.yaml/);
    assert.equal(stale.stderr, 'error: config/rbac is out of date (1 changed); run `npx kubegen generate --rbac-source src` to update it\n');
  });

  it('reads rbacSources and rbacOut from the config file alone, and writes webhook manifests for webhook markers', () => {
    fs.writeFileSync(path.join(dir, 'src', 'hook.ts'), WEBHOOK_MARKER);
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'rbacSources: [src]\nrbacOut: deploy/rbac\n');
    const g = codegen(dir, 'generate');
    assert.equal(g.code, 0, g.stderr);
    assert.equal(g.stdout, 'wrote role.yaml (3 rules from +kubebuilder:rbac markers) into deploy/rbac\nwrote manifests.yaml into config/webhook\n');
    assert.match(fs.readFileSync(path.join(dir, 'deploy', 'rbac', 'role.yaml'), 'utf8'), /customresourcedefinitions/);
    assert.match(fs.readFileSync(path.join(dir, 'config', 'webhook', 'manifests.yaml'), 'utf8'), /name: vconfigmap\.kb\.io/);
    assert.equal(codegen(dir, 'verify').code, 0);
  });

  it('refuses folders without markers, missing folders and options that need code, writing nothing', () => {
    fs.mkdirSync(path.join(dir, 'empty'));
    fs.writeFileSync(path.join(dir, 'empty', 'a.ts'), 'export const a = 1;\n');
    const none = codegen(dir, 'generate', '--rbac-source', 'empty');
    assert.equal(none.code, 1);
    assert.match(none.stderr, /empty: no \+kubebuilder:rbac or \+kubebuilder:webhook marker found in a \.ts file/);

    const missing = codegen(dir, 'generate', '--rbac-source', 'src', 'nope');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope: no such folder/);

    const withOut = codegen(dir, 'generate', '--rbac-source', 'src', '--out', 'generated');
    assert.equal(withOut.code, 2);
    assert.match(withOut.stderr, /--out: --rbac-source alone writes only role\.yaml and webhook manifests, no code; add --crds, --apis or --from-cluster to generate code/);
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'rbacSources: [src]\nout: generated\n');
    const fromFile = codegen(dir, 'generate');
    assert.equal(fromFile.code, 2);
    assert.match(fromFile.stderr, /out \(from codegen\.config\.yaml\): --rbac-source alone/);
    assert.ok(!fs.existsSync(path.join(dir, 'config')) && !fs.existsSync(path.join(dir, 'generated')), 'nothing written');

    fs.rmSync(path.join(dir, 'codegen.config.yaml'));
    const noInput = codegen(dir, 'generate', '--out', 'x');
    assert.equal(noInput.code, 2);
    assert.match(noInput.stderr, /no input: pass --crds <file\|dir>\.\.\., --apis <dir>, --from-cluster or --rbac-source <dir>\.\.\./);
  });
});
