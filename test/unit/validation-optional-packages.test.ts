/**
 * The validation's packages (`@bufbuild/cel`, `@bufbuild/cel-spec`, `@bufbuild/protobuf`, `re2js`) are dependencies of
 * the CLI, at the versions `optional-packages.ts` names, and no dependency of the runtime, not even an optional peer
 * (npm would keep them in a production install beside the CLI: test/integration/newcomer.test.ts checks it); only
 * `src/validation/` imports them; and without them (hidden from resolution by a module hook in a child process)
 * importing `@kubegen/runtime/validation` works and building a validator fails with one error naming them and the
 * install line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { VALIDATION_PACKAGES } from '@kubegen/runtime/internal/validation/optional-packages.js';
import { REPO_ROOT } from '../support/paths.js';

const readJson = (file: string): Record<string, Record<string, unknown>> => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')) as Record<string, Record<string, unknown>>;

describe("the validation's optional packages", () => {
  it('are dependencies of the CLI at the versions the error names, and none of the runtime, not even optional peers', () => {
    const runtime = readJson('packages/runtime/package.json');
    const cli = readJson('packages/kubegen/package.json');
    for (const [name, { version }] of Object.entries(VALIDATION_PACKAGES)) {
      for (const kind of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
        assert.equal(runtime[kind]?.[name], undefined, `${name} is not among the runtime's ${kind}`);
      }
      assert.equal(cli['dependencies']![name], version, `CLI dependencies ${name}`);
    }
  });

  it('are imported by src/validation only', () => {
    const src = path.join(REPO_ROOT, 'packages/runtime/src');
    const offenders = fs
      .globSync('**/*.ts', { cwd: src })
      .filter((f) => !f.startsWith(`validation${path.sep}`))
      .filter((f) => /from '(@bufbuild\/|re2js)|import\('(@bufbuild\/|re2js)/.test(fs.readFileSync(path.join(src, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('missing: the entry imports, and building a validator names them and the npm line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-no-cel-'));
    try {
      const script = path.join(dir, 'probe.mjs');
      fs.writeFileSync(
        script,
        [
          "import { registerHooks } from 'node:module';",
          'registerHooks({ resolve(s, c, next) {',
          '  if (/^(@bufbuild\\/|re2js)/.test(s)) throw Object.assign(new Error(`Cannot find package ${s}`), { code: "MODULE_NOT_FOUND" });',
          '  return next(s, c);',
          '} });',
          `const v = await import(${JSON.stringify(path.join(REPO_ROOT, 'packages/runtime/dist/validation/index.js'))});`,
          "const crd = { metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', names: { kind: 'Widget' }, versions: [] } };",
          'const out = [];',
          'for (const make of [() => v.createValidator(crd), async () => new v.CrdValidator(crd)]) {',
          '  try { await make(); out.push("built"); } catch (err) { out.push(err.message); }',
          '}',
          'console.log(JSON.stringify(out));',
        ].join('\n'),
      );
      const { stdout } = await promisify(execFile)(process.execPath, [script], { encoding: 'utf8' });
      const message =
        '@kubegen/runtime/validation needs the packages @bufbuild/cel, @bufbuild/cel-spec, @bufbuild/protobuf, re2js, which are not installed ' +
        '(the kubegen CLI brings them; @kubegen/runtime does not depend on them): npm install @bufbuild/cel@0.6.1 @bufbuild/cel-spec@0.6.1 @bufbuild/protobuf@2.17.0 re2js@2.10.0';
      assert.deepEqual(JSON.parse(stdout), [message, message]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
