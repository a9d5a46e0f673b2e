/**
 * The newcomer's `npm run dev` (issue 23, item 6), in a scaffolded and installed project: a local control plane on
 * fixed ports, the manager as its ServiceAccount; `kubectl apply` of the sample through the printed kubeconfig
 * reaches Ready, an edit of the controller is picked up, and Ctrl-C (SIGINT to the process group, as a terminal
 * sends it) leaves no process behind: every process the run started carries a marker in its environment, and
 * /proc is searched for it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePorts } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { run } from './newcomer.js';
import { sleep } from '../../support/wait.js';

const MARK = 'KUBEGEN_DEV_TEST_MARK';

/** Process ids whose environment carries `MARK=value`. */
function markedProcesses(value: string): number[] {
  const needle = Buffer.from(`${MARK}=${value}\0`);
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`).includes(needle)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** `kubectl get` of one Frigate's Ready condition as `status|message`, '' while it has none. */
function readyOf(kubectl: (args: string[]) => string, name: string): string {
  return kubectl(['get', 'frigate', name, '-o', 'jsonpath={range .status.conditions[?(@.type=="Ready")]}{.status}|{.message}{end}']).trim();
}

async function until<T>(what: string, output: () => string, check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) assert.fail(`${what} within ${timeoutMs / 1000} s; npm run dev said:\n${output().slice(-6000)}`);
    await sleep(250);
  }
}

/** Runs the check described in the module comment; resolves with how long it took to be ready, to run an edit, in all. */
export async function checkDevLoop(project: string, env: NodeJS.ProcessEnv): Promise<{ readySeconds: number; editSeconds: number; totalSeconds: number }> {
  const mark = randomBytes(6).toString('hex');
  const [apiserverPort, metricsPort, healthPort, webhookPort] = (await freePorts(4)) as [number, number, number, number];
  const started = performance.now();
  const child = spawn(
    'npm',
    ['run', 'dev', '--', `--apiserver-port=${apiserverPort}`, `--metrics-port=${metricsPort}`, `--health-port=${healthPort}`, `--webhook-port=${webhookPort}`],
    // Its own process group, as a shell's foreground job: the SIGINT below reaches npm and everything in the group.
    { cwd: project, env: { ...env, [MARK]: mark }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // 'close': npm and everything holding its output (kubegen dev) are gone, not just npm.
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const controllerFile = path.join(project, 'src/controllers/frigate-controller.ts');
  const controllerSource = fs.readFileSync(controllerFile, 'utf8');
  const readyLines = (): number => output.match(/^kubegen dev: manager ready \(pid \d+, as system:serviceaccount:fleet-operator-system:fleet-operator-controller-manager\)$/gm)?.length ?? 0;
  try {
    await until('the manager is ready as its ServiceAccount', () => output, () => (readyLines() >= 1 ? true : undefined), 180_000);
    const readySeconds = (performance.now() - started) / 1000;
    assert.match(output, new RegExp(`local control plane \\(kube-apiserver 1\\.20\\) at https://127\\.0\\.0\\.1:${apiserverPort};`));
    assert.match(output, /webhooks of config\/webhook\/manifests\.yaml call the manager at https:\/\/127\.0\.0\.1:\d+/);
    const kubeconfig = /^export KUBECONFIG=(.+)$/m.exec(output)?.[1];
    assert.ok(kubeconfig && fs.existsSync(kubeconfig), `a kubeconfig for kubectl:\n${output}`);
    // kubectl from PATH, as a user beside `npm run dev` (the sample goes through the manager's webhooks).
    const kubectl = (args: string[]): string => run('kubectl', args, { cwd: project, env: { ...env, KUBECONFIG: kubeconfig } }).stdout;
    kubectl(['apply', '-f', 'config/samples/ships_v1_frigate.yaml']);
    await until('frigate-sample is Ready', () => output, () => (readyOf(kubectl, 'frigate-sample').startsWith('True|') ? true : undefined), 60_000);

    const edited = performance.now();
    fs.writeFileSync(controllerFile, controllerSource.replace("message: 'the Frigate was reconciled'", "message: 'reconciled by the edited controller'"));
    await until('the edited manager is ready', () => output, () => (readyLines() >= 2 ? true : undefined), 120_000);
    const second = path.join(path.dirname(kubeconfig), 'frigate-edited.yaml');
    fs.writeFileSync(second, fs.readFileSync(path.join(project, 'config/samples/ships_v1_frigate.yaml'), 'utf8').replace('name: frigate-sample', 'name: frigate-edited'));
    kubectl(['apply', '-f', second]);
    await until('frigate-edited is Ready by the edited controller', () => output, () => (readyOf(kubectl, 'frigate-edited') === 'True|reconciled by the edited controller' ? true : undefined), 60_000);
    const editSeconds = (performance.now() - edited) / 1000;

    process.kill(-child.pid!, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const end = await Promise.race([closed, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 60_000)))]);
    clearTimeout(timer);
    // npm itself dies of the SIGINT, as in a terminal; kubegen dev stops everything and says so.
    assert.ok(end && (end.code === 0 || end.signal === 'SIGINT'), `npm run dev ends after Ctrl-C (${JSON.stringify(end)}):\n${output.slice(-4000)}`);
    assert.match(output, /^kubegen dev: stopping \(Ctrl-C again kills at once\)$/m);
    assert.match(output, /^kubegen dev: stopped$/m);
    assert.doesNotMatch(output, /^error:/m);
    await until('no process of the run is left', () => output, () => (markedProcesses(mark).length === 0 ? true : undefined), 10_000);
    assert.ok(!fs.existsSync(kubeconfig), 'the control plane folder is removed');
    return { readySeconds, editSeconds, totalSeconds: (performance.now() - started) / 1000 };
  } finally {
    fs.writeFileSync(controllerFile, controllerSource);
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const pid of markedProcesses(mark)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}
