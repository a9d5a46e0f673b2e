/**
 * Start or exit, as the scaffold's built manager does it (`init`, `create api`, `create webhook`, `generate`, `tsc`,
 * then `node dist/src/main.js`): each start failure — no webhook certificate, the metrics, probe or webhook port
 * taken, a bad kubeconfig — ends the process non-zero within 5 s with one error line naming the cause, and nothing
 * left listening; SIGTERM while a cache sync cannot finish (an apiserver that never answers) ends it within the
 * graceful period, after `/readyz` said not ready all along. `--webhook-host` binds the webhooks to one address.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateServingCertificate, writeServingCertificate } from '@kubegen/runtime/internal/certs/self-signed.js';
import { freePorts } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';
import { runCli } from '../support/cli.js';
import { REPO_ROOT, TSC, linkRuntimePackage } from '../support/paths.js';

let tmp: string;
let project: string;
/** A TCP server that accepts connections and never answers: requests to it hang until aborted. */
let silent: net.Server;
let silentKubeconfig: string;
let certDir: string;
const sockets = new Set<net.Socket>();

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-start-failures-'));
  project = path.join(tmp, 'op');
  for (const args of [
    ['init', '--domain', 'example.com', 'op'],
    ['create', 'api', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate'],
    ['create', 'webhook', '--group', 'ships', '--version', 'v1', '--kind', 'Frigate', '--defaulting'],
    ['generate', '-q'],
  ]) {
    const r = await runCli(args[0] === 'init' ? tmp : project, ...args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
  }
  fs.mkdirSync(path.join(project, 'node_modules', '@types'), { recursive: true });
  linkRuntimePackage(project);
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(project, 'node_modules', '@types', 'node'), 'dir');
  const tsc = spawnSync(TSC, ['-p', path.join(project, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);

  silent = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentKubeconfig = path.join(tmp, 'silent.kubeconfig');
  fs.writeFileSync(
    silentKubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 'x' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
      'current-context': 'x',
    }),
  );
  certDir = path.join(tmp, 'certs');
  await writeServingCertificate(certDir, await generateServingCertificate({ hosts: ['127.0.0.1'] }));
});

after(() => {
  for (const s of sockets) s.destroy();
  silent?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Started {
  exited: Promise<{ code: number | null; ms: number }>;
  stderr: () => string;
  kill: (sig: NodeJS.Signals) => void;
}

function start(args: string[], env: NodeJS.ProcessEnv = {}): Started {
  const began = performance.now();
  const child = spawn(process.execPath, ['dist/src/main.js', ...args], { cwd: project, env: { ...process.env, KUBEGEN_LOG_FORMAT: 'json', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, ms: performance.now() - began });
    }),
  );
  return { exited, stderr: () => err, kill: (sig) => child.kill(sig) };
}

const errorLines = (stderr: string): { msg: string; error?: string }[] =>
  stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string; error?: string }).filter((l) => (l as { level: string }).level === 'error');

function listening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** Runs the manager expecting a start failure: exit 1 within 5 s, one error line matching `cause`, no port left open. */
async function expectStartFailure(args: string[], cause: RegExp, ports: number[]): Promise<void> {
  const run = start(args);
  const { code, ms } = await run.exited;
  assert.equal(code, 1, run.stderr());
  assert.ok(ms < 5000, `exited after ${Math.round(ms)} ms`);
  const errors = errorLines(run.stderr());
  assert.equal(errors.length, 1, run.stderr());
  assert.equal(errors[0]!.msg, 'manager failed');
  assert.match(String(errors[0]!.error), cause);
  for (const p of ports) assert.equal(await listening(p), false, `port ${p} still open`);
}

