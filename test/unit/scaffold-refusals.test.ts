import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { insertControllerSetup } from 'kubegen/internal/scaffold/main-markers.js';
import { renderText } from 'kubegen/internal/scaffold/render.js';
import { ScaffoldError } from 'kubegen/internal/scaffold/index.js';
import { REPO_ROOT } from '../support/paths.js';
import { runCli } from '../support/cli.js';

const cli = runCli;

/** Every file under `dir` with its content: proves that a refused command wrote and changed nothing. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) files.set(path.relative(dir, path.join(e.parentPath, e.name)), fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));
  }
  return files;
}

function assertOneLineError(res: { code: number; err: string }, pattern: RegExp): void {
  assert.equal(res.code, 1, res.err);
  assert.match(res.err, /^error: [^\n]+\n$/, 'exactly one line on stderr');
  assert.match(res.err, pattern);
}

async function withProject(fn: (dir: string) => Promise<void>): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
  try {
    const dir = path.join(tmp, 'proj');
    assert.equal((await cli(tmp, 'init', '--domain', 'example.com', 'proj')).code, 0);
    await fn(dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

describe('codegen init refuses', () => {
  it('a folder that is not empty, writing nothing', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
    try {
      fs.writeFileSync(path.join(tmp, 'notes.txt'), 'mine');
      const res = await cli(tmp, 'init', '--name', 'demo');
      assertOneLineError(res, /is not empty \(notes\.txt\)/);
      assert.deepEqual([...snapshot(tmp).keys()], ['notes.txt']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('invalid project names, domains and runtime versions, creating no folder', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
    try {
      assertOneLineError(await cli(tmp, 'init', '--name', 'My_Project', 'a'), /project name "My_Project" is not a DNS-1123 label/);
      assertOneLineError(await cli(tmp, 'init', 'Bad_Dir'), /pass --name/);
      assertOneLineError(await cli(tmp, 'init', '--domain', 'Example.com', 'b'), /domain "Example.com" is not a DNS-1123 subdomain/);
      assertOneLineError(await cli(tmp, 'init', '--runtime-version', '1.0"; rm -rf /', 'c'), /not an npm version range/);
      assert.deepEqual(fs.readdirSync(tmp), []);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('codegen init --kubegen-from', () => {
  it('refuses a missing folder, a folder without the tarballs, mismatched versions and --runtime-version with it', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
    try {
      const packs = path.join(tmp, 'packs');
      fs.mkdirSync(packs);
      assertOneLineError(await cli(tmp, 'init', '--kubegen-from', 'nowhere', 'a'), /--kubegen-from .*nowhere: no such file or folder/);
      assertOneLineError(await cli(tmp, 'init', '--kubegen-from', 'packs', 'b'), /no kubegen-runtime-<version>\.tgz and kubegen-<version>\.tgz there \(write them with: npm pack --workspaces/);
      fs.writeFileSync(path.join(packs, 'kubegen-runtime-0.0.9.tgz'), 'r');
      fs.writeFileSync(path.join(packs, 'kubegen-0.1.0.tgz'), 'c');
      assertOneLineError(await cli(tmp, 'init', '--kubegen-from', 'packs', 'c'), /kubegen 0\.1\.0 needs @kubegen\/runtime 0\.1\.0, found only 0\.0\.9/);
      assertOneLineError(await cli(tmp, 'init', '--kubegen-from', 'packs', '--runtime-version', '^0.1.0', 'd'), /exclude each other/);
      assert.deepEqual(fs.readdirSync(tmp), ['packs']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('vendors the tarballs of its own version (else the newest) and installs them as file: dependencies', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
    try {
      const packs = path.join(tmp, 'packs');
      fs.mkdirSync(packs);
      for (const v of ['0.0.9', '0.1.0', '0.10.0']) {
        fs.writeFileSync(path.join(packs, `kubegen-runtime-${v}.tgz`), `runtime ${v}`);
        fs.writeFileSync(path.join(packs, `kubegen-${v}.tgz`), `cli ${v}`);
      }
      const res = await cli(tmp, 'init', '--kubegen-from', 'packs', '--domain', 'example.com', 'proj');
      assert.equal(res.code, 0, res.err);
      const dir = path.join(tmp, 'proj');
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, any>;
      assert.equal(pkg['dependencies']['@kubegen/runtime'], 'file:vendor/kubegen/kubegen-runtime-0.1.0.tgz');
      assert.equal(pkg['devDependencies'].kubegen, 'file:vendor/kubegen/kubegen-0.1.0.tgz');
      assert.equal(fs.readFileSync(path.join(dir, 'vendor/kubegen/kubegen-runtime-0.1.0.tgz'), 'utf8'), 'runtime 0.1.0');
      assert.deepEqual(fs.readdirSync(path.join(dir, 'vendor/kubegen')).sort(), ['kubegen-0.1.0.tgz', 'kubegen-runtime-0.1.0.tgz']);
      assert.match(fs.readFileSync(path.join(dir, 'Dockerfile'), 'utf8'), /^COPY vendor\/kubegen\/ \.\/vendor\/kubegen\/\nRUN npm ci$/m, 'the image build sees the tarballs');
      fs.rmSync(path.join(packs, 'kubegen-runtime-0.1.0.tgz'));
      fs.rmSync(path.join(packs, 'kubegen-0.1.0.tgz'));
      assert.equal((await cli(tmp, 'init', '--kubegen-from', 'packs', 'newest')).code, 0);
      const newest = JSON.parse(fs.readFileSync(path.join(tmp, 'newest/package.json'), 'utf8')) as Record<string, any>;
      assert.equal(newest['dependencies']['@kubegen/runtime'], 'file:vendor/kubegen/kubegen-runtime-0.10.0.tgz', '0.10.0 > 0.0.9 (numeric, not text order)');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('packs a built checkout (this repo) into vendor/kubegen without touching it', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
    try {
      const res = await cli(tmp, 'init', '--kubegen-from', REPO_ROOT, 'proj');
      assert.equal(res.code, 0, res.err);
      const vendor = path.join(tmp, 'proj/vendor/kubegen');
      assert.deepEqual(fs.readdirSync(vendor).sort(), ['kubegen-0.1.0.tgz', 'kubegen-runtime-0.1.0.tgz']);
      for (const f of fs.readdirSync(vendor)) assert.ok(fs.statSync(path.join(vendor, f)).size > 10_000, `${f} holds the package`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('pins the toolchain this repo builds with (templates/init/toolchain.json = the root devDependencies)', async () => {
    const { toolchain } = await import('kubegen/internal/scaffold/init.js');
    const root = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    for (const [name, range] of Object.entries(toolchain())) assert.equal(range, root.devDependencies[name], name);
    assert.deepEqual(Object.keys(toolchain()).sort(), ['@opentelemetry/api', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/resources', '@opentelemetry/sdk-trace-node', '@peculiar/x509', '@types/node', 'node', 'reflect-metadata', 'typescript']);
    const runtime = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'packages/runtime/package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
    for (const peer of ['@peculiar/x509', 'reflect-metadata', '@opentelemetry/api']) assert.equal(runtime.peerDependencies[peer], toolchain()[peer], `the runtime's optional peer ${peer}`);
    const cli = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'packages/kubegen/package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };
    assert.equal(cli.optionalDependencies['node'], toolchain()['node'], 'the CLI brings the same Node it pins in projects');
  });
});

describe('codegen create api refuses', () => {
  it('invalid kind, group, version and plural names with one line, exit 1, nothing written', () =>
    withProject(async (dir) => {
      const before = snapshot(dir);
      const api = (...flags: string[]) => cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', ...flags);
      assertOneLineError(await api('--kind', 'frigate'), /kind "frigate" must start with an upper-case letter/);
      assertOneLineError(await api('--kind', 'Foo-Bar'), /kind "Foo-Bar" must match/);
      assertOneLineError(await api('--kind', 'Manager'), /clashes with a name the scaffolded code imports/);
      assertOneLineError(await api('--kind', 'ThingList'), /must not end in "List"/);
      assertOneLineError(await api('--kind', 'Frigate', '--plural', 'Frigates!'), /plural "Frigates!" is not a DNS-1123 label/);
      assertOneLineError(await cli(dir, 'create', 'api', '--group', 'Ships', '--version', 'v1', '--kind', 'Frigate'), /group "Ships" is not a DNS-1123 label/);
      assertOneLineError(await cli(dir, 'create', 'api', '--group', '../x', '--version', 'v1', '--kind', 'Frigate'), /group "..\/x"/);
      assertOneLineError(await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'V1', '--kind', 'Frigate'), /version name "V1" is not a Kubernetes version/);
      assert.deepEqual(snapshot(dir), before);
    }));

  it('an existing kind, leaving every file as it was', () =>
    withProject(async (dir) => {
      assert.equal((await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate')).code, 0);
      const before = snapshot(dir);
      assertOneLineError(
        await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate', '--controller=false'),
        /kind Frigate already exists in ships\.example\.com\/v1/,
      );
      // A types file the project file does not know about is not overwritten either.
      fs.writeFileSync(path.join(dir, 'apis/ships/v1/harbor_types.ts'), '// mine\n');
      const withHarbor = snapshot(dir);
      assertOneLineError(await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Harbor'), /harbor_types\.ts already exists/);
      assert.deepEqual(snapshot(dir), withHarbor);
      // A second version of the kind may not get a second controller.
      assertOneLineError(await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate'), /controller for kind Frigate .* already exists/);
      fs.rmSync(path.join(dir, 'apis/ships/v1/harbor_types.ts'));
      assert.deepEqual(snapshot(dir), before);
    }));

  it('outside a project made by codegen init', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-scaffold-'));
    try {
      assertOneLineError(await cli(tmp, 'create', 'api', '--group', 'a', '--version', 'v1', '--kind', 'B'), /run "kubegen init" first/);
      assert.deepEqual(fs.readdirSync(tmp), []);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a boolean flag that is neither true nor false (usage error, exit 2)', () =>
    withProject(async (dir) => {
      const res = await cli(dir, 'create', 'api', '--group', 'a', '--version', 'v1', '--kind', 'B', '--namespaced=maybe');
      assert.equal(res.code, 2);
      assert.match(res.err, /expected true or false/);
    }));
});

describe('codegen create api', () => {
  it('is what generate asks for in a fresh project', () =>
    withProject(async (dir) => {
      const res = await cli(dir, 'generate');
      assertOneLineError(res, /apis: no root kind found/);
    }));

  it('a second version of a kind marks the first as the storage version and adds no controller', () =>
    withProject(async (dir) => {
      assert.equal((await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate')).code, 0);
      const res = await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v2', '--kind', 'Frigate', '--controller=false');
      assert.equal(res.code, 0, res.err);
      const v1 = fs.readFileSync(path.join(dir, 'apis/ships/v1/frigate_types.ts'), 'utf8');
      assert.match(v1, / \* \+kubebuilder:object:root=true\n \* \+kubebuilder:storageversion\n \* \+kubebuilder:subresource:status\n/);
      assert.doesNotMatch(fs.readFileSync(path.join(dir, 'apis/ships/v2/frigate_types.ts'), 'utf8'), /storageversion/);
      assert.equal(fs.readFileSync(path.join(dir, 'src/main.ts'), 'utf8').match(/setupFrigateController\(mgr\)/g)?.length, 1);
    }));

  it('a custom plural becomes a +kubebuilder:resource:path marker', () =>
    withProject(async (dir) => {
      const res = await cli(dir, 'create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Octopus', '--plural', 'octopi', '--namespaced=false');
      assert.equal(res.code, 0, res.err);
      assert.match(fs.readFileSync(path.join(dir, 'apis/ships/v1/octopus_types.ts'), 'utf8'), /\+kubebuilder:resource:path=octopi,scope=Cluster\n/);
      assert.match(fs.readFileSync(path.join(dir, 'src/controllers/octopus-controller.ts'), 'utf8'), /client\.resource<Octopus>\(octopusResource\);/, 'cluster-scoped: no namespace');
      assert.match(fs.readFileSync(path.join(dir, 'test/envtest/octopus-controller.test.ts'), 'utf8'), /new Clientset\(transport\)\.shipsV1\.octopi\(\);/);
    }));
});

describe('scaffold helpers', () => {
  it('renderText substitutes placeholders and rejects missing or unused values', () => {
    assert.equal(renderText('a {{x}} b {{x}} {{y}}', { x: '1', y: '2' }), 'a 1 b 1 2');
    assert.throws(() => renderText('{{x}}', {}), /no value for \{\{x\}\}/);
    assert.throws(() => renderText('x', { x: '1' }), /unused values x/);
  });

  it('insertControllerSetup keeps the marker indentation and needs both markers', () => {
    const text = 'import a;\n// +kubegen:scaffold:imports\nasync function f() {\n  // +kubegen:scaffold:controllers\n}\n';
    assert.equal(
      insertControllerSetup(text, 'Foo', './controllers/foo-controller.js'),
      "import a;\nimport { setupFooController } from './controllers/foo-controller.js';\n// +kubegen:scaffold:imports\n" +
        'async function f() {\n  setupFooController(mgr);\n  // +kubegen:scaffold:controllers\n}\n',
    );
    assert.throws(() => insertControllerSetup('// +kubegen:scaffold:imports\n', 'Foo', './x.js'), ScaffoldError);
  });
});
