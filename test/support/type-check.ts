import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { linkRuntimePackage, REPO_ROOT, TSC } from './paths.js';

/**
 * Type-checks the TypeScript files under `dir` as a scratch ES-module project that depends on this workspace's built
 * `@kubegen/runtime` (strict, noUnusedLocals, NodeNext). Writes `package.json`, `tsconfig.json` and the runtime link
 * into `dir`. Returns tsc's output: empty when everything compiles. `moduleDetection: 'force'` makes every file a
 * module even without imports (documentation snippets).
 */
export function typeCheckProject(dir: string, opts: { noUnusedLocals?: boolean; moduleDetection?: 'force' } = {}): string {
  linkRuntimePackage(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir).toLowerCase(), type: 'module', private: true }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true, noUnusedLocals: opts.noUnusedLocals ?? true, noEmit: true, ...(opts.moduleDetection ? { moduleDetection: opts.moduleDetection } : {}), target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'],
        types: ['node'], typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')], skipLibCheck: true,
      },
      include: ['**/*.ts'],
      exclude: ['node_modules'],
    }),
  );
  const tsc = spawnSync(TSC, ['-p', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return tsc.status === 0 ? '' : `${tsc.stdout}${tsc.stderr}` || `tsc exited with ${tsc.status}`;
}

/**
 * Writes generated `files` under `generated/` of a scratch folder and `extra` files (name → text) beside it, runs
 * {@link typeCheckProject}, removes the folder, and returns tsc's output (empty when everything compiles).
 */
export function typeCheckGenerated(files: readonly { path: string; content: string }[], extra: Record<string, string> = {}, opts: { noUnusedLocals?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-generated-'));
  try {
    for (const f of files) {
      const target = path.join(dir, 'generated', f.path);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, f.content);
    }
    for (const [name, text] of Object.entries(extra)) fs.writeFileSync(path.join(dir, name), text);
    return typeCheckProject(dir, opts);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
