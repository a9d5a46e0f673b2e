/**
 * `npm run bench:failover` (issue 28, item 2: warm standby): how soon a standby that takes over a Lease reconciles,
 * with `enableWarmup` (its informers synced while it waited) and without (it lists every object after winning).
 *
 * One fresh envtest (kube-apiserver 1.20, `full` profile, as `bench:scale`), N Foos (`BENCH_FAILOVER_FOOS`, default
 * 50,000) in a namespace of their own. Each run, per mode (warm, cold; the order alternates between runs):
 * 1. a leader (bench/support/failover-controller.js: a Manager with leader election, 4 s lease / 3 s renew deadline /
 *    1 s retry, one controller for the Foos) starts and reconciles every Foo;
 * 2. a standby starts and campaigns for the same Lease (warm: until its log says its sources synced), then idles 2 s;
 * 3. the leader is killed with SIGKILL (its Lease is not released); the standby acquires the Lease once it expires.
 * Read from the standby's own JSON log lines (`ts` to the millisecond): the time from `successfully acquired lease`
 * to its `first reconcile` line, and to `reconciled every Foo`. Medians over `BENCH_FAILOVER_RUNS` runs (default
 * 3). Goal: warm, the first reconcile within 1 s of acquiring the Lease; cold it takes the sync time.
 *
 * It ends with `failover: first reconcile X s after acquiring the lease warm, Y s cold`. Environment:
 * `BENCH_FAILOVER_FOOS`, `BENCH_FAILOVER_RUNS`, `BENCH_FAILOVER_CONCURRENCY` (parallel creates, default 64),
 * `KUBEBUILDER_ASSETS`. Timings on a shared machine are noisy: the apiserver, etcd and both controllers share its cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { createTestNamespace } from '@kubegen/runtime/internal/testing/envtest/envtest-namespace.js';
import { createFoos } from './support/foos.js';
import { envtestAssets, SAMPLE_CONTROLLER_CRD } from './support/sample-controller-run.js';

const FOOS = Number(process.env['BENCH_FAILOVER_FOOS'] ?? 50_000);
const RUNS = Number(process.env['BENCH_FAILOVER_RUNS'] ?? 3);
const CONCURRENCY = Number(process.env['BENCH_FAILOVER_CONCURRENCY'] ?? 64);
const GOAL_SECONDS = 1;
const CHILD = path.join(import.meta.dirname, 'support', 'failover-controller.js');
const STEP_TIMEOUT_MS = 300_000;

type Mode = 'warm' | 'cold';

interface LogLine {
  ts: string;
  msg: string;
  [field: string]: unknown;
}

/** A failover-controller process and the JSON lines it logged. */
class ControllerProcess {
  readonly lines: LogLine[] = [];
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private tail = '';
  private waiters: (() => void)[] = [];

