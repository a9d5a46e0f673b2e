/**
 * `kubegen dev` (a scaffolded project's `npm run dev`): the manager against a local control plane from the envtest
 * binaries, or an existing cluster, rebuilt and restarted on every change (see dev/dev-loop.ts).
 *
 *   kubegen dev [--kubeconfig FILE] [--apiserver-port N] [--metrics-port N] [--health-port N] [--webhook-port N]
 *               [--as-admin] [-- MANAGER FLAGS...]
 *
 * Exits 0 after Ctrl-C, 1 with one line when it cannot start (not a project, a port taken, no envtest binaries).
 */
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { ExitCode } from './errors.js';
import { runDev } from '../dev/dev-loop.js';
import { DevSetupError } from '../dev/preflight.js';

interface DevFlags {
  kubeconfig?: string;
  apiserverPort?: number;
  metricsPort: number;
  healthPort: number;
  webhookPort: number;
  asAdmin?: boolean;
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port number (0-65535)');
  return n;
}

/** The webhook port is where the apiserver is pointed: it cannot be "any". */
function fixedPort(value: string): number {
  const n = port(value);
  if (n === 0) throw new InvalidArgumentError('expected a port number (1-65535)');
  return n;
}

/** Registers `dev` on `program`; `setExit` receives its exit code. */
export function addDevCommand(program: Command, io: { cwd: string; stdout: (s: string) => void; stderr: { write(s: string): unknown } }, setExit: (code: number) => void): void {
  program
    .command('dev')
    .description('run the manager against a local control plane (or --kubeconfig): installs CRDs, RBAC and webhooks, runs it as its ServiceAccount, rebuilds and restarts it on changes')
    .argument('[flags...]', 'more flags for the manager, after --')
    .option('--kubeconfig <file>', 'use this cluster instead of a local control plane (its webhooks stay off: the cluster cannot call this machine)')
    .option('--apiserver-port <port>', 'port of the local apiserver on 127.0.0.1 (default: a free one)', port)
    .option('--metrics-port <port>', "the manager's /metrics on 127.0.0.1 (0: off)", port, 8443)
    .option('--health-port <port>', "the manager's /healthz and /readyz on 127.0.0.1 (0: off)", port, 8081)
    .option('--webhook-port <port>', "the manager's webhooks on 127.0.0.1 (local control plane only)", fixedPort, 9443)
    .option('--as-admin', "run the manager with the admin's credentials instead of its ServiceAccount bound to config/rbac")
    .action(async (managerFlags: string[], flags: DevFlags) => {
      try {
        setExit(
          await runDev({
            root: io.cwd,
            ...(flags.kubeconfig !== undefined ? { kubeconfig: path.resolve(io.cwd, flags.kubeconfig) } : {}),
            ...(flags.apiserverPort ? { apiserverPort: flags.apiserverPort } : {}),
            metricsPort: flags.metricsPort,
            healthPort: flags.healthPort,
            webhookPort: flags.webhookPort,
            asAdmin: flags.asAdmin === true,
            managerArgs: managerFlags,
            log: (line) => io.stdout(`${line}\n`),
            logError: (line) => void io.stderr.write(`${line}\n`),
          }),
        );
      } catch (err) {
        if (!(err instanceof DevSetupError)) throw err;
        io.stderr.write(`error: ${err.message}\n`);
        setExit(ExitCode.failure);
      }
    });
}
