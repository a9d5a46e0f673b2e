/**
 * `Manager.startWithSignals()` / `setupSignalHandler()` in a real child process (a tiny script: a leader-elected
 * manager on the fake transport with one controller whose reconcile takes a while):
 * - SIGTERM during a reconcile: the reconcile's signal aborts, the reconcile still finishes, the Lease is released,
 *   `startWithSignals()` resolves and the process exits 0 on its own (nothing left holding the event loop);
 * - a second SIGTERM while shutting down exits 1 at once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const runtimeDist = new URL('../../../packages/runtime/dist/', import.meta.url);
const mod = (p: string): string => JSON.stringify(new URL(p, runtimeDist).href);

/** The child: prints `reconcile-started`, `reconcile-finished aborted=<bool>`, `manager-stopped holder=<json>`. */
const SCRIPT = `
const { Manager } = await import(${mod('manager/manager.js')});
const { controllerFor } = await import(${mod('builder/builder.js')});
const { builtinResources } = await import(${mod('builtin/resources.js')});
const { nullLogger } = await import(${mod('log.js')});
const { newFakeTransport } = await import(${mod('testing/fake/fake-transport.js')});
const cm = builtinResources.configMaps;
const transport = newFakeTransport([cm, builtinResources.leases], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } });
const mgr = new Manager({
  transport, metricsBindAddress: '0', logger: nullLogger,
  leaderElection: true, leaderElectionId: 'lock', leaderElectionNamespace: 'ns', leaderElectionIdentity: 'me',
  leaderElectionReleaseOnCancel: true,
});
controllerFor(mgr, cm).complete(async (req, ctx) => {
  console.log('reconcile-started');
  await new Promise((r) => setTimeout(r, Number(process.env.WORK_MS)));
  console.log('reconcile-finished aborted=' + ctx.signal.aborted);
});
await mgr.startWithSignals();
const lease = await transport.request({ verb: 'get', resource: builtinResources.leases, namespace: 'ns', name: 'lock' });
console.log('manager-stopped holder=' + JSON.stringify(lease.spec.holderIdentity ?? ''));
`;

interface Run {
  output: () => string;
  waitFor: (text: string) => Promise<void>;
  kill: (sig: NodeJS.Signals) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runScript(workMs: number): Run {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WORK_MS: String(workMs) },
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer): void => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // Never leave the child behind if an assertion fails.
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  void exited.then(() => clearTimeout(timer));
  return {
    output: () => out,
    kill: (sig) => child.kill(sig),
    exited,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (out.includes(text)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
        void exited.then(() => {
          if (!out.includes(text)) reject(new Error(`child exited before printing ${text}:\n${out}`));
        });
      }),
  };
}

test('startWithSignals: SIGTERM lets the in-flight reconcile finish, releases the Lease and exits 0', async () => {
  const run = runScript(500);
  await run.waitFor('reconcile-started');
  run.kill('SIGTERM');
  const result = await run.exited;
  assert.deepEqual(result, { code: 0, signal: null }, run.output());
  const lines = run.output().trim().split('\n');
  assert.deepEqual(lines, ['reconcile-started', 'reconcile-finished aborted=true', 'manager-stopped holder=""']);
});

test('startWithSignals: a second SIGTERM during shutdown exits 1 at once', async () => {
  const run = runScript(60_000);
  await run.waitFor('reconcile-started');
  run.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  run.kill('SIGTERM');
  const result = await run.exited;
  assert.deepEqual(result, { code: 1, signal: null }, run.output());
  assert.doesNotMatch(run.output(), /reconcile-finished|manager-stopped/);
});
