import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../config/resolve-config.js';
import type { CliFlags } from '../config/resolve-config.js';
import { runGenerate, runSample, runVerify, type SampleInput } from './commands.js';
import { runBuiltinSample } from './sample-builtin-command.js';
import type { CommandIO } from './commands.js';
import { CliInputError, ExitCode, reportError } from './errors.js';
import { runDashboard, type DashboardFlags } from './dashboard.js';
import { createApi, createWebhook, DEFAULT_DOMAIN, initProject, ScaffoldError } from '../scaffold/index.js';
import type { ScaffoldResult } from '../scaffold/index.js';
import { addLoadtestCommand } from './loadtest-command.js';
import { addExploreCommand } from './explore-command.js';
import { addDeleteCommand } from './delete-api-command.js';
import { addDevCommand } from './dev-command.js';
import { addValidateCommand } from './validate-command.js';
import { addBundleCommand } from './bundle-command.js';
import { formatScaffoldResult } from './scaffold-report.js';
import { defaultPipeline } from './pipeline.js';
import { editDistance, formatUnknownOptions, parseBool, unknownOptions } from './suggest.js';
import type { Pipeline } from './pipeline.js';
import { processIO } from './io.js';
import type { MainIO } from './io.js';

export type { MainIO } from './io.js';

/**
 * `codegen` / `kubegen` command line.
 *
 *   codegen [generate] [--crds <file|dir>... | --apis <dir>] [--out <dir>] [--crd-out <dir>] [--rbac-out <dir>]
 *                      [--emit-markers] [--no-core-types] [--explain] [--runtime-import <module>] [--config <file>] [--quiet]
 *   codegen [generate] --from-cluster [--kubeconfig <file>] [--context <name>] [--crd <name>... | --group <group>...] --out <dir>
 *   codegen [generate] --rbac-source <dir>... [--rbac-out <dir>] [--webhook-out <dir>]   (markers only: role.yaml, no code)
 *   codegen verify     (same flags)
 *   codegen init [--domain <d>] [--name <project>] [--runtime-version <range> | --kubegen-from <path>] [dir]
 *   codegen create api --group <g> --version <v> --kind <Kind> [--namespaced[=bool]] [--controller[=bool]] [--plural <p>] [--dry-run]
 *   codegen create webhook --group <g> --version <v> --kind <Kind> [--defaulting] [--programmatic-validation] [--conversion]
 *   codegen delete api --group <g> --version <v> --kind <Kind> [--dry-run] [--keep-changed]   (delete-api-command.ts)
 *   codegen dashboard [--out <dir> | --only <file>] [--name <project>]
 *   codegen bundle [entry] [--out <dir>] [--external <pkg>...]   (bundle-command.ts)
 *
 * Without `--crds`/`--out`, values come from `codegen.config.yaml|yml|json` in the current directory (see `config/`).
 * Every mistyped option of a command line is named at once with the closest one (suggest.ts).
 * Exit codes: 0 ok, 1 bad input / out of date, 2 usage, 3 internal error (see errors.ts).
 */

/**
 * The `kubegen` command tree, built but not run: `main` parses argv with it, and `npm run docs` walks it to write
 * docs/cli.md. The commands' actions do their I/O through `io` (`argv`: the command line, which `verify` repeats in
 * the command it suggests); `exitCode()` is the code the last action set.
 */
