/**
 * `kubegen delete api --group <g> --version <v> --kind <Kind> [--dry-run] [--keep-changed]`: undoes what
 * `kubegen create api` wrote for that kind (src/scaffold/delete-api.ts). Exit 0 when everything was undone; 1 when
 * a file changed since create api was left alone (named, with what to do), unless `--keep-changed`; 1 with one line
 * on stderr when it is refused (no such kind, no record, webhooks), nothing changed.
 */
import type { Command } from 'commander';
import { deleteApi, ScaffoldError } from '../scaffold/index.js';
import { CliInputError, ExitCode } from './errors.js';
import { formatDeleteResult } from './scaffold-report.js';

interface DeleteApiFlags {
  group: string;
  version: string;
  kind: string;
  dryRun?: boolean;
  keepChanged?: boolean;
}

/** Registers `delete api` on `program`; `setExit` receives its exit code. */
export function addDeleteCommand(program: Command, io: { cwd: string; stdout: (s: string) => void }, setExit: (code: number) => void): void {
  const del = program.command('delete').description('undo a part of a project that kubegen create scaffolded');
  del
    .command('api')
    .description('undo create api for a kind: remove the files it created and the lines it added (files changed since are left alone and named)')
    .requiredOption('--group <group>', 'API group, without the domain')
    .requiredOption('--version <version>', 'API version of the kind')
    .requiredOption('--kind <Kind>', 'kind')
    .option('--dry-run', 'show what would be removed and reverted, changing nothing')
    .option('--keep-changed', 'files changed since create api are left alone either way; with this flag that is no error (exit 0)')
    .action(async (flags: DeleteApiFlags) => {
      let res;
      try {
        res = await deleteApi({ cwd: io.cwd, group: flags.group, version: flags.version, kind: flags.kind, dryRun: flags.dryRun === true });
      } catch (err) {
        throw err instanceof ScaffoldError ? new CliInputError(err.message) : err;
      }
      io.stdout(formatDeleteResult(res, flags.dryRun === true));
      setExit(res.kept.length > 0 && flags.keepChanged !== true ? ExitCode.failure : ExitCode.ok);
    });
}
