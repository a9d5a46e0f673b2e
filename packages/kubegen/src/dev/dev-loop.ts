/**
 * `kubegen dev`: the project's manager against a local control plane, rebuilt and restarted on every change.
 *
 *   preflight (project, ports, envtest binaries: one line and exit 1 when something is missing)
 *   → kubegen generate → control plane (or --kubeconfig) → CRDs, RBAC, webhooks (DevCluster.sync)
 *   → tsc → node dist/src/main.js as the project's ServiceAccount (or the admin) → watch src/, apis/, config/
 *
 * A change of API types or marker sources regenerates, config/ changes are installed, TypeScript changes rebuild;
 * a good build restarts the manager, a failed one leaves the previous manager running. Every child (control plane,
 * generate, tsc, manager) runs in a process group of its own: the first Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops them
 * in order (the manager gracefully), a second kills them all at once. Nothing outlives this process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ManagedProcess } from '@kubegen/runtime/testing/envtest';
import { resolveConfig } from '../config/resolve-config.js';
import { DevCluster } from './dev-cluster.js';
import { managerArgs } from './manager-args.js';
import { checkPorts, checkProject, DevSetupError, type PortClaim, type ProjectLayout } from './preflight.js';
import { SourceWatch, type ChangeSet, type SourceLayout } from './source-watch.js';

/** Settings of {@link runDev} (the command line of `kubegen dev`). */
export interface DevOptions {
  root: string;
  kubeconfig?: string;
  apiserverPort?: number;
  /** 0 turns the endpoint off. */
  metricsPort: number;
  healthPort: number;
  webhookPort: number;
  asAdmin: boolean;
  /** Passed to the manager after the flags `kubegen dev` sets. */
  managerArgs: string[];
  /** Where `kubegen dev` writes its own lines (the children's output goes to this process's stdout/stderr). */
  log: (line: string) => void;
  /** Where it writes what went wrong. */
  logError: (line: string) => void;
}

const KUBEGEN_BIN = fileURLToPath(new URL('../../bin/codegen.js', import.meta.url));
const MANAGER_STOP_GRACE_MS = 10_000;
const READY_TIMEOUT_MS = 60_000;

/** Runs the dev loop until a signal; resolves with the exit code (0 after Ctrl-C, 1 when it could not start). */
export async function runDev(opts: DevOptions): Promise<number> {
  const layout = checkProject(opts.root);
  const sources = await sourceLayout(opts.root);
  const webhooks = opts.kubeconfig === undefined && (fs.existsSync(path.join(opts.root, 'config/webhook/manifests.yaml')) || fs.existsSync(path.join(opts.root, 'src/webhooks')));
  const claims: PortClaim[] = [
    ...(opts.apiserverPort ? [{ port: opts.apiserverPort, flag: '--apiserver-port', what: 'the local apiserver' }] : []),
    { port: opts.metricsPort, flag: '--metrics-port', what: "the manager's metrics" },
    { port: opts.healthPort, flag: '--health-port', what: "the manager's health probes" },
    ...(webhooks ? [{ port: opts.webhookPort, flag: '--webhook-port', what: "the manager's webhooks" }] : []),
  ];
  await checkPorts(claims);
  if (opts.kubeconfig !== undefined && !fs.existsSync(opts.kubeconfig)) throw new DevSetupError(`--kubeconfig ${opts.kubeconfig} does not exist`);
  if (opts.kubeconfig === undefined) {
    const { findAssets } = await import('@kubegen/runtime/testing/envtest');
    try {
      findAssets();
    } catch (err) {
      throw new DevSetupError(`no envtest binaries for the local control plane (${(err as Error).message}): run npm run setup-envtest once (about 5 minutes), or pass --kubeconfig to use a cluster`);
    }
  }
  return new DevLoop(opts, layout, sources).run();
}

async function sourceLayout(root: string): Promise<SourceLayout> {
  const cfg = await resolveConfig({}, root).catch(() => undefined);
  return {
    root,
    apis: cfg?.inputs.apis ?? path.join(root, 'apis'),
    out: cfg?.out ?? path.join(root, 'src/generated'),
    markerSources: cfg?.rbacSources ?? [path.join(root, 'src/controllers'), path.join(root, 'src/webhooks')],
  };
}

