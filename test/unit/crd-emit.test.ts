/** The CRD YAML emitter and the ownership rule of YAML outputs (`src/generate/crd`). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { OutputOwnershipError } from 'kubegen/internal/output/write.js';
import { verifyYamlOutput, writeYamlOutput } from 'kubegen/internal/output/yaml-output.js';
import { crdFileName, emitCrds, YAML_HEADER } from 'kubegen/internal/generate/crd/index.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { fixture } from '../support/paths.js';

describe('CRD emitter', () => {
  it('writes CRDs the CRD front end reads back into the same model (corpus sample)', async () => {
    for (const f of ['gateway-api/gateway.networking.k8s.io_httproutes.yaml', 'cert-manager/cert-manager.io_certificates.yaml', 'keda']) {
      const model = await parseCrdPaths([fixture('crds', ...f.split('/'))]);
      for (const file of emitCrds(model)) {
        assert.ok(file.content.startsWith(`${YAML_HEADER}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n`));
        const back = parseCrdText(file.content, file.path)[0]!;
        const orig = model.resources.find((r) => crdFileName(r) === file.path)!;
        const strip = (r: typeof orig): unknown => JSON.parse(JSON.stringify({ ...r, source: undefined, versions: r.versions.map((v) => ({ ...v, source: undefined })) }));
        assert.deepEqual(strip(back), strip(orig), file.path);
      }
    }
  });

  it('sorts keys and names files <group>_<plural>.yaml', async () => {
    const model = await parseCrdPaths([fixture('crds', 'sample-controller', 'crd-status-subresource.yaml')]);
    const [f] = emitCrds(model);
    assert.equal(f!.path, 'samplecontroller.k8s.io_foos.yaml');
    assert.match(f!.content, /\n {6}openAPIV3Schema:\n {8}properties:\n {10}spec:\n {12}properties:\n {14}deploymentName:\n {16}type: string\n {14}replicas:\n {16}maximum: 10\n {16}minimum: 1\n/);
  });
});

describe('YAML output ownership', () => {
  it('writes, refuses foreign files, prunes only owned stale files, and verifies', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-yaml-'));
    try {
      const a = { path: 'a.yaml', content: `${YAML_HEADER}\na: 1\n` };
      const b = { path: 'b.yaml', content: `${YAML_HEADER}\nb: 1\n` };
      fs.writeFileSync(path.join(dir, 'mine-by-hand.yaml'), 'kind: Kustomization\n');
      await writeYamlOutput(dir, [a, b], { prune: true });
      assert.deepEqual(fs.readdirSync(dir).sort(), ['a.yaml', 'b.yaml', 'mine-by-hand.yaml']);
      assert.equal((await verifyYamlOutput(dir, [a, b], { prune: true })).upToDate, true);

      const v = await verifyYamlOutput(dir, [{ ...a, content: `${YAML_HEADER}\na: 2\n` }], { prune: true });
      assert.deepEqual([v.upToDate, v.changed.map((c) => c.path), v.extra, v.missing], [false, ['a.yaml'], ['b.yaml'], []]);

      await writeYamlOutput(dir, [a], { prune: true });
      assert.deepEqual(fs.readdirSync(dir).sort(), ['a.yaml', 'mine-by-hand.yaml'], 'b.yaml pruned, the foreign file kept');

      await assert.rejects(writeYamlOutput(dir, [{ path: 'mine-by-hand.yaml', content: `${YAML_HEADER}\n` }, b]), OutputOwnershipError);
      assert.equal(fs.readFileSync(path.join(dir, 'mine-by-hand.yaml'), 'utf8'), 'kind: Kustomization\n');
      assert.ok(!fs.existsSync(path.join(dir, 'b.yaml')), 'nothing written when one target is foreign');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
