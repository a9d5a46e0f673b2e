import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { findConfigFile, parseConfigText } from 'kubegen/internal/config/config-file.js';
import { resolveConfig } from 'kubegen/internal/config/resolve-config.js';
import { UsageError } from 'kubegen/internal/cli/errors.js';
import { InputError } from 'kubegen/internal/model/errors.js';

describe('parseConfigText', () => {
  const file = '/proj/conf/codegen.config.yaml';

  it('reads crds, out and runtimeImport, resolving paths against the config folder', () => {
    const c = parseConfigText('crds:\n  - crds/\n  - ../other/x.yaml\nout: src/generated\nruntimeImport: "@me/runtime"\n', file);
    assert.deepEqual(c, {
      file,
      crds: ['/proj/conf/crds', '/proj/other/x.yaml'],
      out: '/proj/conf/src/generated',
      runtimeImport: '@me/runtime',
    });
  });

  it('reads JSON', () => {
    const c = parseConfigText('{"crds": ["a.yaml"], "out": "/abs/out"}', '/p/codegen.config.json');
    assert.deepEqual(c, { file: '/p/codegen.config.json', crds: ['/p/a.yaml'], out: '/abs/out' });
  });

  it('treats an empty file as no settings', () => {
    assert.deepEqual(parseConfigText('', file), { file });
    assert.deepEqual(parseConfigText('# nothing\n', file), { file });
  });

  it('rejects an unknown key naming it, the file, line and column', () => {
    assert.throws(
      () => parseConfigText('out: gen\n  # c\ncrd: [a.yaml]\n', file, 'codegen.config.yaml'),
      (e: unknown) => {
        assert.ok(e instanceof InputError);
        assert.equal(e.message, 'codegen.config.yaml:3:1: unknown key "crd"; did you mean "crds"? (known keys: crds, apis, out, crdOut, rbacOut, webhookOut, rbacSources, runtimeImport, coreTypes, groupAccessors, fromCluster)');
        return true;
      },
    );
  });

  it('rejects wrongly typed values with the key and position', () => {
    assert.throws(() => parseConfigText('crds: a.yaml\n', file, 'c.yaml'), /c\.yaml:1:7 \(at crds\): crds must be a non-empty list/);
    assert.throws(() => parseConfigText('crds: []\n', file, 'c.yaml'), /c\.yaml:1:7 \(at crds\): crds must be a non-empty list/);
    assert.throws(() => parseConfigText('crds:\n  - ok.yaml\n  - 3\n', file, 'c.yaml'), /c\.yaml:3:5 \(at crds\[1\]\): crds\[1\] must be a file or folder path/);
    assert.throws(() => parseConfigText('out: 12\n', file, 'c.yaml'), /c\.yaml:1:6 \(at out\): out must be a folder path/);
    assert.throws(() => parseConfigText('runtimeImport: ""\n', file, 'c.yaml'), /runtimeImport must be a non-empty string/);
    assert.throws(() => parseConfigText('- a\n- b\n', file, 'c.yaml'), /c\.yaml:1:1: config file must be a mapping/);
  });

  it('reports YAML syntax errors and duplicate keys with a position', () => {
    assert.throws(() => parseConfigText('out: [a\ncrds: b\n', file, 'c.yaml'), /c\.yaml:\d+:\d+: \S/);
    assert.throws(() => parseConfigText('out: a\nout: b\n', file, 'c.yaml'), /c\.yaml:2:1: .*unique/i);
  });
});

describe('resolveConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('uses flags alone when there is no config file', async () => {
    const c = await resolveConfig({ crds: ['a.yaml', 'dir'], out: 'gen' }, dir);
    assert.deepEqual(c, { inputs: { crds: [path.join(dir, 'a.yaml'), path.join(dir, 'dir')] }, out: path.join(dir, 'gen'), quiet: false });
  });

  it('finds codegen.config.yaml in the working directory; flags override its values', async () => {
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'crds: [crds/]\nout: gen\nruntimeImport: my-runtime\n');
    const fromFile = await resolveConfig({}, dir);
    assert.deepEqual(fromFile, {
      inputs: { crds: [path.join(dir, 'crds')] },
      out: path.join(dir, 'gen'),
      runtimeImport: 'my-runtime',
      quiet: false,
      configFile: path.join(dir, 'codegen.config.yaml'),
    });
    const overridden = await resolveConfig({ out: 'elsewhere', runtimeImport: '@kubegen/runtime', quiet: true }, dir);
    assert.equal(overridden.out, path.join(dir, 'elsewhere'));
    assert.equal(overridden.runtimeImport, '@kubegen/runtime');
    assert.deepEqual(overridden.inputs.crds, [path.join(dir, 'crds')]);
    assert.equal(overridden.quiet, true);
  });

  it('loads an explicit --config with paths relative to that file', async () => {
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'my.json'), '{"crds": ["x.yaml"], "out": "o"}');
    const c = await resolveConfig({ config: 'sub/my.json' }, dir);
    assert.deepEqual(c.inputs.crds, [path.join(dir, 'sub', 'x.yaml')]);
    assert.equal(c.out, path.join(dir, 'sub', 'o'));
  });

  it('fails clearly on a missing explicit config file', async () => {
    await assert.rejects(resolveConfig({ config: 'nope.yaml' }, dir), /nope\.yaml: cannot read config file: no such file/);
  });

  it('is a usage error when no input or no output is given', async () => {
    await assert.rejects(resolveConfig({ out: 'gen' }, dir), (e: unknown) => e instanceof UsageError && /no input: pass --crds/.test(e.message));
    await assert.rejects(resolveConfig({ crds: ['a'] }, dir), (e: unknown) => e instanceof UsageError && /no output folder: pass --out/.test(e.message));
  });

  it('refuses to guess between two config files', async () => {
    fs.writeFileSync(path.join(dir, 'codegen.config.yaml'), 'out: a\n');
    fs.writeFileSync(path.join(dir, 'codegen.config.json'), '{}');
    await assert.rejects(findConfigFile(dir), /found codegen\.config\.yaml and codegen\.config\.json/);
  });

  it('finds .yml and .json names', async () => {
    fs.writeFileSync(path.join(dir, 'codegen.config.yml'), 'out: a\n');
    assert.equal(await findConfigFile(dir), path.join(dir, 'codegen.config.yml'));
    fs.rmSync(path.join(dir, 'codegen.config.yml'));
    assert.equal(await findConfigFile(dir), undefined);
  });
});
