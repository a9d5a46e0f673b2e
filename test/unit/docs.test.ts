/**
 * Documentation that cannot drift (issue 10): every ```ts block of README.md and docs/ compiles (tsc --strict)
 * against the current runtime, each block as its own module, next to the code `kubegen generate` writes for the
 * sample-controller Foo CRD (so blocks import `./generated/index.js`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generate } from 'kubegen/internal/generate/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { spawnSync } from 'node:child_process';
import { fixture, REPO_ROOT, SAMPLE_CRD, TSC } from '../support/paths.js';
import { typeCheckProject } from '../support/type-check.js';
import { referenceDocs, staleFiles } from '../../hack/docs/reference.js';
import { cliReference, commandNames, kubegenProgram } from '../../hack/docs/cli-reference.js';
import { apiReference } from '../../hack/docs/typedoc.js';
import { publicEntryPoints } from '../../hack/docs/api-entry-points.js';

/**
 * README.md and every Markdown file under docs/, repository-relative; not the API reference (docs/api/), whose
 * ```ts blocks are TypeDoc's signatures, not programs.
 */
export function docFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = `${dir}/${e.name}`;
      if (rel === 'docs/api') continue;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** The ```ts blocks of a Markdown text: their first line number (1-based, the line after the fence) and code. */
export function tsBlocks(text: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

describe('documentation', () => {
  it('every ```ts block in README.md and docs/ compiles against the current runtime and generated code', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-docs-'));
    try {
      // sample-controller's accessors as examples/sample-controller/codegen.config.yaml names them; the widgets' the default.
      for (const f of generate(await parseCrdPaths([SAMPLE_CRD, fixture('docs', 'widgets.yaml')]), { groupAccessors: { 'samplecontroller.k8s.io': 'samplecontroller' } })) {
        fs.mkdirSync(path.dirname(path.join(dir, 'generated', f.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, 'generated', f.path), f.content);
      }
      const where = new Map<string, string>();
      let n = 0;
      for (const file of docFiles()) {
        for (const b of tsBlocks(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))) {
          // A block whose first line is `// <name>.ts` is that file (other blocks may import it); else blockN.ts.
          const named = /^\/\/ ([\w.-]+\.ts)$/.exec(b.code.split('\n')[0]!)?.[1];
          const name = named ?? `block${n}.ts`;
          n++;
          assert.ok(!where.has(name), `${file}:${b.line}: a second block named ${name}`);
          where.set(name, `${file}:${b.line}`);
          fs.writeFileSync(path.join(dir, name), `${b.code}\n`);
        }
      }
      assert.ok(n >= 10, `${n} blocks found`);
      // Packages the guides import besides the runtime: pino (the adapter's example) and prom-client (custom metrics).
      fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
      for (const pkg of ['pino', 'prom-client']) fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', pkg), path.join(dir, 'node_modules', pkg), 'dir');
      const output = typeCheckProject(dir, { noUnusedLocals: false, moduleDetection: 'force' });
      // tsc names `blockN.ts(line,col)`: say which document and line that is.
      const readable = output.replace(/(?:[^\s(]*\/)?([\w.-]+\.ts)\((\d+),(\d+)\)/g, (m: string, f: string, l: string, c: string) => {
        const at = where.get(f);
        if (!at) return m;
        const [file, line] = [at.slice(0, at.lastIndexOf(':')), Number(at.slice(at.lastIndexOf(':') + 1))];
        return `${file}:${line + Number(l) - 1}:${c}`;
      });
      assert.equal(readable, '', readable.slice(0, 4000));

      // Blocks named `*.test.ts` are unit tests of the guides' code on the fake clientset: they must also pass.
      const tests = [...where.keys()].filter((f) => f.endsWith('.test.ts'));
      assert.ok(tests.length >= 1, 'a unit test block in the docs');
      const emit = spawnSync(TSC, ['-p', dir, '--noEmit', 'false', '--outDir', path.join(dir, 'out')], { encoding: 'utf8' });
      assert.equal(emit.status, 0, emit.stdout + emit.stderr);
      fs.writeFileSync(path.join(dir, 'out', 'package.json'), JSON.stringify({ type: 'module' }));
      // Without NODE_TEST_CONTEXT: inherited from this test runner, it makes the child report to a parent and exit 0
      // whatever its tests do.
      const { NODE_TEST_CONTEXT: _, ...env } = process.env;
      const run = spawnSync(process.execPath, ['--test', ...tests.map((f) => path.join(dir, 'out', f.replace(/\.ts$/, '.js')))], { encoding: 'utf8', env: { ...env, NODE_OPTIONS: '' } });
      assert.equal(run.status, 0, `${tests.map((t) => where.get(t)).join(', ')}:\n${run.stdout.slice(-3000)}${run.stderr}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI, marker and API references in docs/ are current (npm run docs), and every public export has a doc comment', () => {
    const { files, errors, log } = referenceDocs(REPO_ROOT);
    assert.deepEqual(errors, [], log);
    for (const [rel, text] of Object.entries(files)) {
      const onDisk = fs.existsSync(path.join(REPO_ROOT, rel)) ? fs.readFileSync(path.join(REPO_ROOT, rel), 'utf8') : '(missing)';
      assert.ok(onDisk === text, `${rel} is out of date: run npm run docs`);
    }
    assert.deepEqual(staleFiles(REPO_ROOT, files), [], 'pages of modules that are gone: run npm run docs');
    assert.match(files['docs/markers.md']!, /\| `\+kubebuilder:printcolumn` \|  \| `name`\*: string, `type`\*: string, `JSONPath`\*: string/);

    // docs/cli.md: a section per command of the program tree, with its usage and options.
    const cli = files['docs/cli.md']!;
    const names = commandNames(kubegenProgram(REPO_ROOT));
    for (const name of ['kubegen', 'kubegen generate', 'kubegen verify', 'kubegen sample', 'kubegen dashboard', 'kubegen init', 'kubegen create api', 'kubegen create webhook', 'kubegen loadtest']) {
      assert.ok(names.includes(name), `${name} in the program tree: ${names.join(', ')}`);
    }
    for (const name of names) assert.match(cli, new RegExp(`^## \`${name}\`\n\n[^\n]+\n\n\`\`\`text\n${name} `, 'm'), `section of ${name}`);
    assert.match(cli, /## `kubegen create webhook`[\s\S]*?\| `--group <group>` \| API group, without the domain \(required\) \|/);
    assert.match(cli, /## `kubegen loadtest`[\s\S]*?\| `<command\.\.\.>` \| the controller command/);
    assert.match(cli, /\| \[`sample \[options\]`\]\(#kubegen-sample\) \| print a minimal valid object/);

    // The API reference: a function's signature with its parameter types, its doc comment and a parameter table.
    const helpers = files['docs/api/runtime/helpers-for-reconcilers.md']!;
    assert.match(helpers, /### setStatusCondition\(\)\n\n```ts\nfunction setStatusCondition\(\n\s+conditions: Condition\[\],\n\s+condition: ConditionInput,\n\s+now\?: \(\) => Date\n\): boolean;\n```\n\nAdds `condition` to `conditions`, or updates the one of the same `type`/);
    assert.match(helpers, /\| `condition` \| \[`ConditionInput`\]\(#conditioninput\) \|/);
    // Pages link each other relatively, and the index lists every page and every entry point of the packages.
    assert.match(helpers, /\[`Condition`\]\(kubernetes-object-and-api-types\.md#condition\)/);
    const index = files['docs/api/README.md']!;
    const modules = publicEntryPoints(REPO_ROOT).map((e) => e.module);
    for (const m of ['@kubegen/runtime', '@kubegen/runtime/testing', '@kubegen/runtime/testing/envtest', '@kubegen/runtime/testing/fake', '@kubegen/runtime/testing/loadtest', 'kubegen']) {
      assert.ok(modules.includes(m), `${m} among the entry points: ${modules.join(', ')}`);
    }
    for (const m of modules) assert.ok(index.includes(`| [${m}:`) || index.includes(`| [${m}](`), `docs/api/README.md lists ${m}`);
    for (const page of Object.keys(files).filter((f) => f.startsWith('docs/api/') && f !== 'docs/api/README.md')) {
      assert.ok(index.includes(`](${page.slice('docs/api/'.length)})`), `docs/api/README.md links ${page}`);
    }
  });

  it('docs/cli.md follows the program: a command added to it gets its section', () => {
    const program = kubegenProgram(REPO_ROOT);
    program.command('frobnicate').description('a command this test adds').option('--widgets <n>', 'how many widgets');
    const cli = cliReference(program);
    assert.match(cli, /\| \[`frobnicate \[options\]`\]\(#kubegen-frobnicate\) \| a command this test adds \|/);
    assert.match(cli, /## `kubegen frobnicate`\n\na command this test adds\n\n```text\nkubegen frobnicate \[options\]\n```\n\n\| option \| description \|\n\|---\|---\|\n\| `--widgets <n>` \| how many widgets \|/);
  });

  it('a public export without a doc comment stops the API reference, naming the module, the export, its file and line', () => {
    const { files, errors } = apiReference(REPO_ROOT, [{ module: 'fixture', index: 'fixtures/docs/api/index.ts' }]);
    assert.deepEqual(errors, ['fixture: export undocumentedHelper (fixtures/docs/api/helpers.ts:6) has no doc comment']);
    assert.deepEqual(files, {});
  });
});
