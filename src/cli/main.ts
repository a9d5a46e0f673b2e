import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { resolveConfig } from './config.js';
import type { CliFlags } from './config.js';
import { runGenerate, runVerify } from './commands.js';
import type { CommandIO } from './commands.js';
import { ExitCode, reportError } from './errors.js';
import { defaultPipeline } from './pipeline.js';
import type { Pipeline } from './pipeline.js';
import type { ProgressSink } from './progress.js';

/**
 * `codegen` / `kubegen` command line.
 *
 *   codegen [generate] [--crds <file|dir>... | --apis <dir>] [--out <dir>] [--crd-out <dir>] [--rbac-out <dir>]
 *                      [--emit-markers] [--runtime-import <module>] [--config <file>] [--quiet]
 *   codegen verify     (same flags)
 *
 * Without `--crds`/`--out`, values come from `codegen.config.yaml|yml|json` in the current directory (see config.ts).
 * Exit codes: 0 ok, 1 bad input / out of date, 2 usage, 3 internal error (see errors.ts).
 */

export interface MainIO {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: (s: string) => void;
  stderr: ProgressSink;
  now: () => number;
}

/** Runs the CLI with `argv` (arguments after the program name) and returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: MainIO = processIO(), pipeline?: Pipeline): Promise<number> {
  const debug = io.env['KUBEGEN_DEBUG'] === '1' || io.env['KUBEGEN_DEBUG'] === 'true';
  const writeErr = (s: string): void => void io.stderr.write(s);
  let exitCode: number = ExitCode.ok;
  const run = (command: typeof runGenerate) => async (flags: CliFlags) => {
    const cfg = await resolveConfig(flags, io.cwd);
    const commandIO: CommandIO = { cwd: io.cwd, stdout: io.stdout, stderr: io.stderr, now: io.now };
    exitCode = await command(cfg, commandIO, pipeline ?? defaultPipeline);
  };

  const program = new Command('codegen')
    .description('Generate typed Kubernetes clients, listers, informers, deepcopy and fakes from CRDs.')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr, outputError: writeErr })
    .showHelpAfterError('(run codegen --help for usage)');
  withCommonOptions(
    program.command('generate', { isDefault: true }).description('generate code into the output folder (replaced atomically)'),
  ).action(run(runGenerate));
  withCommonOptions(
    program.command('verify').description('exit 0 when the output folder is current, else print a diff and exit 1'),
  ).action(run(runVerify));

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; every parse error has already been printed by commander.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    return reportError(err, writeErr, debug);
  }
}

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--crds <paths...>', 'CRD YAML/JSON files or folders (multi-document YAML is fine)')
    .option('--apis <dir>', 'folder of TypeScript API types with markers: apis/<group>/<version>/*.ts (instead of --crds)')
    .option('--crd-out <dir>', 'with --apis: folder for the CRD YAML (default config/crd/bases)')
    .option('--rbac-out <dir>', 'with --apis: folder for role.yaml from +kubebuilder:rbac markers (default config/rbac)')
    .option('--rbac-source <dirs...>', 'with --apis: more folders scanned for +kubebuilder:rbac markers (e.g. your controllers)')
    .option('--emit-markers', 'write types.ts with controller-gen markers (readable back by --apis)')
    .option('--out <dir>', 'output folder; owned by the generator and replaced as a whole')
    .option('--runtime-import <module>', 'module generated code imports the runtime from (default "kubegen/runtime")')
    .addOption(new Option('--config <file>', 'config file (default: codegen.config.yaml|yml|json in the current directory)'))
    .option('-q, --quiet', 'print only errors');
}

function packageVersion(): string {
  try {
    // dist/src/cli/main.js → package root
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function processIO(): MainIO {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (s) => void process.stdout.write(s),
    stderr: process.stderr,
    now: () => performance.now(),
  };
}
