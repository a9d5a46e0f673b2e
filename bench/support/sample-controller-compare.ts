/**
 * The TypeScript vs Go sample-controller comparison of `bench:sample-controller` and `bench:scale`: N Foos converged
 * by the TypeScript controller once per HTTP engine (`KUBEGEN_HTTP_ENGINE`) and by the Go one (sample-controller-fast),
 * `runs` rounds, the order alternating from round to round (A B C, C B A, …), each run a fresh process on fresh Foos
 * (bench/support/sample-controller-run.ts). Prints per controller the medians of convergence seconds, CPU seconds and
 * peak RSS with their spread and the load averages, the ratios kubegen/go for every engine, the line
 * `ratio kubegen/go: time T, CPU C, RSS R` for the default engine, and issue 14's goals judged on it.
 */
import { DEFAULT_HTTP_ENGINE, type HttpEngine } from '@kubegen/runtime/internal/client/http-transport.js';
import type { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { measureController, scaffoldNodeSettings, spawnGoController, spawnKubegenController, type ControllerResult, type NodeSettings } from './sample-controller-run.js';
import { alternate, median, spread } from './stats.js';

export interface CompareOptions {
  /** Rounds; every controller runs once per round. Default 3. */
  runs?: number;
  /** The TypeScript controller's HTTP engines, each a controller of its own. Default: the default engine alone. */
  engines?: readonly HttpEngine[];
  /**
   * Issue 41: also run the default engine with OpenTelemetry on (the sample controller's `startTracing()` starts the SDK),
   * every span sampled (`OTEL_TRACES_SAMPLER=always_on`) and exported as OTLP/HTTP protobuf to `endpoint` (a receiver
   * the bench runs), in the same rounds, the order alternating; prints the on/off ratios against the 1.15× goal.
   */
  tracing?: { endpoint: string };
  /** How the TypeScript controller's `node` runs (default: the scaffold's settings). */
  node?: NodeSettings;
  /**
   * Issue 43: also run the default engine with each of these settings (e.g. no flags at all: what anyone gets who
   * runs `node dist/main.js` without the scaffold's NODE_OPTIONS), in the same rounds; prints their goals beside.
   */
  alsoWith?: readonly NodeSettings[];
}

/** The medians of one controller's runs. */
export interface ControllerMedians {
  label: string;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  /** Medians of RssAnon and RssFile when every Foo had its Deployment. */
  anonMB: number;
  fileMB: number;
  runs: ControllerResult[];
}

const GO = 'go';

function medians(label: string, runs: ControllerResult[]): ControllerMedians {
  return {
    label,
    seconds: median(runs.map((r) => r.seconds)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
    peakRssMB: median(runs.map((r) => r.peakRssMB)),
    anonMB: median(runs.map((r) => r.anonMB)),
    fileMB: median(runs.map((r) => r.fileMB)),
    runs,
  };
}

function row(m: ControllerMedians): string {
  const f = (xs: number[], digits: number, width: number): string => `${median(xs).toFixed(digits).padStart(width)} ${spread(xs, digits).padEnd(13)}`;
  const { runs } = m;
  return (
    `${m.label.padEnd(44)} ${f(runs.map((r) => r.seconds), 2, 6)} ${f(runs.map((r) => r.cpuSeconds), 2, 6)} ${f(runs.map((r) => r.peakRssMB), 1, 6)} ` +
    runs.map((r) => r.loadAvg.toFixed(1)).join(' ')
  );
}

/** `ratio <label>/go: time T, CPU C, RSS R` of the medians. */
function ratioLine(label: string, ours: ControllerMedians, go: ControllerMedians): string {
  return `ratio ${label}/go: time ${(ours.seconds / go.seconds).toFixed(2)}, CPU ${(ours.cpuSeconds / go.cpuSeconds).toFixed(2)}, RSS ${(ours.peakRssMB / go.peakRssMB).toFixed(2)}`;
}

/**
 * Runs the comparison (see the module comment) and returns the medians per kubegen engine and of the Go controller.
 * The default engine is measured even when `engines` leaves it out: the goals are judged on it.
 */
export async function compareSampleControllers(
  env: Envtest,
  n: number,
  workers: number,
  goBinary: string,
  opts: CompareOptions = {},
): Promise<{ ours: Map<HttpEngine, ControllerMedians>; go: ControllerMedians }> {
  const runs = opts.runs ?? 3;
  const node = opts.node ?? scaffoldNodeSettings();
  const engines = [DEFAULT_HTTP_ENGINE, ...(opts.engines ?? []).filter((e) => e !== DEFAULT_HTTP_ENGINE)];
  const TRACED = 'tracing';
  const others = new Map((opts.alsoWith ?? []).map((settings, i) => [`settings-${i}`, settings]));
  const names = [...engines, ...(opts.tracing ? [TRACED] : []), ...others.keys(), GO];
  const tracingEnv: Record<string, string> = opts.tracing
    ? { OTEL_EXPORTER_OTLP_ENDPOINT: opts.tracing.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'sample-controller-bench' }
    : {};
  const results = new Map<string, ControllerResult[]>(names.map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const name of alternate(names, i)) {
      const r =
        name === GO
          ? await measureController(GO, env, n, () => spawnGoController(goBinary, env, workers))
          : name === TRACED
            ? await measureController(`kubegen-${DEFAULT_HTTP_ENGINE}+tracing`, env, n, (ns) =>
                spawnKubegenController(env, ns, workers, [], { ...node, env: { ...node.env, KUBEGEN_HTTP_ENGINE: DEFAULT_HTTP_ENGINE, ...tracingEnv } }),
              )
            : others.has(name)
              ? await measureController(`kubegen-${DEFAULT_HTTP_ENGINE} (${others.get(name)!.label})`, env, n, (ns) =>
                  spawnKubegenController(env, ns, workers, [], { ...others.get(name)!, env: { ...others.get(name)!.env, KUBEGEN_HTTP_ENGINE: DEFAULT_HTTP_ENGINE } }),
                )
            : await measureController(`kubegen-${name}`, env, n, (ns) =>
                spawnKubegenController(env, ns, workers, [], { ...node, env: { ...node.env, KUBEGEN_HTTP_ENGINE: name } }),
              );
      process.stderr.write(`  round ${i + 1}: ${r.name} ${r.seconds.toFixed(2)} s, ${r.cpuSeconds.toFixed(2)} CPU-s, ${r.peakRssMB.toFixed(1)} MB, load ${r.loadAvg.toFixed(2)}\n`);
      results.get(name)!.push(r);
    }
  }
  const ours = new Map<HttpEngine, ControllerMedians>(
    engines.map((e) => [e, medians(`kubegen ${e}${e === DEFAULT_HTTP_ENGINE ? ' (default)' : ''}`, results.get(e)!)]),
  );
  const go = medians('sample-controller-fast (Go)', results.get(GO)!);
  console.log(`sample-controller: ${n} Foos, ${workers} workers, ${runs} run(s) each, order alternating; kubegen ran with ${node.label}`);
  console.log(`${'controller (medians)'.padEnd(44)} ${'seconds [min–max]'.padEnd(20)} ${'CPU-s [min–max]'.padEnd(20)} ${'peak RSS MB'.padEnd(20)} load avg (1 min) per run`);
  const traced = opts.tracing ? medians(`kubegen ${DEFAULT_HTTP_ENGINE} + tracing`, results.get(TRACED)!) : undefined;
  const otherMedians = [...others].map(([key, settings]) => ({ settings, m: medians(`${DEFAULT_HTTP_ENGINE}, ${settings.label}`.slice(0, 44), results.get(key)!) }));
  for (const m of [...ours.values(), ...(traced ? [traced] : []), ...otherMedians.map((o) => o.m), go]) console.log(row(m));
  for (const [e, m] of ours) if (e !== DEFAULT_HTTP_ENGINE) console.log(ratioLine(`kubegen[${e}]`, m, go));
  const def = ours.get(DEFAULT_HTTP_ENGINE)!;
  console.log(ratioLine('kubegen', def, go));
  // Where the RSS is (issue 43): the process's own memory and the mapped file pages, for node nearly all its binary's
  // code, shared by every process on the host that runs the same binary.
  console.log(`RSS at the end in two parts (medians): kubegen anon ${def.anonMB.toFixed(1)} + file ${def.fileMB.toFixed(1)} MB; Go anon ${go.anonMB.toFixed(1)} + file ${go.fileMB.toFixed(1)} MB`);
  if (traced) {
    const cpuRatio = traced.cpuSeconds / def.cpuSeconds;
    console.log(
      `tracing on/off (${DEFAULT_HTTP_ENGINE}, 100 % sampled): time ${(traced.seconds / def.seconds).toFixed(2)}, CPU ${cpuRatio.toFixed(2)}, ` +
        `RSS ${(traced.peakRssMB / def.peakRssMB).toFixed(2)}; goal CPU <= 1.15x ${cpuRatio <= 1.15 ? 'met' : 'NOT met'} (issue 41)`,
    );
  }
  const time = def.seconds / go.seconds;
  const cpu = def.cpuSeconds / go.cpuSeconds;
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  console.log(
    `goals (default engine ${DEFAULT_HTTP_ENGINE}): converge ratio <= 1.0 ${met(time <= 1)}; CPU <= Go's ${met(cpu <= 1)}; ` +
      `RSS <= 70 MB per 1,000 Foos ${met(def.peakRssMB <= 70 * Math.max(1, n / 1000))}`,
  );
  // Issue 43's: CPU median <= 0.9x Go's and every run under Go's median; peak RSS <= 1.5x Go's (63 MB at 1,000) with
  // these settings, <= 100 MB with Node's defaults; converge time <= Go's.
  const everyUnder = def.runs.every((r) => r.cpuSeconds < go.cpuSeconds);
  console.log(
    `goals (issue 43, ${node.label.split(':')[0]}): CPU median <= 0.9x Go's ${met(cpu <= 0.9)} (${cpu.toFixed(2)}); every run under Go's median ${met(everyUnder)} ` +
      `(${def.runs.map((r) => r.cpuSeconds.toFixed(2)).join(', ')} vs ${go.cpuSeconds.toFixed(2)}); peak RSS <= 1.5x Go's ${met(def.peakRssMB <= 1.5 * go.peakRssMB)} ` +
      `(${def.peakRssMB.toFixed(1)} vs ${(1.5 * go.peakRssMB).toFixed(1)} MB); converge <= Go's ${met(time <= 1)}`,
  );
  for (const { settings, m } of otherMedians) {
    console.log(`goal (issue 43, ${settings.label}): peak RSS <= 100 MB ${met(m.peakRssMB <= 100)} (${m.peakRssMB.toFixed(1)} MB); CPU ${(m.cpuSeconds / go.cpuSeconds).toFixed(2)}x Go's; time ${(m.seconds / go.seconds).toFixed(2)}x`);
  }
  return { ours, go };
}
