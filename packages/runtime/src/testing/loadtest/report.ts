/**
 * The load run's report: the JSON written to `<outDir>/report.json`, the table printed for people, and the plot
 * (`plot.svg`) of unconverged objects, queue depth and RSS over time with the faults marked.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ControllerRun } from './controller-process.js';
import type { FaultOptions } from './faults.js';
import type { ReconcileSummary } from './metrics-reader.js';
import type { RequestCounts } from './request-verbs.js';

/** One point of the once-a-second time series (`null`: not known at that time). */
export interface Sample {
  /** Seconds since the run started. */
  t: number;
  unconverged: number | null;
  queueDepth: number | null;
  rssMB: number;
  cpuSeconds: number;
  /** Pods Running in the run's namespace, where Pods run (envtest `cluster`, a real cluster); absent elsewhere. */
  podsRunning?: number | null;
}

/** What `runLoadTest` measured (`report.json`). */
export interface LoadTestReport {
  kind: { apiVersion: string; kind: string; resource: string };
  controlPlane: string;
  namespace: string;
  objects: number;
  churnPerSecond: number;
  durationSeconds: number;
  faults: FaultOptions & { events: { t: number; event: string }[] };
  phases: {
    create: { seconds: number };
    converge: { seconds: number; left: number };
    churn: { seconds: number; patches: number; patchErrors: number };
    reconverge: { seconds: number; left: number };
    delete: { seconds: number; left: number };
  };
  /** Objects still not converged at the end of the run (want 0), and up to 20 of their names. */
  unreconciled: number;
  unreconciledNames: string[];
  /** From the controller's `/metrics`; null without a metrics URL. */
  reconcile: ReconcileSummary | null;
  maxQueueDepth: number | null;
  /** The most Pods Running in the namespace at once; null where Pods do not run (envtest `full`, `crd-only`). */
  maxPodsRunning: number | null;
  controller: ControllerRun;
  apiRequests: RequestCounts;
  samples: Sample[];
  totalSeconds: number;
}

/** Writes `report.json` and `plot.svg` into `outDir`. */
export function writeReport(outDir: string, report: LoadTestReport): void {
  fs.writeFileSync(path.join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'plot.svg'), plotSvg(report));
}

const ms = (s: number | null): string => (s === null ? '-' : `${(s * 1000).toFixed(1)} ms`);

/** The report as a plain-text table. */
export function formatReport(r: LoadTestReport): string {
  const p = r.phases;
  const lines = [
    `kubegen loadtest: ${r.objects} ${r.kind.kind} (${r.kind.apiVersion}) on ${r.controlPlane}, churn ${r.churnPerSecond}/s for ${r.durationSeconds} s`,
    `faults: ${r.faults.events.length === 0 ? 'none' : r.faults.events.map((e) => `${e.t.toFixed(0)} s ${e.event}`).join('; ')}${r.faults.latencyMs ? ` (latency ${r.faults.latencyMs} ms per request)` : ''}`,
    '',
    'phase            seconds   not converged',
    `create          ${p.create.seconds.toFixed(1).padStart(8)}`,
    `converge        ${p.converge.seconds.toFixed(1).padStart(8)}   ${p.converge.left}`,
    `churn + faults  ${p.churn.seconds.toFixed(1).padStart(8)}   (${p.churn.patches} patches, ${p.churn.patchErrors} failed)`,
    `reconverge      ${p.reconverge.seconds.toFixed(1).padStart(8)}   ${p.reconverge.left}`,
    `delete          ${p.delete.seconds.toFixed(1).padStart(8)}   ${p.delete.left} left`,
    '',
    r.reconcile
      ? `reconcile: ${r.reconcile.total} (${r.reconcile.errors} errors, ${(r.reconcile.errorRate * 100).toFixed(2)} %), latency p50 ${ms(r.reconcile.p50)}, p90 ${ms(r.reconcile.p90)}, p99 ${ms(r.reconcile.p99)}`
      : 'reconcile: no metrics (give --metrics-url, or {metricsPort} in the command)',
    `queue depth: ${r.maxQueueDepth === null ? '-' : `max ${r.maxQueueDepth}`}`,
    ...(r.maxPodsRunning === null || r.maxPodsRunning === undefined ? [] : [`pods running: max ${r.maxPodsRunning}, ${r.samples.at(-1)?.podsRunning ?? '-'} at the end`]),
    `controller: CPU ${r.controller.cpuSeconds.toFixed(2)} s, peak RSS ${r.controller.peakRssMB.toFixed(1)} MB, exit ${r.controller.exit}${r.controller.exitedEarly ? ' (ended before the run did!)' : ''}`,
    `API requests by verb: ${Object.entries(r.apiRequests.byVerb).sort().map(([v, n]) => `${v} ${n}`).join(', ')}`,
    `unreconciled at the end: ${r.unreconciled}${r.unreconciled > 0 ? ` (${r.unreconciledNames.join(', ')})` : ''}`,
  ];
  return `${lines.join('\n')}\n`;
}

