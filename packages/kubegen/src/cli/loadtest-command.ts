/**
 * `kubegen loadtest`: the CLI over the runtime's load, stress and fault harness (`@kubegen/runtime/testing/loadtest`).
 *
 *   kubegen loadtest [--envtest [full|crd-only|cluster] [--nodes N] | --kubeconfig K] --crd FILE... --template OBJECT.yaml --count N
 *                    [--churn PER_S] [--churn-patch JSON] [--duration S] [--restart-apiserver-every S]
 *                    [--freeze-watches-every S] [--freeze-for S] [--drop-connections-every S] [--latency MS]
 *                    [--metrics-url URL] [--check FILE.mjs] [--out DIR] -- CONTROLLER COMMAND...
 *
 * `--envtest cluster` runs the controller against a whole cluster on this machine (controller-manager, scheduler and
 * `--nodes` Kubemark hollow nodes, default 3): the Deployments, Jobs or Pods a workload operator makes are scheduled
 * and Running, and the report counts the Pods Running in the run's namespace.
 *
 * Prints the report table on stdout (progress on stderr) and exits 0 when every object converged, the deletes
 * completed and the controller ran to the end; 1 otherwise (so CI can gate on it); 2 on a bad command line.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CliInputError, ExitCode } from './errors.js';
import { choiceParser } from './suggest.js';

interface LoadtestFlags {
  envtest?: string | boolean;
  nodes?: number;
  kubeconfig?: string;
  crd?: string[];
  template: string;
  count: number;
  churn?: number;
  churnPatch?: string;
  duration?: number;
  restartApiserverEvery?: number;
  compactOnRestart: boolean;
  freezeWatchesEvery?: number;
  freezeFor?: number;
  dropConnectionsEvery?: number;
  latency?: number;
  metricsUrl?: string;
  metricsToken?: string;
  check?: string;
  timeout?: number;
  out: string;
}

const ENVTEST_PROFILES = ['full', 'crd-only', 'cluster'] as const;

function nonNegative(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0');
  return n;
}

function count(value: string): number {
  const n = nonNegative(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

/** Registers `loadtest` on `program`; `setExit` receives its exit code. */
export function addLoadtestCommand(program: Command, io: { cwd: string; stdout: (s: string) => void; stderr: { write(s: string): unknown } }, setExit: (code: number) => void): void {
  program
    .command('loadtest')
    .description('load, stress and fault test a controller: create N objects, churn them, inject faults, report convergence, latency, CPU, RSS (report.json, plot.svg)')
    .argument('<command...>', 'the controller command, after --; placeholders {kubeconfig}, {namespace}, {metricsPort}')
    .addOption(
      new Option('--envtest [profile]', 'start an envtest control plane (the default): full (kube-apiserver 1.20), crd-only (1.36) or cluster (full + controller-manager, scheduler, hollow nodes)')
        .choices(ENVTEST_PROFILES)
        .argParser(choiceParser(ENVTEST_PROFILES)),
    )
    .option('--nodes <n>', 'hollow nodes of --envtest cluster (default 3)', count)
    .option('--kubeconfig <file>', 'use this cluster instead of an envtest (no apiserver restarts then)')
    .option('--crd <files...>', 'CRD files or folders to install first')
    .requiredOption('--template <file>', 'the object to create, YAML; placeholders {{name}}, {{i}}, {{random A B}}')
    .requiredOption('--count <n>', 'how many objects', count)
    .option('--churn <perSecond>', 'merge patches per second during --duration', nonNegative)
    .option('--churn-patch <json>', 'the churn merge patch; placeholders {{name}}, {{i}}, {{seq}}, {{random A B}} (default: an annotation)')
    .option('--duration <seconds>', 'length of the churn and fault window', nonNegative)
    .option('--restart-apiserver-every <seconds>', 'SIGKILL and restart the apiserver (envtest), etcd compacted while it is down', nonNegative)
    .option('--no-compact-on-restart', 'do not compact etcd while the apiserver is down')
    .option('--freeze-watches-every <seconds>', 'make every watch stream silent (a network partition) every N seconds', nonNegative)
    .option('--freeze-for <seconds>', 'how long watches stay silent before their connections are reset (default 15)', nonNegative)
    .option('--drop-connections-every <seconds>', 'reset every connection of the controller every N seconds', nonNegative)
    .option('--latency <ms>', 'delay added to every API request of the controller', nonNegative)
    .option('--metrics-url <url>', "the controller's /metrics, may use {metricsPort} (default with {metricsPort} in the command: http://127.0.0.1:<port>/metrics)")
    .option('--metrics-token <token>', "bearer token for a secured (https:) /metrics (default: envtest's admin token)")
    .option('--check <module>', 'an ES module exporting unconverged(objects, ctx) => names (default: status.observedGeneration >= metadata.generation)')
    .option('--timeout <seconds>', 'limit of each wait for convergence (default 300)', nonNegative)
    .option('--out <dir>', 'folder for report.json, plot.svg, controller.log', 'loadtest-report')
    .action(async (command: string[], flags: LoadtestFlags) => {
      setExit(await runLoadtestCommand(command, flags, io));
    });
}

