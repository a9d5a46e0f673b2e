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

/**
 * The whole corpus (56 CRDs from 19 projects) generates, and the output compiles with `tsc --strict --noEmit` in a
 * fresh folder whose only dependency is `node_modules/@kubegen/runtime` (the runtime package, built), as a user's project would.
 */
test('every corpus CRD generates and the output compiles under tsc --strict next to node_modules/@kubegen/runtime', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-corpus-'));
  try {
    let crds = 0;
    for (const [i, run] of corpusRuns().entries()) {
      const model = await parseCrdPaths(run);
      crds += model.resources.length;
      for (const f of generate(model)) {
        assert.ok(f.content.startsWith(`${HEADER}\n`), `${f.path} starts with the header`);
        const target = path.join(dir, 'generated', `run${i}`, f.path);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, f.content);
      }
    }
    assert.equal(crds, 56, 'all 56 CRDs are read');
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
