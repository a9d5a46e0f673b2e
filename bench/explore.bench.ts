/**
 * `npm run bench:explore` (issue 42, item 6): how long `kubegen explore` takes on one controller's few-step scenario,
 * in-process on the fake control plane.
 *
 * The fanout example (examples/fanout: its explore setup and its scenario, a Batch made, scaled up, down and deleted:
 * four steps) explored with every fault: every crash point of the reference run, every stale restart and every gap
 * window (one per step), and `BENCH_EXPLORE_MUTATIONS` mutate sequences (default 50, each a perturbed and a fresh
 * run). One run after another, as the command runs them.
 *
 * Goal: all of it within 60 s. The last line: `explore: N runs (crash C, stale S, gap G, mutate M) in X s, R runs/s
 * (goal: within 60 s)`, then `divergences: D` (0 expected: the example passes explore).
 * Environment: `BENCH_EXPLORE_MUTATIONS`, `BENCH_EXPLORE_SEED` (default 1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { explore, formatReport, type ScenarioStep } from '@kubegen/runtime/testing/explore';
import setup from '../examples/fanout/src/explore-setup.js';

const MUTATIONS = Number(process.env['BENCH_EXPLORE_MUTATIONS'] ?? 50);
const SEED = Number(process.env['BENCH_EXPLORE_SEED'] ?? 1);
const GOAL_SECONDS = 60;

/** The repository root, from bench/ or dist/bench/. */
const ROOT = path.resolve(import.meta.dirname, import.meta.dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const EXAMPLE = path.join(ROOT, 'examples', 'fanout');

const crdDir = path.join(EXAMPLE, 'config', 'crd');
const crds = fs
  .readdirSync(crdDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(crdDir, f), 'utf8')).map((d) => d.toJS() as { kind?: string }))
  .filter((d) => d?.kind === 'CustomResourceDefinition');
const steps = parse(fs.readFileSync(path.join(EXAMPLE, 'test', 'explore', 'scenario.yaml'), 'utf8')) as ScenarioStep[];

const started = performance.now();
const report = await explore({ setup, crds: crds as never, steps, faults: ['crash', 'stale', 'gap', 'mutate'], mutations: MUTATIONS, seed: SEED });
const seconds = (performance.now() - started) / 1000;
process.stdout.write(formatReport(report));
const tried = (k: 'crash' | 'stale' | 'gap' | 'mutate'): number => report.faults[k]?.tried ?? 0;
console.log(
  `explore: ${report.runs} runs (crash ${tried('crash')}, stale ${tried('stale')}, gap ${tried('gap')}, mutate ${tried('mutate')}) in ${seconds.toFixed(1)} s, ${(report.runs / seconds).toFixed(1)} runs/s (goal: within ${GOAL_SECONDS} s)`,
);
console.log(`divergences: ${report.divergences.length}`);