async function runLoadtestCommand(command: string[], flags: LoadtestFlags, io: { cwd: string; stdout: (s: string) => void; stderr: { write(s: string): unknown } }): Promise<number> {
  if (flags.envtest !== undefined && flags.kubeconfig !== undefined) throw new CliInputError('--envtest and --kubeconfig exclude each other');
  const profile = typeof flags.envtest === 'string' ? (flags.envtest as (typeof ENVTEST_PROFILES)[number]) : 'full';
  if (flags.nodes !== undefined && (flags.kubeconfig !== undefined || profile !== 'cluster')) throw new CliInputError('--nodes needs --envtest cluster');
  const lt = await import('@kubegen/runtime/testing/loadtest');
  const resolve = (p: string): string => path.resolve(io.cwd, p);
  const asInputError = (err: unknown): never => {
    throw err instanceof CliInputError ? err : new CliInputError((err as Error).message);
  };
  let template: ReturnType<typeof lt.loadObjectTemplate>;
  try {
    template = lt.loadObjectTemplate(resolve(flags.template));
  } catch (err) {
    return asInputError(err);
  }
  const check = flags.check !== undefined ? await loadCheck(resolve(flags.check)) : undefined;
  // The harness's own clients log through the runtime's logger: only warnings and errors on this terminal, unless
  // KUBEGEN_LOG_LEVEL says otherwise (the controller's log goes to <out>/controller.log).
  if (process.env['KUBEGEN_LOG_LEVEL'] === undefined) (await import('@kubegen/runtime')).setupLogging({ 'log-level': 'warn' });
  // Failures of the run itself (no envtest binaries, a CRD that is not served, a controller that cannot start) are
  // the user's setup, reported as one line.
  const report = await lt.runLoadTest({
    ...(flags.kubeconfig !== undefined ? { kubeconfig: resolve(flags.kubeconfig) } : { envtest: { profile, ...(flags.nodes !== undefined ? { nodes: flags.nodes } : {}) } }),
    crdPaths: (flags.crd ?? []).map(resolve),
    template,
    count: flags.count,
    churnPerSecond: flags.churn ?? 0,
    ...(flags.churnPatch !== undefined ? { churnPatch: flags.churnPatch } : {}),
    durationSeconds: flags.duration ?? 0,
    faults: {
      ...(flags.restartApiserverEvery !== undefined ? { restartApiserverEverySeconds: flags.restartApiserverEvery } : {}),
      compactOnRestart: flags.compactOnRestart,
      ...(flags.freezeWatchesEvery !== undefined ? { freezeWatchesEverySeconds: flags.freezeWatchesEvery } : {}),
      ...(flags.freezeFor !== undefined ? { freezeForSeconds: flags.freezeFor } : {}),
      ...(flags.dropConnectionsEvery !== undefined ? { dropConnectionsEverySeconds: flags.dropConnectionsEvery } : {}),
      ...(flags.latency !== undefined ? { latencyMs: flags.latency } : {}),
    },
    command,
    cwd: io.cwd,
    ...(flags.metricsUrl !== undefined ? { metricsUrl: flags.metricsUrl } : {}),
    ...(flags.metricsToken !== undefined ? { metricsToken: flags.metricsToken } : {}),
    ...(check ? { check } : {}),
    outDir: resolve(flags.out),
    ...(flags.timeout !== undefined ? { convergeTimeoutSeconds: flags.timeout } : {}),
    log: (line) => void io.stderr.write(`${line}\n`),
  }).catch(asInputError);
  io.stdout(lt.formatReport(report));
  io.stdout(`report: ${path.join(flags.out, 'report.json')}, plot: ${path.join(flags.out, 'plot.svg')}, controller log: ${path.join(flags.out, 'controller.log')}\n`);
  const ok = report.unreconciled === 0 && report.phases.delete.left === 0 && !report.controller.exitedEarly;
  return ok ? ExitCode.ok : ExitCode.failure;
}

/** The `unconverged` (or default) export of the ES module `file`; an error naming the file otherwise. */
async function loadCheck(file: string): Promise<(objects: readonly object[], ctx: unknown) => string[] | Promise<string[]>> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new CliInputError(`${file}: cannot load the check module: ${(err as Error).message}`);
  }
  const fn = mod['unconverged'] ?? mod['default'];
  if (typeof fn !== 'function') throw new CliInputError(`${file}: exports no function unconverged(objects, ctx) (nor a default one)`);
  return fn as (objects: readonly object[], ctx: unknown) => string[] | Promise<string[]>;
}