class DevLoop {
  private stopping = false;
  private resolveStop!: () => void;
  private readonly stopped = new Promise<void>((r) => (this.resolveStop = r));
  private cluster: DevCluster | undefined;
  private manager: ManagedProcess | undefined;
  private tool: ManagedProcess | undefined;
  private ready = false;
  private busy = false;
  private queued: ChangeSet | undefined;
  private readonly stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-dev-'));
  private readonly watch: SourceWatch;

  constructor(
    private readonly opts: DevOptions,
    private readonly layout: ProjectLayout,
    sources: SourceLayout,
  ) {
    this.watch = new SourceWatch(sources, (batch) => this.enqueue(batch));
  }

  private say(line: string): void {
    this.opts.log(`kubegen dev: ${line}`);
  }

  async run(): Promise<number> {
    const onSignal = (): void => {
      if (this.stopping) {
        this.say('killing everything');
        process.exit(130); // the exit hook of the runtime's process registry SIGKILLs every child group
      }
      this.stopping = true;
      this.say('stopping (Ctrl-C again kills at once)');
      void this.tool?.stop(2000); // a generate or build in progress is not waited for
      this.resolveStop();
    };
    const removeState = (): void => fs.rmSync(this.stateDir, { recursive: true, force: true });
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
    process.on('exit', removeState);
    // The children are unref'd (they never hold a process open): this run does, until it is stopped.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    let code = 0;
    try {
      await this.start();
      if (!this.stopping) await this.stopped;
    } catch (err) {
      this.opts.logError(`error: ${err instanceof Error ? err.message : String(err)}`);
      code = 1;
    } finally {
      await this.shutdown();
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(sig, onSignal);
      removeState();
      process.off('exit', removeState);
      clearInterval(keepAlive);
      this.say('stopped');
    }
    return code;
  }

  private async start(): Promise<void> {
    const generated = await this.runTool('generate', [KUBEGEN_BIN, 'generate', '--quiet']);
    if (this.stopping) return;
    if (!generated) throw new DevSetupError('kubegen generate failed (see above)');
    // From here on an edit is not lost: the first sync and build below read the files after this point.
    this.watch.start();
    this.cluster = await DevCluster.start({
      root: this.opts.root,
      ...(this.opts.kubeconfig !== undefined ? { kubeconfig: this.opts.kubeconfig } : {}),
      ...(this.opts.apiserverPort ? { apiserverPort: this.opts.apiserverPort } : {}),
      asAdmin: this.opts.asAdmin,
      webhookPort: this.opts.webhookPort,
      stateDir: this.stateDir,
      log: (line) => this.say(line),
    });
    this.say(`${this.cluster.describe()}; for kubectl beside it:`);
    this.opts.log(`export KUBECONFIG=${this.cluster.adminKubeconfig}`);
    if (this.stopping) return;
    await this.cluster.sync();
    if (this.stopping) return;
    const built = await this.runTool('tsc', [this.layout.tsc, '-p', 'tsconfig.json']);
    if (this.stopping) return;
    if (built) await this.restartManager();
    else this.say('the build failed (see above): fix it and save to start the manager');
    this.say(`watching src/, apis/ and config/ for changes (Ctrl-C stops everything)`);
    this.ready = true;
    if (this.queued) void this.drain();
  }

