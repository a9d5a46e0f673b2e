/**
 * The generated built-in apply configurations name each kind's objects as the apiserver does: every constructor of
 * every group-version (`configMapApply`, `statefulSetApply`, …) gives the `apiVersion` its module's `API_VERSION`
 * says — `v1` for the core group, never `/v1` — and the kind its descriptor names.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../support/paths.js';

const API_DIST = path.join(REPO_ROOT, 'packages/runtime/dist/api');

/** `core/v1`, `policy/v1`, … : every group-version folder of the built runtime's API. */
function packages(): string[] {
  return fs.readdirSync(API_DIST, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(API_DIST, d.name)).filter((v) => fs.existsSync(path.join(API_DIST, d.name, v, 'register.js'))).map((v) => `${d.name}/${v}`))
    .sort();
}

test('every built-in apply configuration constructor names the apiVersion and kind of its module', async () => {
  const wrong: string[] = [];
  let constructors = 0;
  const pkgs = packages();
  assert.ok(pkgs.includes('core/v1') && pkgs.includes('policy/v1') && pkgs.length > 50, pkgs.join(' '));
  for (const pkg of pkgs) {
    const register = (await import(pathToFileURL(path.join(API_DIST, pkg, 'register.js')).href)) as Record<string, unknown>;
    const apply = (await import(pathToFileURL(path.join(API_DIST, pkg, 'applyconfigurations.js')).href)) as Record<string, unknown>;
    const kinds = new Set(Object.values(register).filter((v): v is { kind: string } => typeof v === 'object' && v !== null && 'kind' in v).map((d) => d.kind));
    for (const [name, fn] of Object.entries(apply)) {
      if (typeof fn !== 'function' || !name.endsWith('Apply')) continue;
      constructors++;
      const obj = (fn as (name: string, namespace?: string) => { apiVersion: string; kind: string })('x', 'ns');
      if (obj.apiVersion !== register['API_VERSION'] || !kinds.has(obj.kind)) wrong.push(`${pkg} ${name}: ${obj.apiVersion} ${obj.kind}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(constructors > 130, `${constructors} constructors`);
});
