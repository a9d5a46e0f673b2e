import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emitDeepCopy } from '../../src/generate/deepcopy/index.js';
import { TypeGraph, emitTypes } from '../../src/generate/types/index.js';
import { groupVersions } from '../../src/model/index.js';
import { parseCrdPaths } from '../../src/parse/crd/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const golden = join(repo, 'test/golden/samplecontroller.k8s.io/v1alpha1');

/** Golden output for the sample-controller Foo. Regenerate with `UPDATE_GOLDEN=1`. */
describe('golden: sample-controller Foo', () => {
  it('types.ts and deepcopy.ts match test/golden', async () => {
    const model = await parseCrdPaths([join(repo, 'fixtures/crds/sample-controller/crd-status-subresource.yaml')]);
    const [gv] = groupVersions(model);
    assert.ok(gv);
    const graph = new TypeGraph(gv);
    const files = { 'types.ts': emitTypes(gv, { graph }), 'deepcopy.ts': emitDeepCopy(gv, { graph }) };
    for (const [name, content] of Object.entries(files)) {
      const path = join(golden, name);
      if (process.env['UPDATE_GOLDEN'] === '1' || !existsSync(path)) {
        if (process.env['UPDATE_GOLDEN'] !== '1') assert.fail(`${path} is missing; run with UPDATE_GOLDEN=1`);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
      }
      assert.equal(content, readFileSync(path, 'utf8'), `${name} differs from ${path}; rerun with UPDATE_GOLDEN=1 if intended`);
    }
  });
});
