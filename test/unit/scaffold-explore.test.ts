/**
 * The scaffold's `npm run explore` (issue 42): `init` writes src/explore-setup.ts and test/explore/scenario.yaml,
 * `create api` registers its controller in the one and adds its sample's steps (apply, patch, delete) to the other,
 * `delete api` takes both out again; after `generate` and the build, the package.json's explore command finds the
 * scaffolded controller correct under every crash point and watch gap (exit 0), and a controller broken on purpose
 * (a child whose generated name is kept only in status) makes it exit 1 naming the crash point.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';
import { runCli } from '../support/cli.js';

const read = (dir: string, p: string): string => fs.readFileSync(path.join(dir, p), 'utf8');

test('init + create api: npm run explore finds the scaffolded controller correct', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-explore-'));
  const dir = path.join(tmp, 'dock');
  try {
    assert.equal((await runCli(tmp, 'init', '--domain', 'example.com', 'dock')).code, 0);
    const pkg = JSON.parse(read(dir, 'package.json')) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts['preexplore'], 'npm run build');
    assert.equal(pkg.scripts['explore'], 'kubegen explore --setup dist/src/explore-setup.js --crds config/crd/bases --scenario test/explore/scenario.yaml');
    assert.equal(parse(read(dir, 'test/explore/scenario.yaml')), null, 'no steps before create api');

    for (const kind of ['Boat', 'Crane']) {
      const r = await runCli(dir, 'create', 'api', '--group', 'harbor', '--version', 'v1', '--kind', kind, ...(kind === 'Crane' ? ['--namespaced=false'] : []));
      assert.equal(r.code, 0, r.err);
    }
    const setup = read(dir, 'src/explore-setup.ts');
    assert.match(setup, /import \{ setupBoatController \} from '\.\/controllers\/boat-controller\.js';\nimport \{ setupCraneController \} from '\.\/controllers\/crane-controller\.js';\n\/\/ \+kubegen:scaffold:imports/);
    assert.match(setup, /\n {2}setupBoatController\(mgr\);\n {2}setupCraneController\(mgr\);\n {2}\/\/ \+kubegen:scaffold:controllers\n/);
    const steps = parse(read(dir, 'test/explore/scenario.yaml')) as Record<string, any>[];
    assert.deepEqual(steps.map((s) => Object.keys(s)[0]), ['apply', 'patch', 'delete', 'apply', 'patch', 'delete']);
    assert.deepEqual(steps[0], { apply: { apiVersion: 'harbor.example.com/v1', kind: 'Boat', metadata: { namespace: 'default', name: 'boat-sample' }, spec: {} } });
    assert.deepEqual(steps[4], { patch: { apiVersion: 'harbor.example.com/v1', kind: 'Crane', name: 'crane-sample', patch: { metadata: { labels: { 'explore.kubegen.io/step': 'patched' } } } } });

    // delete api takes its lines out of both files; create api puts them back.
    assert.equal((await runCli(dir, 'delete', 'api', '--group', 'harbor', '--version', 'v1', '--kind', 'Crane')).code, 0);
    assert.doesNotMatch(read(dir, 'src/explore-setup.ts'), /Crane/);
    assert.equal((parse(read(dir, 'test/explore/scenario.yaml')) as unknown[]).length, 3);
    assert.equal((await runCli(dir, 'create', 'api', '--group', 'harbor', '--version', 'v1', '--kind', 'Crane', '--namespaced=false')).code, 0);

    assert.equal((await runCli(dir, 'generate', '-q')).code, 0);
    fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
    linkRuntimePackage(dir);
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
    const build = () => spawnSync(TSC, ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const tsc = build();
    assert.equal(tsc.status, 0, `tsc failed:\n${(tsc.stdout + tsc.stderr).slice(0, 4000)}`);

    // The package.json's command, as npm runs it (kubegen from node_modules/.bin).
    const [bin, sub, ...args] = pkg.scripts['explore']!.split(' ');
    assert.deepEqual([bin, sub], ['kubegen', 'explore']);
    const ok = await runCli(dir, 'explore', ...args, '--report', 'explore-report.json');
    assert.equal(ok.code, 0, ok.err + ok.out);
    const report = JSON.parse(read(dir, 'explore-report.json')) as { runs: number; faults: Record<string, { tried: number }>; divergences: unknown[] };
    assert.deepEqual(report.divergences, []);
    // One write per controller (the Ready status on apply; a label patch does not bump the generation): two crash points.
    assert.equal(report.faults['crash']!.tried, 2, JSON.stringify(report.faults));
    assert.equal(report.faults['gap']!.tried, 6, 'a gap across each step');

    // Broken on purpose: the Boat controller creates a Crane with a generated name and remembers it only afterwards, on
    // the Boat; a crash between the two writes leaks a Crane.
    const controller = path.join(dir, 'src/controllers/boat-controller.ts');
    const source = read(dir, 'src/controllers/boat-controller.ts');
    const broken = source
      .replace("import { boatResource } from", "import { boatResource, craneResource } from")
      .replace('import type { Boat, ', 'import type { Boat, Crane, ')
      .replace(
        '  // TODO: compare spec',
        [
          "  if (!obj.metadata?.annotations?.['child']) {",
          "    const child = await client.resource<Crane>(craneResource).create({ apiVersion: 'harbor.example.com/v1', kind: 'Crane', metadata: { generateName: `${obj.metadata!.name}-` }, spec: {} });",
          "    obj = await client.resource<Boat>(boatResource, obj.metadata?.namespace).update({ ...obj, metadata: { ...obj.metadata, annotations: { child: child.metadata!.name! } } });",
          '  }',
          '  // TODO: compare spec',
        ].join('\n'),
      );
    assert.notEqual(broken, source);
    fs.writeFileSync(controller, broken);
    const rebuilt = build();
    assert.equal(rebuilt.status, 0, `tsc failed:\n${(rebuilt.stdout + rebuilt.stderr).slice(0, 4000)}`);
    // runCli runs in this process, whose module cache holds the first build: the broken one is loaded from a copy.
    fs.cpSync(path.join(dir, 'dist'), path.join(dir, 'dist-broken'), { recursive: true });
    const bad = await runCli(dir, 'explore', ...args.map((a) => a.replace(/^dist\//, 'dist-broken/')));
    assert.equal(bad.code, 1, bad.err + bad.out);
    assert.match(bad.out, /crash at crash@\d+: during step 1 \(apply Boat default\/boat-sample\), right after #\d+ create cranes boat-sample-\w+/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