  constructor(env: Envtest, ns: string, lease: string, readonly identity: string, mode: Mode) {
    this.child = spawn(process.execPath, ['--conditions=kubegen-internal', CHILD, env.kubeconfigPath, ns, lease, identity, mode, String(FOOS)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, KUBEGEN_LOG_LEVEL: 'info', KUBEGEN_LOG_FORMAT: 'json' },
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      const text = this.tail + chunk;
      const parts = text.split('\n');
      this.tail = parts.pop()!;
      for (const part of parts) {
        try {
          const line = JSON.parse(part) as LogLine;
          if (typeof line.msg === 'string' && typeof line.ts === 'string') this.lines.push(line);
        } catch {
          // Not a log line (e.g. a Node warning): ignored.
        }
      }
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    });
  }

  /** The first line with message `msg`, waiting for it; fails when the process exits or `timeoutMs` passes first. */
  async waitFor(msg: string, timeoutMs = STEP_TIMEOUT_MS): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void this.exited.then((code) => (exitCode = code));
    for (;;) {
      const found = this.lines.find((l) => l.msg === msg);
      if (found) return found;
      if (exitCode !== undefined) throw new Error(`${this.identity} exited (${exitCode}) before logging '${msg}'\n${this.lastLines()}`);
      if (Date.now() > deadline) throw new Error(`${this.identity}: no '${msg}' within ${timeoutMs / 1000} s\n${this.lastLines()}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 500).unref();
      });
    }
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL after 20 s; resolves once the process has exited. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(timer);
  }

  private lastLines(): string {
    return this.lines.slice(-10).map((l) => JSON.stringify(l)).join('\n');
  }
}

interface FailoverResult {
  /** Seconds from the kill to the standby's `successfully acquired lease`. */
  acquiredAfterKill: number;
  /** Seconds from acquiring the Lease to the first reconcile. */
  firstReconcile: number;
  /** Seconds from acquiring the Lease to every Foo reconciled. */
  everyFoo: number;
}

const seconds = (from: LogLine, to: LogLine): number => (Date.parse(to.ts) - Date.parse(from.ts)) / 1000;

async function failover(env: Envtest, ns: string, mode: Mode, run: number): Promise<FailoverResult> {
  const lease = `failover-${mode}-${run}`;
  const leader = new ControllerProcess(env, ns, lease, `${lease}-leader`, mode);
  let standby: ControllerProcess | undefined;
  try {
    await leader.waitFor('successfully acquired lease');
    await leader.waitFor('reconciled every Foo');
    standby = new ControllerProcess(env, ns, lease, `${lease}-standby`, mode);
    await standby.waitFor('attempting to acquire leader lease');
    if (mode === 'warm') await standby.waitFor('warmed up: sources synced, workers start once leading');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    if (standby.lines.some((l) => l.msg === 'successfully acquired lease')) throw new Error(`${standby.identity} acquired the Lease while the leader ran`);
    const killedAt = Date.now();
    leader.kill('SIGKILL');
    const acquired = await standby.waitFor('successfully acquired lease');
    const first = await standby.waitFor('first reconcile');
    const every = await standby.waitFor('reconciled every Foo');
    return {
      acquiredAfterKill: (Date.parse(acquired.ts) - killedAt) / 1000,
      firstReconcile: seconds(acquired, first),
      everyFoo: seconds(acquired, every),
    };
  } finally {
    leader.kill('SIGKILL');
    await Promise.all([leader.stop(), standby?.stop()]);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const t = performance.now();
  const env = await Envtest.start({ assetsDir: envtestAssets(), crdPaths: [SAMPLE_CONTROLLER_CRD], attachOutput: false });
  console.log(`envtest (kube-apiserver 1.20) up in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const admin = env.transport();
  try {
    const ns = await createTestNamespace(admin, 'failover');
    const c = performance.now();
    await createFoos(admin, ns, FOOS, CONCURRENCY);
    const s = (performance.now() - c) / 1000;
    console.log(`created ${FOOS} Foos in ${s.toFixed(1)} s (${CONCURRENCY} in parallel)`);
    console.log(`== failover: lease 4 s / renew deadline 3 s / retry 1 s; the leader is killed with SIGKILL; ${RUNS} run(s) per mode, order alternating`);
    console.log('run  mode  acquired after kill  first reconcile after acquiring  every Foo after acquiring');
    const results: Record<Mode, FailoverResult[]> = { warm: [], cold: [] };
    for (let run = 1; run <= RUNS; run++) {
      for (const mode of (run % 2 === 1 ? ['warm', 'cold'] : ['cold', 'warm']) as Mode[]) {
        const r = await failover(env, ns, mode, run);
        results[mode].push(r);
        console.log(
          `${String(run).padStart(3)}  ${mode}  ${r.acquiredAfterKill.toFixed(3).padStart(17)} s  ${r.firstReconcile.toFixed(3).padStart(29)} s  ` +
            `${r.everyFoo.toFixed(3).padStart(23)} s`,
        );
      }
    }
    const warm = median(results.warm.map((r) => r.firstReconcile));
    const cold = median(results.cold.map((r) => r.firstReconcile));
    const warmWorst = Math.max(...results.warm.map((r) => r.firstReconcile));
    console.log(
      `medians: every Foo reconciled ${median(results.warm.map((r) => r.everyFoo)).toFixed(3)} s after acquiring warm, ` +
        `${median(results.cold.map((r) => r.everyFoo)).toFixed(3)} s cold`,
    );
    console.log(`goal: warm, the first reconcile within ${GOAL_SECONDS} s of acquiring the lease (every run): ${warmWorst <= GOAL_SECONDS ? 'met' : 'NOT met'} (worst ${warmWorst.toFixed(3)} s)`);
    console.log(`failover: first reconcile ${warm.toFixed(3)} s after acquiring the lease warm, ${cold.toFixed(3)} s cold`);
  } finally {
    admin.close();
    await env.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
