/**
 * The runtime's entry points (issue 39): the root `@kubegen/runtime` is a small front door of at most
 * {@link MAX_ROOT_NAMES} names, values and types together, and every other public name has one entry point by
 * concept (`/cache`, `/workqueue`, `/dynamic` …). Names are read from the built declarations (dist/…/*.d.ts) with the
 * TypeScript compiler, so a type-only export counts as much as a value.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Project } from 'ts-morph';
import { REPO_ROOT } from '../support/paths.js';

/** The most names the root entry point may export. */
const MAX_ROOT_NAMES = 150;

const RUNTIME = path.join(REPO_ROOT, 'packages', 'runtime');

/** Internals that no public entry point exports (sharding's hash space, lease fencing, metric names). */
const INTERNAL = ['bucketOfHash', 'HASH_SPACE_END', 'FENCE_HOLDER_PREFIX', 'INFORMER_WATCH_STALLS_TOTAL', 'READ_YOUR_WRITES_WAITS_TOTAL', 'MC_RECONCILE_TOTAL'];

interface Entry {
  /** The subpath, `.` for the root. */
  subpath: string;
  /** Absolute path of its declarations. */
  types: string;
}

/** The entry points of packages/runtime/package.json that name one declaration file (not the `/api/*` pattern). */
function entries(): Entry[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(RUNTIME, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const out: Entry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (subpath.includes('*') || typeof target !== 'object' || target === null || !('types' in target)) continue;
    out.push({ subpath, types: path.join(RUNTIME, (target as { types: string }).types) });
  }
  return out;
}

const project = new Project({ skipAddingFilesFromTsConfig: true, compilerOptions: { skipLibCheck: true } });

/** The names a declaration file exports, values and types. */
function exportedNames(file: string): string[] {
  const sf = project.addSourceFileAtPath(file);
  project.resolveSourceFileDependencies();
  return [...sf.getExportedDeclarations().keys()];
}

describe('the runtime entry points', () => {
  it(`the root exports at most ${MAX_ROOT_NAMES} names, values and types together`, () => {
    const names = exportedNames(path.join(RUNTIME, 'dist', 'index.d.ts'));
    assert.ok(names.length <= MAX_ROOT_NAMES, `@kubegen/runtime exports ${names.length} names`);
    // What a controller author imports is there.
    for (const name of ['Manager', 'controllerFor', 'Reconciler', 'isNotFound', 'KubeClientset', 'Pod', 'runMain', 'parseFlags', 'LOG_FLAGS']) {
      assert.ok(names.includes(name), `${name} is not in the root`);
    }
  });

  it('every entry point resolves to built declarations and none exports an internal', () => {
    const all = entries();
    for (const sub of ['.', './cache', './workqueue', './dynamic', './discovery', './sharding', './multicluster', './webhook', './leaderelection', './metrics']) {
      assert.ok(all.some((e) => e.subpath === sub), `package.json has no ${sub}`);
    }
    for (const e of all) {
      assert.ok(fs.existsSync(e.types), `${e.subpath}: ${e.types} is missing`);
      const names = exportedNames(e.types);
      assert.ok(names.length > 0, `${e.subpath} exports nothing`);
      for (const internal of INTERNAL) assert.ok(!names.includes(internal), `${e.subpath} exports internal ${internal}`);
    }
  });

  it('a name has one home among the root and the concept entry points', () => {
    const home = new Map<string, string>();
    for (const e of entries()) {
      if (e.subpath.startsWith('./testing') || e.subpath === './validation' || e.subpath === './package.json') continue;
      for (const name of exportedNames(e.types)) {
        const seen = home.get(name);
        assert.equal(seen, undefined, `${name} is exported by both ${seen} and ${e.subpath}`);
        home.set(name, e.subpath);
      }
    }
    assert.ok(home.size > 400, `only ${home.size} public names in all`);
  });
});