  private enqueue(batch: ChangeSet): void {
    const q = this.queued;
    this.queued = q ? { generate: q.generate || batch.generate, build: q.build || batch.build, sync: q.sync || batch.sync, files: [...new Set([...q.files, ...batch.files])] } : batch;
    if (this.ready && !this.busy) void this.drain();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queued && !this.stopping) {
      const batch = this.queued;
      this.queued = undefined;
      // config/ alone (often generate's own writes) says something only when sync installs a change.
      if (batch.generate || batch.build) this.say(`changed: ${batch.files.join(', ')}`);
      await this.cycle(batch).catch((err: unknown) => this.opts.logError(`kubegen dev: ${err instanceof Error ? err.message : String(err)}`));
    }
    this.busy = false;
  }

  private async cycle(batch: ChangeSet): Promise<void> {
    const keep = 'the manager keeps running the previous build';
    const generated = !batch.generate || (await this.runTool('generate', [KUBEGEN_BIN, 'generate', '--quiet']));
    if (this.stopping) return;
    if (!generated) return this.say(`kubegen generate failed (see above): ${keep}`);
    const identityChanged = await this.cluster!.sync();
    const rebuild = batch.build || batch.generate;
    const built = !rebuild || (await this.runTool('tsc', [this.layout.tsc, '-p', 'tsconfig.json']));
    if (this.stopping) return;
    if (!built) return this.say(`the build failed (see above): ${keep}`);
    if (rebuild || identityChanged || !this.manager || this.manager.done) await this.restartManager();
  }

  /** Runs `node <args>` in the project as a child in its own group; resolves whether it exited 0. */
  private async runTool(name: string, args: string[]): Promise<boolean> {
    const { ManagedProcess } = await import('@kubegen/runtime/testing/envtest');
    const tool = new ManagedProcess({ name, command: process.execPath, args, cwd: this.opts.root, onOutput: forward });
    this.tool = tool;
    const code = await tool.waitExit();
    this.tool = undefined;
    return code === 0;
  }

  private async restartManager(): Promise<void> {
    if (!fs.existsSync(this.layout.main)) return this.say(`${path.relative(this.opts.root, this.layout.main)} is missing after the build: is src/main.ts there?`);
    const previous = this.manager;
    this.manager = undefined; // its exit is expected now
    if (previous && !previous.done) {
      this.say('restarting the manager');
      await previous.stop(MANAGER_STOP_GRACE_MS);
    }
    if (this.stopping) return;
    const { ManagedProcess } = await import('@kubegen/runtime/testing/envtest');
    const cluster = this.cluster!;
    const userFormat = this.opts.managerArgs.some((a) => a.startsWith('--log-format'));
    const args = managerArgs({
      main: this.layout.main,
      mainSource: fs.readFileSync(this.layout.main, 'utf8'),
      kubeconfig: await cluster.managerKubeconfig(),
      metricsPort: this.opts.metricsPort,
      healthPort: this.opts.healthPort,
      webhookPort: this.opts.webhookPort,
      webhookCertDir: cluster.webhooks ? cluster.webhookCertDir : undefined,
      textLogs: !userFormat && process.stderr.isTTY,
      userArgs: this.opts.managerArgs,
    });
    const manager = new ManagedProcess({
      name: 'manager',
      command: process.execPath,
      args,
      cwd: this.opts.root,
      env: { ...process.env, ENABLE_WEBHOOKS: cluster.webhooks ? 'true' : 'false' },
      onOutput: forward,
    });
    this.manager = manager;
    void manager.waitExit().then((code) => {
      if (this.manager === manager && !this.stopping) this.say(`the manager exited (code ${code}): fix the code and save to start it again`);
    });
    if (await this.waitReady(manager)) this.say(`manager ready (pid ${manager.pid}, as ${cluster.managerUser})`);
  }

  /** Polls the manager's /readyz; false when it exited or stopped being awaited first. */
  private async waitReady(manager: ManagedProcess): Promise<boolean> {
    if (this.opts.healthPort === 0) return !manager.done;
    const { realClock, sleep } = await import('@kubegen/runtime/clock');
    const deadline = performance.now() + READY_TIMEOUT_MS;
    while (!manager.done && !this.stopping && performance.now() < deadline) {
      const status = await fetch(`http://127.0.0.1:${this.opts.healthPort}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0);
      if (status === 200) return true;
      await sleep(realClock, 200);
    }
    if (!manager.done && !this.stopping) this.say(`the manager is not ready after ${READY_TIMEOUT_MS / 1000} s (its /readyz on port ${this.opts.healthPort})`);
    return false;
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.watch.stop();
    await this.tool?.stop(2000);
    await this.manager?.stop(MANAGER_STOP_GRACE_MS);
    await this.cluster?.stop();
  }
}

/** Copies a child's output to this process's stream of the same name. */
function forward(text: string, stream: 'stdout' | 'stderr'): void {
  (stream === 'stdout' ? process.stdout : process.stderr).write(text);
}
