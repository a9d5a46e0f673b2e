/**
 * Documentation that cannot drift (issue 10): every ```ts block of README.md and docs/ compiles (tsc --strict)
 * against the current runtime, each block as its own module, next to the code `kubegen generate` writes for the
 * sample-controller Foo CRD (so blocks import `./generated/index.js`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generate } from 'kubegen/internal/generate/index.js';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { REPO_ROOT, SAMPLE_CRD } from '../support/paths.js';
import { typeCheckProject } from '../support/type-check.js';

/** README.md and every Markdown file under docs/, repository-relative. */
export function docFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** The ```ts blocks of a Markdown text: their first line number (1-based, the line after the fence) and code. */
export function tsBlocks(text: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

describe('documentation', () => {
  it('every ```ts block in README.md and docs/ compiles against the current runtime and generated code', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-docs-'));
    try {
      for (const f of generate(await parseCrdPaths([SAMPLE_CRD]))) {
        fs.mkdirSync(path.dirname(path.join(dir, 'generated', f.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, 'generated', f.path), f.content);
      }
      const where = new Map<string, string>();
      let n = 0;
      for (const file of docFiles()) {
        for (const b of tsBlocks(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))) {
          const name = `block${n++}.ts`;
          where.set(name, `${file}:${b.line}`);
          fs.writeFileSync(path.join(dir, name), `${b.code}\n`);
        }
      }
      assert.ok(n >= 10, `${n} blocks found`);
      const output = typeCheckProject(dir, { noUnusedLocals: false, moduleDetection: 'force' });
      // tsc names `blockN.ts(line,col)`: say which document and line that is.
      const readable = output.replace(/block\d+\.ts\((\d+),(\d+)\)/g, (m: string, l: string, c: string) => {
        const at = where.get(m.slice(0, m.indexOf('(')));
        if (!at) return m;
        const [file, line] = [at.slice(0, at.lastIndexOf(':')), Number(at.slice(at.lastIndexOf(':') + 1))];
        return `${file}:${line + Number(l) - 1}:${c}`;
      });
      assert.equal(readable, '', readable.slice(0, 4000));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
