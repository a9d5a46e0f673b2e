/**
 * The TypeScript front end end to end on the multi-group, multi-version apis fixture (`fixtures/apis/multi`):
 * cluster- and namespace-scoped kinds, status and scale subresources, printer columns, CEL rules, shared types,
 * imports across files and folders, a built-in API type, RBAC markers. Golden files: `test/golden/apis/multi`
 * (`UPDATE_GOLDEN=1` rewrites them). The generated modules import the user's types and compile with them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generate } from 'kubegen/internal/generate/index.js';
import type { GeneratedFile } from 'kubegen/internal/generate/index.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';
import { assertGolden } from '../support/golden.js';
import { fixture, REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';

const MULTI = fixture('apis', 'multi');

const GOLDEN = path.join(REPO_ROOT, 'test', 'golden', 'apis', 'multi');

/**
 * Everything `codegen generate --apis <root>/apis --out <outRoot>/generated` writes, with the YAML under `config/`.
 * The golden copy is generated as if its output folder were `test/golden/apis/multi/generated`, so its imports reach
 * the fixture's types and the project build type-checks it.
 */
async function outputs(root: string, outRoot = root): Promise<GeneratedFile[]> {
  const model = await parseApis(path.join(root, 'apis'), { outDir: path.join(outRoot, 'generated') });
  const folders = { crds: 'config/crd/bases', rbac: 'config/rbac', webhooks: 'config/webhook' };
  return generate(model).map((f) => ({ path: `${f.output ? folders[f.output] : 'generated'}/${f.path}`, content: f.content }));
}

describe('apis fixture (multi-group, multi-version)', () => {
  it('matches the golden files', async () => {
    assertGolden(GOLDEN, await outputs(MULTI, GOLDEN));
  });

  it('builds the model: groups, scopes, versions, storage, subresources, user types', async () => {
    const model = await parseApis(path.join(MULTI, 'apis'), { outDir: path.join(MULTI, 'generated') });
    const summary = model.resources.map((r) => ({
      gk: `${r.names.kind}.${r.group}`,
      scope: r.scope,
      versions: r.versions.map((v) => `${v.name}${v.storage ? '*' : ''}${v.deprecated ? '!' : ''}${v.subresources.status ? '+status' : ''}${v.subresources.scale ? '+scale' : ''}`),
    }));
    assert.deepEqual(summary, [
      { gk: 'Harbor.ports.example.com', scope: 'Namespaced', versions: ['v1alpha1*+status'] },
      { gk: 'Fleet.ships.example.com', scope: 'Cluster', versions: ['v1*'] },
      { gk: 'Frigate.ships.example.com', scope: 'Namespaced', versions: ['v1*+status+scale', 'v1beta1!+status'] },
    ]);
    assert.ok(model.resources.find((r) => r.names.kind === 'Harbor')!.versions[0]!.storage);
    const frigate = model.resources.find((r) => r.names.kind === 'Frigate')!;
    const { folder, ...userTypes } = frigate.versions[0]!.userTypes!;
    assert.deepEqual(userTypes, { module: '../apis/ships/v1/frigate_types', kind: 'Frigate', list: 'FrigateList' });
    // Every exported type of the version folder, by module, in declaration order: what the version index re-exports.
    assert.deepEqual(folder, [
      { module: '../apis/ships/v1/crew', names: ['Crew'] },
      { module: '../apis/ships/v1/fleet_types', names: ['Fleet', 'FleetList'] },
      { module: '../apis/ships/v1/frigate_types', names: ['FrigateSpec', 'FrigateStatus', 'Frigate', 'FrigateList'] },
    ]);
    assert.deepEqual(frigate.names.shortNames, ['frg']);
    assert.equal(frigate.versions[1]!.deprecationWarning, 'ships.example.com/v1beta1 Frigate is deprecated; use v1');
  });

  it('writes no types.ts and imports the user types instead', async () => {
    const files = await outputs(MULTI);
    assert.equal(files.filter((f) => f.path.endsWith('/types.ts')).length, 0);
    const client = files.find((f) => f.path === 'generated/ships.example.com/v1/client.ts')!.content;
    assert.match(client, /import type \{ Fleet, FleetList \} from "\.\.\/\.\.\/\.\.\/apis\/ships\/v1\/fleet_types\.js";/);
    assert.match(client, /import type \{ Frigate, FrigateList \} from "\.\.\/\.\.\/\.\.\/apis\/ships\/v1\/frigate_types\.js";/);
  });

  it('the version index re-exports every type of the version folder, but a name a generated module exports', async () => {
    const index = (files: GeneratedFile[]): string => files.find((f) => f.path === 'generated/ships.example.com/v1/index.ts')!.content;
    const plain = index(await outputs(MULTI));
    assert.match(plain, /^export type \{ Crew \} from "\.\.\/\.\.\/\.\.\/apis\/ships\/v1\/crew\.js";$/m);
    assert.match(plain, /^export type \{ FrigateSpec, FrigateStatus, Frigate, FrigateList \} from "[^"]*\/frigate_types\.js";$/m);
    assert.doesNotMatch(plain, /Not re-exported/);
    // A user type named as a generated export (the lister interface): the generated one stays, a comment says so.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-apis-index-'));
    try {
      fs.cpSync(path.join(MULTI, 'apis'), path.join(dir, 'apis'), { recursive: true });
      fs.appendFileSync(path.join(dir, 'apis/ships/v1/frigate_types.ts'), '\nexport interface FrigateLister { name: string }\n');
      const clashing = index(await outputs(dir));
      assert.match(clashing, /^\/\/ Not re-exported, a generated export has the name: FrigateLister \(\.\.\/apis\/ships\/v1\/frigate_types\)\.$/m);
      assert.match(clashing, /^export type \{ FrigateSpec, FrigateStatus, Frigate, FrigateList \} from /m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('generated modules compile together with the user types under tsc --strict', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-apis-compile-'));
    try {
      fs.cpSync(path.join(MULTI, 'apis'), path.join(dir, 'apis'), { recursive: true });
      for (const f of await outputs(dir)) {
        fs.mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, f.path), f.content);
      }
      // The version index gives the spec types too (a kubebuilder user imports the whole API package).
      fs.writeFileSync(path.join(dir, 'generated', 'use-index.ts'), [
        "import type { Crew, FrigateSpec, FrigateLister } from './ships.example.com/v1/index.js';",
        "export const spec = (s: FrigateSpec): FrigateSpec => s;",
        "export type Used = [Crew, FrigateLister];",
        '',
      ].join('\n'));
      linkRuntimePackage(dir);
      fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@kubernetes'), path.join(dir, 'node_modules', '@kubernetes'), 'dir');
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'apis-user', type: 'module', private: true }));
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
          strict: true, noEmit: true, target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023', 'dom'],
          types: ['node'], typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')], skipLibCheck: true,
        },
        include: ['apis', 'generated'],
      }));
      const res = spawnSync(TSC, ['-p', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
      assert.equal(res.status, 0, `tsc failed:\n${(res.stdout + res.stderr).slice(0, 4000)}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