export function buildProgram(io: MainIO, pipeline?: Pipeline, argv: readonly string[] = []): { program: Command; exitCode: () => number } {
  const writeErr = (s: string): void => void io.stderr.write(s);
  let exitCode: number = ExitCode.ok;
  const run = (command: typeof runGenerate) => async (flags: CliFlags) => {
    const cfg = await resolveConfig(flags, io.cwd);
    const commandIO: CommandIO = { cwd: io.cwd, stdout: io.stdout, stderr: io.stderr, now: io.now, argv };
    exitCode = await command(cfg, commandIO, pipeline ?? defaultPipeline);
  };

  const program = new Command('kubegen')
    .description('Generate typed Kubernetes clients, listers, informers, deepcopy, fakes, CRDs and RBAC from CRDs or TypeScript types; scaffold controller projects.')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    // Program options only before the subcommand, so that `create api --version v1` is the API version.
    .enablePositionalOptions()
    .configureOutput({ writeOut: io.stdout, writeErr, outputError: writeErr })
    .showHelpAfterError('(run kubegen --help for usage)');
  withCommonOptions(
    program.command('generate', { isDefault: true }).description('generate code into the output folder (replaced atomically)'),
  ).action(run(runGenerate));
  withCommonOptions(
    program.command('verify').description('exit 0 when the output folder is current, else print a diff and exit 1'),
  ).action(run(runVerify));
  program
    .command('sample')
    .description(
      'print a minimal valid object per kind of the CRDs or API types (required fields, defaults, enum values, constraints, a branch of each oneOf/anyOf, the common shapes of CEL rules; what it cannot satisfy is named on stderr); with --kind alone, a minimal object of a built-in Kubernetes kind that kube-apiserver accepts',
    )
    .option('--crds <paths...>', 'CRD YAML/JSON files or folders')
    .option('--apis <dir>', 'a folder of TypeScript API types (as `generate --apis`)')
    .option('--kind <kind>', 'only this kind; alone, a built-in Kubernetes kind, named as kubectl names it: Deployment, deployments, deploy, deployments.apps, deployments.v1.apps')
    .option('--version <version>', 'this version instead of the storage version (of a built-in kind: instead of the most stable one)')
    .option('--api-version <group/version>', 'with --kind alone: the built-in kind in this API version (policy/v1, autoscaling/v2, v1)')
    .option('--namespace <namespace>', 'with --kind alone: metadata.namespace of a namespaced kind, and the namespace it names inside (an Event\'s involved object)')
    .option('--skip-non-crds', 'with --crds: skip documents that are not CRDs (install bundles), listing them on stderr, instead of refusing them')
    .action(async (flags: { crds?: string[]; apis?: string; kind?: string; version?: string; apiVersion?: string; namespace?: string; skipNonCrds?: boolean }) => {
      const commandIO: CommandIO = { cwd: io.cwd, stdout: io.stdout, stderr: io.stderr, now: io.now };
      const usage = (message: string): void => {
        writeErr(`error: ${message}\n`);
        exitCode = ExitCode.usage;
      };
      if (flags.crds !== undefined && flags.apis !== undefined) return usage('kubegen sample takes one of --crds <paths...> and --apis <dir>, not both');
      if (flags.crds === undefined && flags.apis === undefined) {
        if (flags.kind === undefined) return usage('kubegen sample needs --crds <paths...>, --apis <dir>, or --kind <kind> of a built-in kind');
        exitCode = await runBuiltinSample(
          { kind: flags.kind, ...(flags.apiVersion !== undefined ? { apiVersion: flags.apiVersion } : {}), ...(flags.version !== undefined ? { version: flags.version } : {}), ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}) },
          commandIO,
        );
        return;
      }
      if (flags.apiVersion !== undefined || flags.namespace !== undefined) return usage(`${flags.apiVersion !== undefined ? '--api-version' : '--namespace'} goes with --kind alone (a built-in kind); with --crds or --apis use --version`);
      if (flags.skipNonCrds && flags.apis !== undefined) return usage('--skip-non-crds goes with --crds (CRD files and folders), not --apis');
      const input: SampleInput = flags.crds
        ? { crds: flags.crds.map((p) => path.resolve(io.cwd, p)), ...(flags.skipNonCrds ? { skipNonCrds: true } : {}) }
        : { apis: path.resolve(io.cwd, flags.apis!) };
      exitCode = await runSample(input, { ...(flags.kind !== undefined ? { kind: flags.kind } : {}), ...(flags.version !== undefined ? { version: flags.version } : {}) }, commandIO, pipeline ?? defaultPipeline);
    });
  program
    .command('dashboard')
    .description('print the Grafana dashboards and the PrometheusRule (alerts) of a controller manager, or write them with --out')
    .option('--out <dir>', 'write grafana/*.json and prometheus/prometheus_rule.yaml under this folder (e.g. config), replacing those files')
    .option('--only <file>', 'print only this file (e.g. controller-runtime-metrics.json or prometheus_rule.yaml)')
    .option('--name <project>', 'project name in titles, uids and the alerts\' job (default: from kubegen.project.yaml, else none)')
    .action(async (flags: DashboardFlags) => {
      exitCode = await runDashboard(flags, { cwd: io.cwd, stdout: io.stdout });
    });
  addScaffoldCommands(program, io);
  addLoadtestCommand(program, io, (code) => (exitCode = code));
  addExploreCommand(program, io, (code) => (exitCode = code));
  addDeleteCommand(program, io, (code) => (exitCode = code));
  addDevCommand(program, io, (code) => (exitCode = code));
  addValidateCommand(program, io, (code) => (exitCode = code));
  addBundleCommand(program, io, (code) => (exitCode = code));
  return { program, exitCode: () => exitCode };
}

