/**
 * The built-in API is wire-true: every round-trip fixture of `k8s.io/api/testdata/HEAD/` (each field of the kind filled,
 * as the Go types marshal it) of a kind with a typed client type-checks as that kind under `--strict` — an unknown field
 * or a value of the wrong type is an error — and its generated deep copy gives back equal JSON, sharing nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadBuiltinApi } from 'kubegen/internal/builtin-api/index.js';
import { k8sSource, KUBE_SOURCES, NEEDS_KUBE_SOURCES } from '../support/kube-sources.js';
import { REPO_ROOT } from '../support/paths.js';
import { typeCheckProject } from '../support/type-check.js';

interface Fixture {
  file: string;
  group: string;
  version: string;
  kind: string;
  dir: string;
}

/** The fixtures (`<group>.<version>.<Kind>.json`, `core` for the core group) of kinds the built-in API has a client for. */
function fixtures(): { typed: Fixture[]; others: string[] } {
  const dirs = new Map<string, string>();
  for (const r of loadBuiltinApi().model.resources) {
    const v = r.versions[0]!;
    dirs.set(`${r.group}/${v.name}/${r.names.kind}`, v.builtin!.pkg.dir);
  }
  const typed: Fixture[] = [];
  const others: string[] = [];
  for (const file of fs.readdirSync(k8sSource('api', 'testdata', 'HEAD')).filter((f) => f.endsWith('.json')).sort()) {
    const parts = file.slice(0, -'.json'.length).split('.');
    const kind = parts.pop()!;
    const version = parts.pop()!;
    const group = parts.join('.') === 'core' ? '' : parts.join('.');
    const dir = dirs.get(`${group}/${version}/${kind}`);
    if (dir === undefined) others.push(file);
    else typed.push({ file, group, version, kind, dir });
  }
  return { typed, others };
}

describe('k8s.io/api round-trip fixtures', () => {
  it('each fixture of a kind with a typed client type-checks as that kind (strict, no unknown field)', NEEDS_KUBE_SOURCES, (t) => {
    const { typed, others } = fixtures();
    t.diagnostic(`${typed.length} fixtures of kinds with a typed client; ${others.length} others (options, reviews without clients, meta types)`);
    assert.ok(typed.length >= 150, `${typed.length} fixtures`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-fixtures-'));
    try {
      typed.forEach((f, i) => {
        const json = fs.readFileSync(k8sSource('api', 'testdata', 'HEAD', f.file), 'utf8');
        fs.writeFileSync(
          path.join(dir, `f${i}.ts`),
          `// ${f.file}\nimport type { ${f.kind} } from '@kubegen/runtime/api/${f.dir}';\nexport const object: ${f.kind} = ${json};\n`,
        );
      });
      const out = typeCheckProject(dir);
      const named = out.replace(/^f(\d+)\.ts/gm, (_, i: string) => typed[Number(i)]!.file);
      assert.equal(named, '', 'fixtures that do not type-check');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('each fixture deep-copies to equal JSON through its generated deepCopy<Kind>, sharing no object', NEEDS_KUBE_SOURCES, async () => {
    const { typed } = fixtures();
    for (const f of typed) {
      const mod = (await import(path.join(REPO_ROOT, 'packages/runtime/dist/api', f.dir, 'deepcopy.js'))) as Record<string, (o: unknown) => unknown>;
      const copy = mod[`deepCopy${f.kind}`];
      assert.equal(typeof copy, 'function', `deepCopy${f.kind} in api/${f.dir}`);
      const original = JSON.parse(fs.readFileSync(k8sSource('api', 'testdata', 'HEAD', f.file), 'utf8')) as Record<string, unknown>;
      const copied = copy!(original) as Record<string, unknown>;
      assert.deepEqual(JSON.parse(JSON.stringify(copied)), original, f.file);
      assert.notEqual(copied, original);
      assert.notEqual(copied['metadata'], original['metadata'], `${f.file}: metadata is copied, not shared`);
    }
  });
});

void KUBE_SOURCES;
