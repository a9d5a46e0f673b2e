import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
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
