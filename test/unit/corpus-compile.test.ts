import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { HEADER } from 'kubegen/internal/generate/emit-util.js';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';
import { corpusRuns } from '../support/corpus.js';
import { GENUINE_DIGITS, typeNameProblems } from '../support/type-names.js';
import { groupVersions } from 'kubegen/internal/model/index.js';

/**
 * The whole corpus (56 CRDs from 19 projects) generates — plain and with markers (`--emit-markers`) — and the output
 * compiles with `tsc --strict --noUnusedLocals --noEmit` in a fresh folder whose only dependency is
 * `node_modules/@kubegen/runtime` (the runtime package, built), as a user's project would. Every field's type reads as
 * its own: no type name rooted in another kind or after an unrelated field, none ending in a collision number
 * (`test/support/type-names.ts`).
 */
test('every corpus CRD generates, plain and with markers, with names of their own, and the output compiles under tsc --strict next to node_modules/@kubegen/runtime', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-corpus-'));
  try {
    let crds = 0;
    const problems: string[] = [];
    for (const [i, run] of corpusRuns().entries()) {
      const model = await parseCrdPaths(run);
      crds += model.resources.length;
      for (const mode of ['plain', 'marked'] as const) {
        const files = generate(model, { emitMarkers: mode === 'marked' });
        for (const f of files) {
          assert.ok(f.content.startsWith(`${HEADER}\n`), `${f.path} starts with the header`);
          const target = path.join(dir, 'generated', mode, `run${i}`, f.path);
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, f.content);
        }
        for (const gv of groupVersions(model)) {
          const types = files.find((f) => f.path === `${gv.group}/${gv.version}/types.ts`)!.content;
          const apply = files.find((f) => f.path === `${gv.group}/${gv.version}/applyconfigurations.ts`)!.content;
          const kinds = gv.kinds.map((k) => k.resource.names.kind);
          problems.push(...typeNameProblems(types, kinds).map((p) => `${mode} ${gv.group}/${gv.version}: ${p}`));
          for (const m of apply.matchAll(/^export (?:interface|type) (\w+)/gm)) {
            if (/\d$/.test(m[1]!) && !GENUINE_DIGITS.test(m[1]!)) problems.push(`${mode} ${gv.group}/${gv.version}: ${m[1]} ends in a number`);
          }
        }
      }
    }
    assert.equal(crds, 56, 'all 56 CRDs are read');
    assert.deepEqual(problems, []);
    linkRuntimePackage(dir);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'corpus-user', type: 'module', private: true }));
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUnusedLocals: true,
          noEmit: true,
          target: 'es2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2023'],
          types: ['node'],
          typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')],
          skipLibCheck: false,
        },
        include: ['generated'],
      }),
    );
    const res = spawnSync(TSC, ['-p', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(res.status, 0, `tsc failed:\n${(res.stdout + res.stderr).slice(0, 4000)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
