/**
 * `npm run bench:codegen`: generates every output for the whole CRD corpus (56 CRDs, 19 projects) the way
 * `codegen generate` does — parse, generate, write atomically — and prints wall time (from process start, so Node's
 * start-up and module loading count) and peak RSS. Goal (issue 2): under 3 s on a 2-core machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { generate } from 'kubegen/internal/generate/index.js';
import { writeGenerated } from 'kubegen/internal/output/write.js';
import { corpusRuns } from '../test/support/corpus.js';

const GOAL_S = 3;
/** Peers measured on the same 56 files on these machines (issue 2), types only. */
const PEERS: [string, number, string][] = [
  ['@kubernetes-models/crd-generate', 43.6, '782 MB'],
  ['kubernetes-fluent-client crd', 114, '?'],
  ['json-schema-to-typescript alone', 8, '?'],
];

async function main(): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-bench-'));
  try {
    // Two runs: the corpus has two pairs of files defining the same kind (see test/support/corpus.ts).
    let t1 = 0, t2 = 0, t3 = 0, crds = 0;
    const files: Awaited<ReturnType<typeof generate>> = [];
    const t0 = performance.now();
    for (const [i, run] of corpusRuns().entries()) {
      let t = performance.now();
      const model = await parseCrdPaths(run);
      crds += model.resources.length;
      t1 += performance.now() - t;
      t = performance.now();
      const out1 = generate(model);
      t2 += performance.now() - t;
      t = performance.now();
      await writeGenerated(path.join(out, `generated-${i}`), out1);
      t3 += performance.now() - t;
      files.push(...out1);
    }
    const end = performance.now();
    const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
    const total = end / 1000;
    const rssMb = process.resourceUsage().maxRSS / 1024;
    console.log(`start-up and module loading ${t0.toFixed(0)} ms`);
    console.log(`corpus: ${crds} CRDs → ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB`);
    console.log(`parse    ${t1.toFixed(0)} ms`);
    console.log(`generate ${t2.toFixed(0)} ms`);
    console.log(`write    ${t3.toFixed(0)} ms`);
    console.log(`wall (from process start) ${total.toFixed(2)} s   goal < ${GOAL_S} s   ratio ${(total / GOAL_S).toFixed(2)}x of goal`);
    console.log(`peak RSS ${rssMb.toFixed(0)} MB`);
    for (const [name, s, mem] of PEERS) console.log(`  vs ${name}: ${s} s (${mem}) → kubegen is ${(s / total).toFixed(1)}x faster`);
    if (total >= GOAL_S) process.exitCode = 1;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

await main();

/**
 * Second section (issue 5): the TypeScript front end on the generated 50-kind apis fixture
 * (`fixtures/apis/bench50`: 5 groups, 7 group/versions, markers, shared types) — parse (loading ts-morph included),
 * generate every module, emit CRDs and RBAC, write them. Goal: under 3 s as well.
 */
async function apisSection(): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-bench-apis-'));
  try {
    const t0 = performance.now();
    const { parseApis } = await import('kubegen/internal/parse/typescript/index.js');
    const { emitCrds } = await import('kubegen/internal/generate/crd/index.js');
    const { emitRbac } = await import('kubegen/internal/generate/rbac/index.js');
    const { writeYamlOutput } = await import('kubegen/internal/output/yaml-output.js');
    const tLoad = performance.now();
    const apis = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'fixtures', 'apis', 'bench50', 'apis');
    const model = await parseApis(apis, { outDir: path.join(out, 'generated') });
    const tParse = performance.now();
    const files = generate(model);
    const crds = emitCrds(model);
    const role = emitRbac(model);
    const tGen = performance.now();
    await writeGenerated(path.join(out, 'generated'), files);
    await writeYamlOutput(path.join(out, 'crd'), crds, { prune: true });
    await writeYamlOutput(path.join(out, 'rbac'), [{ path: 'role.yaml', content: role }]);
    const tWrite = performance.now();
    const total = (tWrite - t0) / 1000;
    console.log('');
    console.log(`apis fixture: ${model.resources.length} kinds → ${files.length} files + ${crds.length} CRDs + role.yaml`);
    console.log(`load ts-morph ${(tLoad - t0).toFixed(0)} ms`);
    console.log(`parse    ${(tParse - tLoad).toFixed(0)} ms`);
    console.log(`generate ${(tGen - tParse).toFixed(0)} ms`);
    console.log(`write    ${(tWrite - tGen).toFixed(0)} ms`);
    console.log(`apis section ${total.toFixed(2)} s   goal < ${GOAL_S} s   ratio ${(total / GOAL_S).toFixed(2)}x of goal`);
    if (model.resources.length !== 50) {
      console.log('expected 50 kinds in fixtures/apis/bench50');
      process.exitCode = 1;
    }
    if (total >= GOAL_S) process.exitCode = 1;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

await apisSection();

/**
 * Third section (issue 9): size of the corpus's `types.ts` + `deepcopy.ts`, against the 66,083 + 67,699 lines
 * measured before embedded core types were typed with the runtime's types (and before deep copies became one
 * `deepCopyJSON` per type). Goal: at most 60% of that. Also prints the same output with `--no-core-types`, so the
 * share of each change shows, and which core types were matched. Then the size of the apply configurations
 * (issue 12) against `types.ts` and the whole output, the aliases and named literal unions of `types.ts`, and the
 * size of `types.ts` with `--emit-markers` (issue 25: 232,419 lines before it was written from the same graph, with
 * shared interfaces and core types).
 */
async function sizeSection(): Promise<void> {
  const BEFORE = { types: 66_083, deepcopy: 67_699 };
  const GOAL = 0.6;
  const lines = { on: { types: 0, deepcopy: 0 }, off: { types: 0, deepcopy: 0 } };
  const matched = new Map<string, number>();
  const apply = { lines: 0, bytes: 0, typesBytes: 0, allBytes: 0 };
  const named = { aliases: 0, unions: 0, marked: 0 };
  for (const run of corpusRuns()) {
    const model = await parseCrdPaths(run);
    for (const f of generate(model, { emitMarkers: true })) if (f.path.endsWith('/types.ts')) named.marked += f.content.split('\n').length - 1;
    for (const mode of ['on', 'off'] as const) {
      const files = generate(model, {
        coreTypes: mode === 'on',
        onCoreTypes: (_gv, uses) => {
          if (mode === 'on') for (const u of uses) matched.set(u.type.name, (matched.get(u.type.name) ?? 0) + 1);
        },
      });
      for (const f of files) {
        const kind = f.path.endsWith('/types.ts') ? 'types' : f.path.endsWith('/deepcopy.ts') ? 'deepcopy' : undefined;
        if (kind) lines[mode][kind] += f.content.split('\n').length - 1;
        if (mode !== 'on') continue;
        if (kind === 'types') {
          named.aliases += (f.content.match(/^export type \w+ = \w+;$/gm) ?? []).length;
          named.unions += (f.content.match(/^export type \w+ = "/gm) ?? []).length;
        }
        const bytes = Buffer.byteLength(f.content);
        apply.allBytes += bytes;
        if (kind === 'types') apply.typesBytes += bytes;
        if (f.path.endsWith('/applyconfigurations.ts')) {
          apply.lines += f.content.split('\n').length - 1;
          apply.bytes += bytes;
        }
      }
    }
  }
  const before = BEFORE.types + BEFORE.deepcopy;
  const fmt = (n: number): string => n.toLocaleString('en-US');
  const row = (label: string, l: { types: number; deepcopy: number }): string =>
    `${label.padEnd(28)} types.ts ${fmt(l.types).padStart(7)}  deepcopy.ts ${fmt(l.deepcopy).padStart(7)}  total ${fmt(l.types + l.deepcopy).padStart(7)}  ${((100 * (l.types + l.deepcopy)) / before).toFixed(1)}% of before`;
  console.log('');
  console.log('corpus size (lines)');
  console.log(row('before (issue 9)', BEFORE));
  console.log(row('now, --no-core-types', lines.off));
  console.log(row('now, core types (default)', lines.on));
  console.log(`types.ts alone: core types make it ${((100 * lines.on.types) / lines.off.types).toFixed(1)}% of --no-core-types`);
  const ranked = [...matched].sort((a, b) => b[1] - a[1]).map(([n, c]) => `${n} ×${c}`);
  console.log(`core types matched: ${ranked.join(', ')}`);
  const mb = (n: number): string => `${(n / 1e6).toFixed(2)} MB`;
  console.log(
    `applyconfigurations.ts (typed server-side apply, issue 12): ${fmt(apply.lines)} lines, ${mb(apply.bytes)} ` +
      `(${((100 * apply.lines) / lines.on.types).toFixed(1)}% of types.ts lines, ${((100 * apply.bytes) / apply.typesBytes).toFixed(1)}% of its bytes); ` +
      `whole output ${mb(apply.allBytes)}, ${mb(apply.allBytes - apply.bytes)} without them`,
  );
  console.log(`types.ts names (issue 25): ${fmt(named.aliases)} aliases of shared shapes, ${fmt(named.unions)} named literal unions`);
  console.log(`--emit-markers types.ts: ${fmt(named.marked)} lines (232,419 before issue 25)`);
  const ratio = (lines.on.types + lines.on.deepcopy) / before;
  console.log(`goal ≤ ${GOAL * 100}% of before: ${(ratio * 100).toFixed(1)}%`);
  if (ratio > GOAL) process.exitCode = 1;
}

await sizeSection();
