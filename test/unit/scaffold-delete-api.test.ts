/**
 * Issue 23: a misspelt kind (`Webiste`) can be taken back. `create api` shows every file it creates and every line
 * it adds (also with --dry-run, writing nothing) and records them in kubegen.project.yaml; `delete api` undoes exactly
 * that — the tree is byte-identical to before — leaving alone and naming what the user changed since. Shared parts
 * (doc.ts of a group version, a kind's CRD entry while another version remains) stay for the kinds that need them.
 * In a scaffolded project, verify points at `npm run generate`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { runCli } from '../support/cli.js';
import { treeSnapshot } from '../support/tree.js';

const cli = runCli;
const api = (verb: 'create' | 'delete', kind: string, ...more: string[]): string[] => [verb, 'api', '--group', 'web', '--version', 'v1', '--kind', kind, ...more];

async function withProject(fn: (dir: string) => Promise<void>): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-delete-api-'));
  try {
    const dir = path.join(tmp, 'proj');
    const init = await cli(tmp, 'init', '--domain', 'example.com', 'proj');
    assert.equal(init.code, 0, init.err);
    await fn(dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function ok(dir: string, ...argv: string[]): Promise<string> {
  const res = await cli(dir, ...argv);
  assert.equal(res.code, 0, `${argv.join(' ')}: ${res.err}`);
  return res.out;
}

describe('create api then delete api', () => {
  it('Webiste: the tree is byte-identical to before, and create api showed every change first', () =>
    withProject(async (dir) => {
      const before = treeSnapshot(dir);
      const dry = await ok(dir, ...api('create', 'Webiste', '--dry-run'));
      assert.deepEqual(treeSnapshot(dir), before, '--dry-run writes nothing');
      const made = await ok(dir, ...api('create', 'Webiste'));
      const body = (text: string, drop: number): string => text.split('\n').slice(1, -drop).join('\n');
      assert.equal(body(dry.replace(/would (create|update)/g, '$1d'), 2), body(made, 3), 'the dry run lists exactly what the run does');
      for (const f of ['apis/web/v1/doc.ts', 'apis/web/v1/webiste_types.ts', 'config/samples/web_v1_webiste.yaml', 'src/controllers/webiste-controller.ts']) {
        assert.match(made, new RegExp(`^  created ${f.replace(/\./g, '\\.')}$`, 'm'));
      }
      assert.match(made, /^  updated src\/main\.ts\n    \+ import \{ setupWebisteController \} from '\.\/controllers\/webiste-controller\.js';\n    \+ {3}setupWebisteController\(mgr\);$/m);
      assert.match(made, /^  updated config\/crd\/kustomization\.yaml\n    \+ {3}- bases\/web\.example\.com_webistes\.yaml$/m);
      assert.match(made, /^  updated config\/samples\/kustomization\.yaml\n    \+ {3}- web_v1_webiste\.yaml$/m);
      assert.match(made, /^undo with: npx kubegen delete api --group web --version v1 --kind Webiste$/m);
      const record = parse(fs.readFileSync(path.join(dir, 'kubegen.project.yaml'), 'utf8')).resources[0].scaffolded;
      assert.deepEqual(record.folders, ['apis/web', 'apis/web/v1']);
      assert.equal(record.files.length, 6);

      const dryDelete = await ok(dir, ...api('delete', 'Webiste', '--dry-run'));
      assert.match(dryDelete, /would remove apis\/web\/v1\/webiste_types\.ts/);
      const deleted = await ok(dir, ...api('delete', 'Webiste'));
      const done = { remove: 'removed', revert: 'reverted', update: 'updated' } as Record<string, string>;
      assert.equal(body(dryDelete.replace(/would (remove|revert|update)/g, (_m, v: string) => done[v]!), 0), body(deleted, 0), 'the dry run lists exactly what the run does');
      assert.match(deleted, /^ {2}reverted src\/main\.ts\n {4}- import \{ setupWebisteController \}/m);
      assert.match(deleted, /^next: nothing was generated for it yet$/m);
      assert.deepEqual(treeSnapshot(dir), before);
    }));

  it('among other kinds, without a controller, and for a second version: each delete restores the tree before its create', () =>
    withProject(async (dir) => {
      await ok(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
      const withFrigate = treeSnapshot(dir);
      await ok(dir, ...api('create', 'Webiste', '--controller=false', '--namespaced=false'));
      await ok(dir, ...api('delete', 'Webiste'));
      assert.deepEqual(treeSnapshot(dir), withFrigate);

      // A second version marks the first one's types +kubebuilder:storageversion; deleting it takes that back.
      const v2 = await ok(dir, 'create', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--controller=false');
      assert.match(v2, /^ {2}updated apis\/ships\/v1\/frigate_types\.ts\n {4}\+ {2}\* \+kubebuilder:storageversion$/m);
      await ok(dir, 'delete', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate');
      assert.deepEqual(treeSnapshot(dir), withFrigate);
    }));

  it('keeps what other kinds still need, and hands its record on: deleting in creation order also ends where it began', () =>
    withProject(async (dir) => {
      const before = treeSnapshot(dir);
      await ok(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
      await ok(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Fleet', '--controller=false');
      await ok(dir, 'create', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--controller=false');

      await ok(dir, 'delete', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
      assert.ok(fs.existsSync(path.join(dir, 'apis/ships/v1/doc.ts')), 'Fleet still needs doc.ts');
      assert.match(fs.readFileSync(path.join(dir, 'config/crd/kustomization.yaml'), 'utf8'), /- bases\/ships\.example\.com_frigates\.yaml/, 'v2 still needs the CRD');
      await ok(dir, 'delete', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Fleet');
      assert.ok(!fs.existsSync(path.join(dir, 'apis/ships/v1')), 'the folder went with the last kind in it');
      await ok(dir, 'delete', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate');
      assert.deepEqual(treeSnapshot(dir), before);
    }));

  it('leaves alone and names what the user changed since, exit 1 (0 with --keep-changed); reverts around the user\'s own edits', () =>
    withProject(async (dir) => {
      const mainBefore = fs.readFileSync(path.join(dir, 'src/main.ts'), 'utf8');
      await ok(dir, ...api('create', 'Webiste'));
      const controller = path.join(dir, 'src/controllers/webiste-controller.ts');
      fs.appendFileSync(controller, '// my change\n');
      const mine = fs.readFileSync(controller, 'utf8');
      const main = path.join(dir, 'src/main.ts');
      fs.writeFileSync(main, `// my header\n${fs.readFileSync(main, 'utf8')}`);

      const res = await cli(dir, ...api('delete', 'Webiste'));
      assert.equal(res.code, 1, res.err);
      assert.match(res.out, /^left alone, changed since create api \(delete or fix them yourself\):\n {2}src\/controllers\/webiste-controller\.ts: changed since create api$/m);
      assert.equal(fs.readFileSync(controller, 'utf8'), mine, 'the user\'s file survives as it is');
      assert.ok(!fs.existsSync(path.join(dir, 'src/controllers/webiste-controller.test.ts')), 'unchanged files are removed');
      assert.equal(fs.readFileSync(main, 'utf8'), `// my header\n${mainBefore}`, 'our lines removed, the user\'s edit kept');
      assert.ok(fs.existsSync(path.join(dir, 'src/controllers')));
      assert.deepEqual(parse(fs.readFileSync(path.join(dir, 'kubegen.project.yaml'), 'utf8')).resources, []);
    }));

  it('names the lines to remove by hand when the user changed an inserted line; --keep-changed exits 0', () =>
    withProject(async (dir) => {
      await ok(dir, ...api('create', 'Webiste'));
      const main = path.join(dir, 'src/main.ts');
      const edited = fs.readFileSync(main, 'utf8').replace('  setupWebisteController(mgr);', '  setupWebisteController(mgr, { mine: true });');
      fs.writeFileSync(main, edited);
      const res = await cli(dir, ...api('delete', 'Webiste', '--keep-changed'));
      assert.equal(res.code, 0, res.err);
      assert.match(res.out, /^ {2}src\/main\.ts: the lines create api inserted are no longer all there; lines to remove:\n {4}- import \{ setupWebisteController \} from '\.\/controllers\/webiste-controller\.js';\n {4}- {3}setupWebisteController\(mgr\);$/m);
      assert.equal(fs.readFileSync(main, 'utf8'), edited, 'left exactly as it was');
    }));

  it('refuses, changing nothing: an unknown kind (with the closest), a kind with webhooks, a kind an older kubegen made', () =>
    withProject(async (dir) => {
      await ok(dir, ...api('create', 'Webiste'));
      const before = treeSnapshot(dir);
      const typo = await cli(dir, ...api('delete', 'Website'));
      assert.equal(typo.code, 1);
      assert.equal(typo.err, 'error: kind Website does not exist in web.example.com/v1 (did you mean Webiste?)\n');
      const elsewhere = await cli(dir, 'delete', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Webiste');
      assert.match(elsewhere.err, /does not exist in ships\.example\.com\/v1; the project's kinds: Webiste \(--group web --version v1\)/);

      await ok(dir, ...api('create', 'Webiste', '--defaulting').map((a) => (a === 'api' ? 'webhook' : a)));
      const withWebhook = treeSnapshot(dir);
      const hooks = await cli(dir, ...api('delete', 'Webiste'));
      assert.equal(hooks.code, 1);
      assert.match(hooks.err, /^error: kind Webiste has webhooks \(src\/webhooks\/webiste-webhook\.ts, setupWebisteWebhook\(…\) in src\/main\.ts\); delete api does not undo create webhook/);
      assert.deepEqual(treeSnapshot(dir), withWebhook);
      assert.notDeepEqual(withWebhook, before);

      const projectFile = path.join(dir, 'kubegen.project.yaml');
      const project = parse(fs.readFileSync(projectFile, 'utf8'));
      fs.writeFileSync(path.join(dir, '..', 'outside.txt'), 'not the project\'s');
      project.resources[0].scaffolded.files.push({ path: '../outside.txt', sha256: 'x' });
      fs.writeFileSync(projectFile, stringify(project));
      const escaping = await cli(dir, ...api('delete', 'Webiste'));
      assert.match(escaping.err, /^error: kubegen\.project\.yaml \(resources\[0\]\.scaffolded\): files\[\d+\] is not a path inside the project/);
      assert.ok(fs.existsSync(path.join(dir, '..', 'outside.txt')));
      delete project.resources[0].scaffolded;
      fs.writeFileSync(projectFile, stringify(project));
      const old = await cli(dir, ...api('delete', 'Webiste'));
      assert.match(old.err, /^error: kubegen\.project\.yaml has no record of what create api wrote for Webiste \(made by an older kubegen\)/);
    }));

  it('after generate: says what generate will prune, and verify in the project points at npm run generate', () =>
    withProject(async (dir) => {
      await ok(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate');
      await ok(dir, ...api('create', 'Webiste'));
      await ok(dir, 'generate', '-q');
      const deleted = await ok(dir, ...api('delete', 'Webiste'));
      assert.match(deleted, /^next: npm run generate, which updates or removes its generated files \(src\/generated\/web\.example\.com\/v1, config\/crd\/bases\/web\.example\.com_webistes\.yaml\)$/m);

      const verify = await cli(dir, 'verify');
      assert.equal(verify.code, 1);
      assert.match(verify.err, /^error: src\/generated \(\d+ changed, \d+ extra\), config\/crd\/bases \(1 extra\) and config\/rbac \(1 changed\) are out of date; run `npm run generate` to update them$/m);
      await ok(dir, 'generate', '-q');
      assert.ok(!fs.existsSync(path.join(dir, 'config/crd/bases/web.example.com_webistes.yaml')), 'pruned');
      assert.ok(!fs.existsSync(path.join(dir, 'src/generated/web.example.com')), 'replaced without it');
      await ok(dir, 'verify');

      const role = path.join(dir, 'config/rbac/role.yaml');
      fs.writeFileSync(role, fs.readFileSync(role, 'utf8').replace('- watch\n', ''));
      const config = await cli(dir, 'verify', '--quiet');
      assert.equal(config.err, 'error: config/rbac is out of date (1 changed); run `npm run generate` to update it\n', 'names config/rbac, not src/generated');
      const flags = await cli(dir, 'verify', '--apis', 'apis', '--out', 'src/generated');
      assert.match(flags.err, /run `npx kubegen generate --apis apis --out src\/generated` to update it/, 'other arguments than the script\'s');
    }));
});