/** Runs the CLI with `argv` (arguments after the program name) and returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: MainIO = processIO(), pipeline?: Pipeline): Promise<number> {
  const debug = io.env['KUBEGEN_DEBUG'] === '1' || io.env['KUBEGEN_DEBUG'] === 'true';
  const writeErr = (s: string): void => void io.stderr.write(s);
  const { program, exitCode } = buildProgram(io, pipeline, argv);

  // `generate` is the default command, so a mistyped command would read as its argument: say what was meant.
  const unknown = unknownCommand(program, argv);
  if (unknown) {
    writeErr(`error: unknown command '${unknown.typed}'${unknown.closest ? ` (did you mean '${unknown.closest}'?)` : ''}\n(run kubegen --help for usage)\n`);
    return ExitCode.usage;
  }
  // Every mistyped option at once, each with the closest one, before commander stops at the first problem.
  const typos = unknownOptions(program, argv, 'generate');
  if (typos.length > 0) {
    writeErr(formatUnknownOptions(typos));
    return ExitCode.usage;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; every parse error has already been printed by commander.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    return reportError(err, writeErr, debug);
  }
}

/** `init` and `create api` (src/scaffold): a scaffolding refusal is one line on stderr and exit 1. */
function addScaffoldCommands(program: Command, io: MainIO): void {
  const report = (what: string, res: ScaffoldResult, next: string, dryRun = false): void => void io.stdout(formatScaffoldResult(what, res, next, dryRun));
  const scaffolding = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      throw err instanceof ScaffoldError ? new CliInputError(err.message) : err;
    }
  };
  program
    .command('init')
    .description('scaffold a new controller project into an empty or new folder (default: the current folder)')
    .argument('[dir]', 'project folder', '.')
    .option('--domain <domain>', 'domain of the API groups (<group>.<domain>)', DEFAULT_DOMAIN)
    .option('--name <project>', 'project name, a DNS-1123 label (default: the folder name)')
    .option('--runtime-version <range>', 'npm range of @kubegen/runtime and kubegen on the registry (default: ^ this version)')
    .option('--kubegen-from <path>', 'install kubegen from local tarballs instead: a folder of `npm pack --workspaces` tarballs, or a kubegen checkout (copied into vendor/kubegen)')
    .option('--multicluster', 'a multi-cluster project: a hub manager whose member clusters are kubeconfig Secrets in --clusters-namespace; controllers get a lane per member')
    .option('--tracing', 'install the OpenTelemetry Node SDK\'s tracing packages (about 28 MB more in the image), so startTracing() in src/main.ts exports traces when OTEL_EXPORTER_OTLP_ENDPOINT is set')
    .action((dir: string, flags: { domain: string; name?: string; runtimeVersion?: string; kubegenFrom?: string; multicluster?: boolean; tracing?: boolean }) =>
      scaffolding(async () => {
        const res = await initProject({
          dir: path.resolve(io.cwd, dir),
          domain: flags.domain,
          ...(flags.name !== undefined ? { name: flags.name } : {}),
          ...(flags.runtimeVersion !== undefined ? { runtimeVersion: flags.runtimeVersion } : {}),
          ...(flags.kubegenFrom !== undefined ? { kubegenFrom: path.resolve(io.cwd, flags.kubegenFrom) } : {}),
          multicluster: flags.multicluster === true,
          tracing: flags.tracing === true,
        });
        const cd = path.relative(io.cwd, res.root);
        report('initialised a kubegen project', res, `next: ${cd ? `cd ${cd} && ` : ''}npm install, then npx kubegen create api --group <group> --version v1 --kind <Kind>`);
      }),
    );
  const create = program.command('create').description('scaffold a new part of a project made by kubegen init');
  create
    .command('api')
    .description('scaffold API types (and a controller) for a new kind: apis/<group>/<version>/<kind>_types.ts')
    .requiredOption('--group <group>', 'API group, without the domain (a DNS-1123 label)')
    .requiredOption('--version <version>', 'API version, e.g. v1, v1beta1')
    .requiredOption('--kind <Kind>', 'kind, PascalCase')
    .addOption(new Option('--namespaced [bool]', 'namespaced (true) or cluster-scoped (false)').argParser(parseBool).default(true))
    .addOption(new Option('--controller [bool]', 'also scaffold a controller and its unit test').argParser(parseBool).default(true))
    .option('--plural <plural>', 'resource plural (default: English plural of the lower-cased kind)')
    .option('--dry-run', 'show every file it would create and every line it would add, writing nothing')
    .action((flags: { group: string; version: string; kind: string; namespaced: boolean; controller: boolean; plural?: string; dryRun?: boolean }) =>
      scaffolding(async () => {
        const res = await createApi({
          cwd: io.cwd,
          group: flags.group,
          version: flags.version,
          kind: flags.kind,
          namespaced: flags.namespaced,
          controller: flags.controller,
          ...(flags.plural !== undefined ? { plural: flags.plural } : {}),
          dryRun: flags.dryRun === true,
        });
        if (flags.dryRun) return report(`create api for kind ${flags.kind}`, res, 'run it again without --dry-run to write it', true);
        const undo = `undo with: npx kubegen delete api --group ${flags.group} --version ${flags.version} --kind ${flags.kind}`;
        report(`created kind ${flags.kind}`, res, `${undo}\nnext: edit the types, then npm run generate (and npm test, npm run test:envtest)`);
      }),
    );
  create
    .command('webhook')
    .description('scaffold admission webhooks for a kind made by create api: src/webhooks/<kind>-webhook.ts, tests, config/webhook')
    .requiredOption('--group <group>', 'API group, without the domain')
    .requiredOption('--version <version>', 'API version of the kind')
    .requiredOption('--kind <Kind>', 'kind')
    .option('--defaulting', 'a mutating webhook that sets defaults')
    .option('--programmatic-validation', 'a validating webhook with create/update/delete checks')
    .option('--conversion', 'a conversion webhook between the kind\'s versions, through the storage version')
    .action((flags: { group: string; version: string; kind: string; defaulting?: boolean; programmaticValidation?: boolean; conversion?: boolean }) =>
      scaffolding(async () => {
        const res = await createWebhook({
          cwd: io.cwd,
          group: flags.group,
          version: flags.version,
          kind: flags.kind,
          defaulting: flags.defaulting === true,
          programmaticValidation: flags.programmaticValidation === true,
          conversion: flags.conversion === true,
        });
        report(`created webhooks for ${flags.kind}`, res, 'next: npm run generate (writes config/webhook/manifests.yaml), then npm test and npm run test:envtest');
      }),
    );
}

