/**
 * examples/ttl-janitor as a user gets it, for the newcomer's clean-folder run: its own files copied out of the repo
 * (no `dist/`, no `node_modules/`), `@kubegen/runtime` and `kubegen` installed from the packed tarballs (what
 * `npm install` of the published versions gives) with one plain `npm install`, then `npm run verify` (its RBAC is
 * what its markers say), `npm test` (build and unit tests) and the built janitor's `--help`, all with the
 * newcomer's environment (the system Node 20 first on PATH; npm scripts run the project's own Node 24).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../support/paths.js';
import { run } from './newcomer.js';

/** Copies, installs, verifies, builds and tests the example in `<work>/ttl-janitor`; returns what it measured. */
export function checkJanitorExample(work: string, tarballs: { runtime: string; cli: string }, env: NodeJS.ProcessEnv): { unitTests: number; installSeconds: number } {
  const source = path.join(REPO_ROOT, 'examples/ttl-janitor');
  const dir = path.join(work, 'ttl-janitor');
  fs.cpSync(source, dir, { recursive: true, filter: (src) => !['dist', 'node_modules'].includes(path.basename(src)) });
  const pkgFile = path.join(dir, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  assert.equal(pkg.dependencies['@kubegen/runtime'], '^0.1.0', 'the example depends on the published runtime');
  pkg.dependencies['@kubegen/runtime'] = `file:${tarballs.runtime}`;
  pkg.devDependencies['kubegen'] = `file:${tarballs.cli}`;
  fs.writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);

  const started = performance.now();
  run('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env });
  const installSeconds = (performance.now() - started) / 1000;
  assert.ok(fs.existsSync(path.join(dir, 'node_modules/@kubegen/runtime/dist/index.js')));
  assert.ok(!fs.existsSync(path.join(dir, 'node_modules/@kubegen/runtime/node_modules/prom-client')), 'one prom-client, shared with the runtime');

  assert.match(run('npm', ['run', 'verify'], { cwd: dir, env }).stdout, /config\/rbac is up to date \(1 files\)/);
  const unit = run('npm', ['test'], { cwd: dir, env }).stdout;
  assert.match(unit, /ℹ fail 0\b/, unit);
  const passed = Number(/ℹ pass (\d+)/.exec(unit)?.[1] ?? 0);
  assert.ok(passed >= 18, `the janitor's unit tests ran (${passed} passed):\n${unit}`);
  assert.ok(fs.existsSync(path.join(dir, 'dist/main.js')), 'npm test built dist/main.js');

  const help = run('npm', ['start', '--', '--help'], { cwd: dir, env, allowFailure: true });
  assert.notEqual(help.status, 0);
  assert.match(help.stderr, /usage: node dist\/main\.js \[--kubeconfig=PATH\][\s\S]*janitor\.kubegen\.io\/ttl/);
  return { unitTests: passed, installSeconds };
}
