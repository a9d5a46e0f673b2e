/**
 * The committed built-in API is what kubegen generates from the Kubernetes sources today: the runtime's `src/api/`
 * folder and kubegen's model file, byte for byte (`npm run generate:builtin-api` rewrites both).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BUILTIN_API_FILE } from 'kubegen/internal/builtin-api/index.js';
import { builtinApiOutputs } from 'kubegen/internal/builtin-api/regenerate.js';
import { MARKER_FILE } from 'kubegen/internal/output/output-files.js';
import { KUBE_SOURCES, NEEDS_KUBE_SOURCES } from '../support/kube-sources.js';
import { REPO_ROOT } from '../support/paths.js';

const API_DIR = path.join(REPO_ROOT, 'packages', 'runtime', 'src', 'api');

describe('the committed built-in API', () => {
  it('is what the Kubernetes sources generate (else: npm run generate:builtin-api)', NEEDS_KUBE_SOURCES, (t) => {
    const out = builtinApiOutputs(KUBE_SOURCES!);
    t.diagnostic(`Kubernetes ${out.kubernetesVersion}: ${out.files.length} files`);
    const stale: string[] = [];
    if (fs.readFileSync(BUILTIN_API_FILE, 'utf8') !== out.modelJson) stale.push(path.relative(REPO_ROOT, BUILTIN_API_FILE));
    const expected = new Set(out.files.map((f) => f.path));
    for (const f of out.files) {
      const file = path.join(API_DIR, f.path);
      if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== f.content) stale.push(`packages/runtime/src/api/${f.path}`);
    }
    for (const f of fs.globSync('**/*', { cwd: API_DIR, withFileTypes: false }) as string[]) {
      if (f !== MARKER_FILE && fs.statSync(path.join(API_DIR, f)).isFile() && !expected.has(f.split(path.sep).join('/'))) stale.push(`packages/runtime/src/api/${f} (no longer generated)`);
    }
    assert.deepEqual(stale, [], 'stale built-in API files: run npm run generate:builtin-api');
  });
});