const W = 900;
const PANEL_H = 150;
const LEFT = 70;
const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** An SVG of unconverged objects, queue depth and RSS against time, faults as dashed lines (no dependencies). */
export function plotSvg(r: LoadTestReport): string {
  const series: { title: string; color: string; points: [number, number][] }[] = [
    { title: 'objects not converged', color: '#d62728', points: r.samples.filter((s) => s.unconverged !== null).map((s) => [s.t, s.unconverged!]) },
    { title: 'workqueue depth', color: '#1f77b4', points: r.samples.filter((s) => s.queueDepth !== null).map((s) => [s.t, s.queueDepth!]) },
    { title: 'controller RSS (MB)', color: '#2ca02c', points: r.samples.filter((s) => s.rssMB > 0).map((s) => [s.t, s.rssMB]) },
  ];
  const pods = r.samples.filter((s) => s.podsRunning !== undefined && s.podsRunning !== null).map((s): [number, number] => [s.t, s.podsRunning!]);
  if (pods.length > 0) series.push({ title: 'Pods Running in the namespace', color: '#9467bd', points: pods });
  const tMax = Math.max(1, r.totalSeconds, ...r.samples.map((s) => s.t));
  const x = (t: number): number => LEFT + ((W - LEFT - 20) * t) / tMax;
  const parts: string[] = [];
  series.forEach((s, idx) => {
    const top = 40 + idx * (PANEL_H + 40);
    const yMax = Math.max(1, ...s.points.map((p) => p[1]));
    const y = (v: number): number => top + PANEL_H - (PANEL_H * v) / yMax;
    parts.push(`<text x="${LEFT}" y="${top - 8}" font-size="13">${esc(s.title)} (max ${Number(yMax.toFixed(1))})</text>`);
    parts.push(`<rect x="${LEFT}" y="${top}" width="${W - LEFT - 20}" height="${PANEL_H}" fill="none" stroke="#ccc"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${top + 10}" font-size="10" text-anchor="end">${Number(yMax.toFixed(1))}</text>`);
    parts.push(`<text x="${LEFT - 6}" y="${top + PANEL_H}" font-size="10" text-anchor="end">0</text>`);
    for (const e of r.faults.events) parts.push(`<line x1="${x(e.t).toFixed(1)}" x2="${x(e.t).toFixed(1)}" y1="${top}" y2="${top + PANEL_H}" stroke="#999" stroke-dasharray="4 3"><title>${esc(e.event)}</title></line>`);
    if (s.points.length > 0) parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="1.5" points="${s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>`);
    else parts.push(`<text x="${LEFT + 10}" y="${top + PANEL_H / 2}" font-size="12" fill="#999">no data</text>`);
  });
  const height = 40 + series.length * (PANEL_H + 40);
  parts.push(`<text x="${LEFT}" y="${height - 12}" font-size="11">time (s), 0 to ${tMax.toFixed(0)}; dashed lines: faults</text>`);
  const title = `${r.objects} ${r.kind.kind}, churn ${r.churnPerSecond}/s, ${r.controller.command.map((a) => path.basename(a)).slice(0, 3).join(' ')}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" font-family="sans-serif">\n<text x="${LEFT}" y="18" font-size="14" font-weight="bold">${esc(title)}</text>\n${parts.join('\n')}\n</svg>\n`;
}