/**
 * The first argument when it names no command (commands take no positional arguments, except `init [dir]` and
 * `create <what>`, which come after their own name), with the closest command name if one is near enough.
 */
function unknownCommand(program: Command, argv: readonly string[]): { typed: string; closest: string | undefined } | undefined {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) return undefined;
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]).concat('help');
  if (names.includes(first)) return undefined;
  let closest: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(first, name);
    if (distance <= Math.max(2, Math.floor(name.length / 3)) && (!closest || distance < closest.distance)) closest = { name, distance };
  }
  return { typed: first, closest: closest?.name };
}

export { editDistance } from './suggest.js';

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--crds <paths...>', 'CRD YAML/JSON files or folders (multi-document YAML is fine)')
    .option('--apis <dir>', 'folder of TypeScript API types with markers: apis/<group>/<version>/*.ts (instead of --crds)')
    .option('--crd-out <dir>', 'with --apis: folder for the CRD YAML (default config/crd/bases)')
    .option('--rbac-out <dir>', 'with --apis or --rbac-source: folder for role.yaml from +kubebuilder:rbac markers (default config/rbac)')
    .option('--webhook-out <dir>', 'with --apis or --rbac-source: folder for manifests.yaml from +kubebuilder:webhook markers (default config/webhook)')
    .option('--rbac-source <dirs...>', 'with --apis: more folders scanned for +kubebuilder:rbac markers (e.g. your controllers); alone: only role.yaml (and webhook manifests) from these folders, no code, no --out')
    .option('--emit-markers', 'write types.ts with controller-gen markers (readable back by --apis)')
    .option('--no-core-types', 'never type embedded Kubernetes structs (PodTemplateSpec, Container, ...) with the runtime\'s types')
    .option('--explain', 'list every part of a schema typed with a runtime core type, and any drift from the runtime\'s model')
    .option('--out <dir>', 'output folder; owned by the generator and replaced as a whole')
    .option('--runtime-import <module>', 'module generated code imports the runtime from (default "@kubegen/runtime")')
    .option('--group-accessor <group=name...>', "name a group's accessors (serving.kserve.io=kserve gives kserveV1beta1) instead of its labels but the last (servingKserve); replaces the config file's groupAccessors")
    .addOption(new Option('--config <file>', 'config file (default: codegen.config.yaml|yml|json in the current directory)'))
    .option('--skip-non-crds', 'with --crds: skip documents that are not CRDs (install bundles), listing them, instead of refusing them')
    .option('--from-cluster', 'read the CustomResourceDefinitions of a live cluster instead of files (all, or those chosen with --crd and --group)')
    .option('--kubeconfig <file>', 'with --from-cluster: kubeconfig file (default: KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--context <name>', 'with --from-cluster: kubeconfig context (default: the current one)')
    .option('--crd <names...>', 'with --from-cluster: only these CRDs, e.g. foos.samplecontroller.k8s.io')
    .option('--group <groups...>', 'with --from-cluster: every CRD of these API groups (adds to --crd)')
    .option('-v, --verbose', 'also list the inputs passed over (kustomization files in CRD folders)')
    .option('-q, --quiet', 'print only errors');
}

function packageVersion(): string {
  try {
    // dist/src/cli/main.js → package root
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