describe('the scaffold manager: start or exit', () => {
  it('no webhook certificate', async () => {
    const [metrics, probes, webhooks] = await freePorts(3);
    const empty = fs.mkdtempSync(path.join(tmp, 'no-certs-'));
    await expectStartFailure(
      ['--kubeconfig', silentKubeconfig, '--metrics-bind-address', `127.0.0.1:${metrics}`, '--health-probe-bind-address', `127.0.0.1:${probes}`, '--webhook-port', String(webhooks), '--webhook-cert-dir', empty],
      new RegExp(`webhook server: .*${empty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      [metrics!, probes!, webhooks!],
    );
  });

  for (const which of ['metrics', 'health probe', 'webhook'] as const) {
    it(`the ${which} port already taken`, async () => {
      const [metrics, probes, webhooks] = (await freePorts(3)) as [number, number, number];
      const taken = { metrics, 'health probe': probes, webhook: webhooks }[which];
      const blocker = net.createServer();
      await new Promise<void>((r) => blocker.listen(taken, '0.0.0.0', r));
      try {
        const others = [metrics, probes, webhooks].filter((p) => p !== taken);
        await expectStartFailure(
          ['--kubeconfig', silentKubeconfig, '--metrics-bind-address', `127.0.0.1:${metrics}`, '--health-probe-bind-address', `127.0.0.1:${probes}`, '--webhook-port', String(webhooks), '--webhook-cert-dir', certDir],
          new RegExp(`${which} server: .*EADDRINUSE`),
          others,
        );
      } finally {
        blocker.close();
      }
    });
  }

  it('--webhook-host: the webhooks listen on that address only (kubegen dev passes 127.0.0.1); unset, on every interface', async () => {
    for (const [host, onV6Loopback] of [['127.0.0.1', false], [undefined, true]] as const) {
      const [webhooks] = (await freePorts(1)) as [number];
      const run = start(['--kubeconfig', silentKubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--webhook-port', String(webhooks), '--webhook-cert-dir', certDir, ...(host ? ['--webhook-host', host] : [])]);
      try {
        let up = false;
        for (let i = 0; i < 100 && !up; i++) {
          up = await listening(webhooks);
          if (!up) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(up, true, `webhooks on 127.0.0.1:${webhooks}\n${run.stderr()}`);
        assert.equal(await listening(webhooks, '::1'), onV6Loopback, `webhooks on [::1]:${webhooks} with --webhook-host ${host ?? 'unset'}`);
      } finally {
        run.kill('SIGTERM');
        assert.equal((await run.exited).code, 0, run.stderr());
      }
    }
  });

  it('a bad kubeconfig (missing, not YAML, no current context)', async () => {
    const garbage = path.join(tmp, 'garbage.kubeconfig');
    fs.writeFileSync(garbage, 'clusters: [oops');
    const noContext = path.join(tmp, 'no-context.kubeconfig');
    fs.writeFileSync(noContext, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] }));
    for (const [file, cause] of [[path.join(tmp, 'missing'), /ENOENT/], [garbage, /invalid YAML/], [noContext, /no current cluster/]] as const) {
      await expectStartFailure(['--kubeconfig', file, '--metrics-bind-address', '0', '--health-probe-bind-address', '0'], cause, []);
    }
  });

  it('SIGTERM while a cache sync cannot finish: /readyz is never ok, and the process exits 0 within the graceful period', async () => {
    const [metrics, probes] = (await freePorts(2)) as [number, number];
    const run = start(['--kubeconfig', silentKubeconfig, '--metrics-bind-address', `127.0.0.1:${metrics}`, '--health-probe-bind-address', `127.0.0.1:${probes}`], { ENABLE_WEBHOOKS: 'false' });
    let readyz = 0;
    for (let i = 0; i < 100 && readyz === 0; i++) {
      readyz = await fetch(`http://127.0.0.1:${probes}/readyz`).then((r) => r.status, () => 0);
      if (readyz === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(readyz, 500, 'not ready while nothing has synced');
    assert.equal(await fetch(`http://127.0.0.1:${probes}/healthz`).then((r) => r.status), 200, 'alive: it is waiting, not failed');
    run.kill('SIGTERM');
    const { code, ms } = await run.exited;
    assert.equal(code, 0, run.stderr());
    assert.ok(ms < 30_000, `exited after ${Math.round(ms)} ms`);
    assert.deepEqual(errorLines(run.stderr()), [], 'a requested stop is no failure');
    for (const p of [metrics, probes]) assert.equal(await listening(p), false);
  });
});
