/**
 * YAML kubegen writes (CRDs, RBAC, webhook manifests, samples) reads back as the same data in YAML 1.2 and YAML 1.1
 * readers and in PyYAML (Ansible, yamllint): strings with a TAB, a leading `*`, `: `, `#`, YAML 1.1 booleans and
 * number-like strings are quoted (`generate/portable-yaml.ts`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { emitCrds } from 'kubegen/internal/generate/crd/index.js';
import { portableYaml } from 'kubegen/internal/generate/portable-yaml.js';
import { parseApis } from 'kubegen/internal/parse/typescript/index.js';

/** Strings a plain YAML scalar would break or change in some reader. */
const AWKWARD = [
  'a\tb', '\tleading tab', 'trailing tab\t', '*star', '&anchor', 'key: value', 'a #comment', '# comment', 'on', 'off', 'yes', 'No',
  'y', 'n', 'true', 'null', '~', '012', '0o17', '0x1F', '1e3', '1_000', '1:30', '.5', '+1', '.inf', '2001-12-14', '- item',
  '? key', '@at', '`tick', '%pct', '!tag', '|', '>', "'single", '"double', ' padded ', 'multi\nline\twith a tab', 'multi\n\tindented',
];

/** PyYAML's reading of `text` as JSON, or undefined when python3 with PyYAML is not installed. */
function pyyaml(text: string): { ok: true; value: unknown } | { ok: false; error: string } | undefined {
  const probe = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return undefined;
  const r = spawnSync('python3', ['-c', 'import sys, json, yaml\nfor d in yaml.safe_load_all(sys.stdin):\n    json.dump(d, sys.stdout, default=str)\n    print()'], { input: text, encoding: 'utf8' });
  if (r.status !== 0) return { ok: false, error: r.stderr };
  return { ok: true, value: r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown) };
}

describe('portable YAML', () => {
  it('quotes what a YAML 1.1 or 1.2 reader would misread, and a TAB on one line; plain stays plain', () => {
    const value = { items: AWKWARD, [`key\twith tab`]: 'x', on: 'plain words stay plain', n: 1 };
    const text = portableYaml(value, { indentSeq: false });
    assert.deepEqual(parse(text), value, 'YAML 1.2');
    assert.deepEqual(parse(text, { version: '1.1' }), value, 'YAML 1.1');
    assert.match(text, /^- "a\\tb"$/m, 'a TAB on one line is double-quoted');
    assert.match(text, /^- \|-\n {2}multi\n {2}line\twith a tab$/m, 'a multi-line string stays a block literal');
    for (const s of ['on', 'yes', 'No', 'y', '012', '0o17', '1_000', '1:30', '2001-12-14', '*star', 'key: value', '# comment']) {
      assert.match(text, new RegExp(`^- ["']${s.replace(/[*]/g, '\\*')}["']$`, 'm'), `${s} quoted`);
    }
    assert.match(text, /^"on": plain words stay plain$/m, 'a key that is a YAML 1.1 boolean is quoted too');
    assert.match(text, /^"n": 1$/m, "so is the key n");
    const py = pyyaml(text);
    if (py) assert.deepEqual(py, { ok: true, value: [value] }, 'PyYAML');
  });

  it('generate --apis writes CRDs PyYAML and YAML 1.1 read as the model (a TAB in a description, awkward enum values)', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-yaml-quote-'));
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const dir = path.join(tmp, 'apis', 'things', 'v1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'doc.ts'), '/** +groupName=things.example.com */\nexport {};\n');
    const values = ['on', 'yes', '*star', 'a: b', '# c', '012', '1e3'];
    fs.writeFileSync(
      path.join(dir, 'types.ts'),
      [
        `import type { ObjectMeta, ListMeta } from '@kubegen/runtime';`,
        `/** +kubebuilder:object:root=true */`,
        `export interface Thing { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: ThingSpec }`,
        `export interface ThingList { apiVersion?: string; kind?: string; metadata?: ListMeta; items: Thing[] }`,
        `export interface ThingSpec {`,
        `  /** Mode:\tone of the values below (a TAB after the colon). */`,
        `  mode?: ${values.map((v) => `'${v}'`).join(' | ')};`,
        `}`,
        ``,
      ].join('\n'),
    );
    const model = await parseApis(path.join(tmp, 'apis'));
    const spec = model.resources[0]!.versions[0]!.schema.properties!['spec']!;
    assert.equal(spec.properties!['mode']!.description, 'Mode:\tone of the values below (a TAB after the colon).');
    const [crd] = emitCrds(model);
    const expected = parse(crd!.content) as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: unknown } } } }[] } };
    assert.deepEqual(expected.spec.versions[0]!.schema.openAPIV3Schema.properties.spec, spec);
    assert.deepEqual(parse(crd!.content, { version: '1.1' }), expected, 'YAML 1.1 reads what YAML 1.2 reads');
    assert.match(crd!.content, /description: "Mode:\\tone of the values/);
    const py = pyyaml(crd!.content);
    if (py) assert.deepEqual(py, { ok: true, value: [expected] }, 'PyYAML');
  });
});
