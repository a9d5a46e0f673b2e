import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emitDeepCopy } from 'kubegen/internal/generate/deepcopy/index.js';
import { TypeGraph, emitTypes } from 'kubegen/internal/generate/types/index.js';
import { groupVersions } from 'kubegen/internal/model/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');

function corpusFiles(): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(p)) files.push(p);
    }
  };
  walk(join(repo, 'fixtures/crds'));
  return files;
}

describe('corpus', () => {
  it('every corpus CRD emits types.ts and deepcopy.ts that type-check (strict)', async () => {
    const dir = join(repo, 'dist/tmp-types-test/corpus');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = corpusFiles();
    assert.equal(files.length, 56);
    let modules = 0;
    for (const [i, file] of files.entries()) {
      const model = await parseCrdPaths([file]);
      for (const gv of groupVersions(model)) {
        const graph = new TypeGraph(gv);
        const types = emitTypes(gv, { graph });
        const deepcopy = emitDeepCopy(gv, { graph });
        for (const kv of gv.kinds) {
          const kind = kv.resource.names.kind;
          assert.match(types, new RegExp(`^export interface ${kind} \\{$`, 'm'), `${file}: ${kind}`);
          assert.match(types, new RegExp(`^export interface ${kind}List \\{$`, 'm'));
          assert.match(deepcopy, new RegExp(`^export function deepCopy${kind}\\(src: types\\.${kind}\\): types\\.${kind} \\{$`, 'm'));
          assert.match(deepcopy, new RegExp(`^export function deepCopy${kind}List\\(`, 'm'));
        }
        assert.doesNotMatch(types.replace(/\/\*\*[\s*\S]*?\*\//g, ''), /:\s*\[|\| \[/, 'no tuples');
        assert.equal(emitTypes(gv), types, 'deterministic');
        const out = join(dir, String(i), gv.group, gv.version);
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, 'types.ts'), types);
        writeFileSync(join(out, 'deepcopy.ts'), deepcopy);
        modules++;
      }
    }
    assert.ok(modules >= 79, `${modules} group/version modules`);
    // The built runtime's declarations: generated types name its core types (PodTemplateSpec, Container, …).
    writeFileSync(join(dir, 'runtime-shim.ts'), `export * from ${JSON.stringify(join(repo, 'packages/runtime/dist/index.js'))};\n`);
    const tsconfig = {
      compilerOptions: {
        strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023'], types: ['node'],
        skipLibCheck: true, verbatimModuleSyntax: true, noUnusedLocals: true, paths: { '@kubegen/runtime': ['./runtime-shim.ts'] },
      },
      include: ['**/*.ts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    let output = '';
    try {
      execFileSync(join(repo, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      output = `${err.stdout ?? ''}${err.stderr ?? ''}` || String(e);
    }
    assert.equal(output, '');
  });
});
