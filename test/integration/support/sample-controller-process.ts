/**
 * Runs the compiled sample controller (`examples/sample-controller/dist/main.js`), or another example's, as a child
 * process for integration tests and lets them wait on its structured (JSON lines) log. Building the example when its
 * `dist/` is missing is done once per file by {@link ensureExampleBuilt}. The caller owns the process: `kill()` it in
 * `after`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './crds.js';

export const SAMPLE_CONTROLLER_MAIN = path.join(REPO_ROOT, 'examples/sample-controller/dist/main.js');

/** One parsed log line (`{"ts","level","msg",...fields}`); non-JSON output lines get `msg` = the raw text. */
export type LogLine = Record<string, unknown> & { msg: string; level?: string };

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Builds the example with the repo's tsc if `dist/main.js` is missing or older than a file of `src/`
 * (`npm run build:examples` without verify), so a test never runs a stale build of the controller.
 */
export function ensureSampleControllerBuilt(): void {
  ensureExampleBuilt('sample-controller');
}

/** Where an example's entry point is built and which of its folders it is built from. */
export interface ExampleLayout {
  /** The built entry point, relative to the example (default `dist/main.js`). */
  main: string;
  /** The folders of its TypeScript sources (default `src`). */
  sources: readonly string[];
}

/**
 * `ensureSampleControllerBuilt` for any example (`examples/<name>`, built into its `dist/`); returns its main.js.
 * An example laid out as a scaffolded project (`apis/` beside `src/`, built from the root) gives its `layout`.
 */
export function ensureExampleBuilt(name: string, layout: ExampleLayout = { main: 'dist/main.js', sources: ['src'] }): string {
  const main = path.join(REPO_ROOT, 'examples', name, layout.main);
  if (fs.existsSync(main)) {
    const built = fs.statSync(main).mtimeMs;
    const newer = layout.sources.some((dir) => {
      const src = path.join(REPO_ROOT, 'examples', name, dir);
      return fs.globSync('**/*.ts', { cwd: src }).some((f) => fs.statSync(path.join(src, f)).mtimeMs > built);
    });
    if (!newer) return main;
  }
  const tsc = spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-p', `examples/${name}/tsconfig.json`], { cwd: REPO_ROOT, stdio: 'inherit' });
  assert.equal(tsc.status, 0, `building examples/${name} failed (npm run build:examples)`);
  return main;
}

/** A free TCP port on 127.0.0.1 (bound and released at once; fine for tests on one host). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export class SampleControllerProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[] = [];
  readonly exited: Promise<ExitStatus>;
  private output = '';
  private partial = '';
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly name: string,
    args: readonly string[],
    env: Record<string, string> = {},
    /** The script run (default the sample controller's; e.g. `ensureExampleBuilt('ttl-janitor')`). */
    main: string = SAMPLE_CONTROLLER_MAIN,
  ) {
    this.child = spawn(process.execPath, [main, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBEGEN_LOG_LEVEL: 'info', ...env },
    });
    const onData = (d: Buffer): void => this.consume(d.toString());
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.notify();
        resolve({ code, signal });
      }),
    );
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last `chars` characters of everything the process wrote (for assertion messages). */
  tail(chars = 4000): string {
    return `--- ${this.name} ---\n${this.output.slice(-chars)}`;
  }

  /** Log lines whose message is `msg`. */
  logged(msg: string): LogLine[] {
    return this.lines.filter((l) => l.msg === msg);
  }

  /** Resolves with the first log line (already seen or future) matching `pred`; fails after `timeoutMs`. */
  async waitForLog(pred: (l: LogLine) => boolean, what: string, timeoutMs = 30_000): Promise<LogLine> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find(pred);
      if (hit) return hit;
      if (!this.running) assert.fail(`${this.name} exited before logging ${what}\n${this.tail()}`);
      const left = deadline - performance.now();
      if (left <= 0) assert.fail(`timed out waiting for ${this.name} to log ${what}\n${this.tail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 1000));
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  /** Waits for the process to exit; fails after `timeoutMs`. */
  async waitForExit(timeoutMs = 15_000): Promise<ExitStatus> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') assert.fail(`${this.name} did not exit within ${timeoutMs} ms\n${this.tail()}`);
    return result;
  }

  /** SIGKILLs the process if it still runs and waits for it to go. Safe to call more than once. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  private consume(text: string): void {
    this.output += text;
    if (this.output.length > 1_000_000) this.output = this.output.slice(-500_000);
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const raw of parts) {
      if (!raw.trim()) continue;
      try {
        this.lines.push(JSON.parse(raw) as LogLine);
      } catch {
        this.lines.push({ msg: raw });
      }
    }
    this.notify();
  }

  private notify(): void {
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }
}
