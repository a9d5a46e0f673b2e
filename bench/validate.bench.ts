/**
 * `kubegen validate` throughput: the corpus CRDs' samples (as `kubegen sample` prints them, CEL rules satisfied, one
 * per served version of each kind, plus a variant with its status), repeated to 10,000 objects written as YAML files, validated end to end
 * (`validateManifests`: reading and parsing the files, building the validators, validating, locating errors) and
 * with the validators alone, against a reference measured in the same run (parsing the same files only). Goal: at
 * least 5,000 objects/s for checking the manifests; reading the CRDs comes first, once, and is printed apart.
 * Run: `npm run bench:validate`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseCrdPaths } from 'kubegen/internal/parse/crd/index.js';
import { minimalSample, sampleValidator } from 'kubegen/internal/generate/sample/index.js';
import { portableYaml } from 'kubegen/internal/generate/portable-yaml.js';
import { validateManifests } from 'kubegen/internal/cli/validate-command.js';
import { parseDocuments } from 'kubegen/internal/parse/crd/yaml-source.js';
import { createValidator, loadCelLayer, type CrdValidator } from '@kubegen/runtime/validation';
import { readCrdPaths } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { corpusRuns } from '../test/support/corpus.js';

const OBJECTS = Number(process.env['VALIDATE_BENCH_OBJECTS'] ?? 10_000);
const GOAL = 5_000;

async function main(): Promise<void> {
  const runs = corpusRuns();
  const crdFiles = runs.flat();
  const resources = [];
  for (const run of runs) resources.push(...(await parseCrdPaths(run)).resources);
  const samples: Record<string, unknown>[] = [];
  for (const r of resources) {
    for (const v of r.versions) {
      if (!v.served) continue;
      const kv = { resource: r, version: v };
      try {
        // As `kubegen sample` prints them: repaired for the CEL rules it can satisfy.
        const validator = await sampleValidator(kv);
        samples.push(minimalSample(kv, { validator }), minimalSample(kv, { name: `${r.names.kind.toLowerCase()}-with-status`, withStatus: true, validator }));
      } catch {
        // a schema the sample generator cannot fill is left out; the count below says how many kinds are in
      }
    }
  }
  const objects = Array.from({ length: OBJECTS }, (_, i) => {
    const s = structuredClone(samples[i % samples.length]!);
    (s.metadata as Record<string, unknown>).name = `obj-${i}`;
    (s.metadata as Record<string, unknown>).namespace = 'bench';
    return s;
  });

  const dir = path.join(os.tmpdir(), `kubegen-validate-bench-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const perFile = 200;
  for (let f = 0; f * perFile < objects.length; f++) {
    writeFileSync(path.join(dir, `objects-${f}.yaml`), objects.slice(f * perFile, (f + 1) * perFile).map((o) => portableYaml(o)).join('---\n'));
  }

  const cel = { compileRules: await loadCelLayer() };
  const crds = readCrdPaths(crdFiles);
  console.log(`corpus: ${crds.length} CRDs, ${samples.length} samples, ${objects.length} objects in ${Math.ceil(objects.length / perFile)} files`);

  // End to end, as `kubegen validate --crds fixtures/crds <dir>` runs (best of 3).
  let best = Infinity;
  let bestTotal = Infinity;
  let crdsMs = 0;
  let report: Awaited<ReturnType<typeof validateManifests>> | undefined;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    report = await validateManifests(crdFiles, [dir], process.cwd(), { compileRules: cel.compileRules });
    bestTotal = Math.min(bestTotal, performance.now() - t0);
    if (report.timings.manifestsMs < best) [best, crdsMs] = [report.timings.manifestsMs, report.timings.crdsMs];
  }
  const e2e = (report!.objects / best) * 1000;

  // Reference, same run: only reading and parsing the same files (the floor of any YAML-reading checker).
  let parseMs = Infinity;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    for (const f of readdirSync(dir)) parseDocuments(readFileSync(path.join(dir, f), 'utf8'), f);
    parseMs = Math.min(parseMs, performance.now() - t0);
  }

  // The validators alone, on decoded objects.
  const validators = new Map<string, CrdValidator>();
  for (const crd of crds) {
    const v = await createValidator(crd as never, { compileRules: cel.compileRules });
    validators.set(`${v.group}/${v.kind}`, v);
  }
  let coreMs = Infinity;
  let errors = 0;
  for (let run = 0; run < 3; run++) {
    const t1 = performance.now();
    errors = 0;
    for (const o of objects) {
      const group = String(o.apiVersion).split('/')[0];
      const v = validators.get(`${group}/${String(o.kind)}`);
      if (v) errors += v.validate(o).errors.length;
    }
    coreMs = Math.min(coreMs, performance.now() - t1);
  }
  const core = (objects.length / coreMs) * 1000;
  rmSync(dir, { recursive: true, force: true });

  console.log(`kubegen validate, checking the manifests (read, parse, validate, locate errors): ${report!.objects} objects in ${best.toFixed(0)} ms = ${e2e.toFixed(0)} objects/s (goal ${GOAL}/s, ratio ${(e2e / GOAL).toFixed(2)})`);
  console.log(`  reference, same run: reading and parsing the same files only: ${((objects.length / parseMs) * 1000).toFixed(0)} objects/s (checking costs ${(best / parseMs).toFixed(2)}x parsing)`);
  console.log(`  before that, once per run: reading the ${crds.length} CRDs (${(crdFiles.reduce((n, f) => n + statSync(f).size, 0) / 1e6).toFixed(1)} MB of YAML) and building their validators: ${crdsMs} ms; whole run ${bestTotal.toFixed(0)} ms = ${((report!.objects / bestTotal) * 1000).toFixed(0)} objects/s`);
  console.log(`validators alone: ${core.toFixed(0)} objects/s (${errors} errors on the samples)`);
  console.log(`errors reported end to end: ${report!.errors.length}, unknown-field warnings: ${report!.warnings.length}, skipped: ${report!.skipped.length}`);
  const reasons = new Map<string, number>();
  for (const e of report!.errors) reasons.set(`${e.reason} ${e.kind}`, (reasons.get(`${e.reason} ${e.kind}`) ?? 0) + 1);
  for (const [k, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${n} × ${k}`);
  if (e2e < GOAL) process.exitCode = 1;
}

await main();
