/**
 * Explore's report: what was tried, what diverged, and how to reproduce each divergence; and its text form (the
 * summary table `kubegen explore` prints).
 */
import type { FieldDiff } from './compare.js';

/** The faults explore enumerates (`reference`: the fault-free run itself did not settle). */
export type FaultKind = 'crash' | 'stale' | 'gap' | 'mutate';

/**
 * Where a fault was injected: `crash` after mutating request `request` (during `step`); `stale` in a restart after
 * `step` onto the state before it; `gap` across `step`.
 */
export interface DivergencePoint {
  /** The point as `--only` takes it: `crash@7`, `stale@2`, `gap@2`. */
  point: string;
  /** The step (1-based) during which the fault hit (a gap: its first step), and the step(s) as a line (`apply Parent ns/a`; a gap's two steps joined by `; `). */
  step: number;
  stepText: string;
  /** For a crash: the number of the request, and the request (`#7 create children ns/a-x7k`). */
  request?: number;
  requestText?: string;
}

/** One divergence from the reference run. A non-converging run has one diff on the field `(settle)`. */
export interface Divergence {
  fault: FaultKind | 'reference';
  at: DivergencePoint;
  diff: FieldDiff[];
  /** The arguments that run this fault alone: `--seed 1 --only crash@7`. */
  repro: string;
}

/** What explore did and found. */
export interface ExploreReport {
  /** Runs made, the reference run included. */
  runs: number;
  /** Per fault kind: points tried, divergences found, and points not run (`skipped`: equivalent to one tried). */
  faults: Partial<Record<FaultKind, { tried: number; divergences: number; skipped?: number }>>;
  divergences: Divergence[];
  /** The reference run's mutating requests, described (`#1 patch(apply) parents ns/a`). */
  referenceRequests: string[];
  durationMs: number;
  seed: number;
  /** The budget the points were sampled within (budget.ts), when one was given; `skipped` counts what it left out. */
  budget?: { runs: number } | { durationMs: number };
  /** Where the runs ran when not in-process: `envtest full`, `envtest crd-only` (each run in a namespace of its own). */
  controlPlane?: string;
}

/** The order of the summary table's rows. */
const FAULT_ORDER: readonly FaultKind[] = ['crash', 'stale', 'gap', 'mutate'];

/** The summary table (a row per fault tried, in the order crash, stale, gap, mutate) and one paragraph per divergence, as `kubegen explore` prints them. */
export function formatReport(report: ExploreReport): string {
  const lines: string[] = [];
  // SKIPPED only when a point was left out (equivalent to one tried, or beyond the budget).
  const skips = Object.values(report.faults).some((f) => (f?.skipped ?? 0) > 0);
  const rows = FAULT_ORDER.filter((k) => report.faults[k]).map((kind) => {
    const f = report.faults[kind]!;
    return [kind, String(f.tried), String(f.divergences), ...(skips ? [String(f.skipped ?? 0)] : [])];
  });
  const header = ['FAULT', 'TRIED', 'DIVERGENCES', ...(skips ? ['SKIPPED'] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const row = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  lines.push(row(header), ...rows.map(row));
  lines.push(`${report.runs} runs (${report.referenceRequests.length} writes in the reference run), ${report.divergences.length} divergence(s), ${(report.durationMs / 1000).toFixed(1)} s`);
  if (report.controlPlane) lines.push(`on ${report.controlPlane}: a namespace per run, garbage collected by explore between settles, crash points not deduplicated`);
  if (report.budget) {
    const b = 'runs' in report.budget ? `${report.budget.runs} runs` : `${(report.budget.durationMs / 1000).toFixed(1)} s`;
    const left = Object.values(report.faults).reduce((n, f) => n + (f?.skipped ?? 0), 0);
    lines.push(`budget ${b}, seed ${report.seed}: a seeded sample of the points; ${left} skipped (equivalent crash points included)`);
  }
  for (const d of report.divergences) {
    const where =
      d.fault === 'mutate'
        ? `spec changed after step ${d.at.step}`
        : d.fault === 'gap'
          ? `watches paused across step ${d.at.step}${d.at.stepText.includes(';') ? ` and ${d.at.step + 1}` : ''}`
          : d.fault === 'stale'
            ? `restarted after step ${d.at.step} onto the state before it, then caught up`
            : `during step ${d.at.step}`;
    lines.push('', `${d.fault} at ${d.at.point}: ${where} (${d.at.stepText})${d.at.requestText ? `, right after ${d.at.requestText}` : ''}`);
    for (const f of d.diff.slice(0, 20)) lines.push(`  ${f.object} ${f.field}: reference ${show(f.reference)}, perturbed ${show(f.perturbed)}`);
    if (d.diff.length > 20) lines.push(`  … ${d.diff.length - 20} more`);
    lines.push(`  reproduce: ${d.repro}`);
  }
  return `${lines.join('\n')}\n`;
}

function show(v: unknown): string {
  const s = v === undefined ? '(unset)' : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
