#!/usr/bin/env node
// Entry point of the `kubegen` and `codegen` commands; the CLI itself is dist/cli/main.js (built from src/cli).
//
// kubegen needs Node.js >= 22. Started by an older `node` (say a system Node 20 first on PATH), this file — kept
// to syntax and APIs that Node 18 and 20 understand — runs the CLI again with a newer Node: $KUBEGEN_NODE if set,
// else the one the `node` package installed (an optional dependency of kubegen, and a dev dependency of every
// scaffolded project). Children of the CLI get that Node first on PATH. Without one, it says what to do and exits 1.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22;

function newerNode() {
  if (process.env.KUBEGEN_NODE) return process.env.KUBEGEN_NODE;
  try {
    const pkg = createRequire(import.meta.url).resolve('node/package.json');
    const bin = path.join(path.dirname(pkg), 'bin', 'node');
    if (existsSync(bin)) return bin;
  } catch {
    // the `node` package is not installed next to kubegen
  }
  return undefined;
}

if (Number(process.versions.node.split('.')[0]) < MIN_MAJOR) {
  const node = newerNode();
  if (!node || process.env.KUBEGEN_REEXEC === '1') {
    process.stderr.write(
      `error: kubegen needs Node.js >= ${MIN_MAJOR}, but it was started by Node.js ${process.version} (${process.execPath}).\n` +
        `  Install a newer Node.js, or add one to this project: npm install --save-dev node@24 (then use npx kubegen / npm run).\n`,
    );
    process.exit(1);
  }
  const env = { ...process.env, KUBEGEN_REEXEC: '1', PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  const res = spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env });
  if (res.error) {
    process.stderr.write(`error: could not start ${node}: ${res.error.message}\n`);
    process.exit(1);
  }
  process.exit(res.status ?? 1);
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(process.argv.slice(2));
}
