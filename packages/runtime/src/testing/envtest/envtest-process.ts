/**
 * Child processes of the envtest harness (etcd, kube-apiserver) that must never outlive the test process.
 *
 * Each child runs in its own process group (`detached`), so a kill reaches anything it forked (and a terminal's
 * Ctrl-C does not: the parent decides). Every live child is in a registry that is killed (SIGKILL to the group) on
 * `exit` and uncaught errors, and on SIGINT, SIGTERM and SIGHUP when nothing else handles the signal (then the
 * signal is re-raised so the process still dies the way it would have); a program with its own handler (`kubegen
 * dev`, which stops its children gracefully first) keeps them until it exits. A watchdog shell per child kills the
 * group if the parent disappears without running any handler (SIGKILL, OOM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';

/** What {@link ManagedProcess} runs and where its output goes. */
export interface ManagedProcessOptions {
  /** Shown in error messages. */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  /** Copy the child's stdout/stderr to this process's stderr. */
  attachOutput?: boolean;
  /** The child's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** A directory the watchdog removes after killing the group if this process died without cleaning up. */
  watchdogRemoves?: string;
  /** Receives the child's output as it arrives (it is also kept for `output()`). */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const TAIL_LINES = 40;
const live = new Set<ManagedProcess>();
const exitCleanups = new Set<() => void>();
let hooksInstalled = false;

function killAllNow(): void {
  for (const p of live) p.killNow();
  for (const fn of exitCleanups) {
    try {
      fn();
    } catch {
      // best effort while exiting
    }
  }
  exitCleanups.clear();
}

/**
 * Runs `fn` (synchronously) if the process exits or is signalled before the returned function is called;
 * envtest uses it to remove its temp dir. Returns the unregister function.
 */
export function onAbnormalExit(fn: () => void): () => void {
  installHooks();
  exitCleanups.add(fn);
  return () => exitCleanups.delete(fn);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  process.on('uncaughtExceptionMonitor', killAllNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      process.removeListener(sig, onSignal);
      // Another listener handles the signal (and stops the children its own way): the exit hook still kills what is left.
      if (process.listenerCount(sig) > 0) return;
      killAllNow();
      // Let the default action end the process as if we had not been here.
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

/**
 * A running child process in its own process group that never outlives this process (see the module comment):
 * `stop()` ends it gracefully, `killNow()` at once, `output()` is its last lines for error messages.
 */
export class ManagedProcess {
  readonly name: string;
  private readonly child: ChildProcess;
  private readonly watchdog: ChildProcess | undefined;
  private readonly tail: string[] = [];
  /** The first line that says why a Go program died (klog `F…`, `panic:`, `fatal error:`), kept past the tail. */
  private fatal: string | undefined;
  private partial = '';
  private readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  constructor(opts: ManagedProcessOptions) {
    installHooks();
    this.name = opts.name;
    this.child = spawn(opts.command, opts.args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        live.delete(this);
        this.stopWatchdog();
        resolve(this.exitCode);
      });
      this.child.on('error', (err) => {
        this.record(`spawn error: ${err.message}\n`);
        this.exitCode = -1;
        live.delete(this);
        this.stopWatchdog();
        resolve(-1);
      });
    });
    for (const [stream, name] of [[this.child.stdout, 'stdout'], [this.child.stderr, 'stderr']] as const) {
      stream?.on('data', (chunk: Buffer) => {
        if (opts.attachOutput) process.stderr.write(chunk);
        const text = chunk.toString('utf8');
        opts.onOutput?.(text, name);
        this.record(text);
      });
    }
    // Do not keep the event loop alive just because a control plane is running.
    this.child.unref();
    (this.child.stdout as { unref?: () => void } | null)?.unref?.();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
    if (this.child.pid !== undefined) {
      live.add(this);
      // dash's kill takes no `--`: `kill -9 -PGID` signals the whole group.
      let script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -9 -${this.child.pid} 2>/dev/null`;
      if (opts.watchdogRemoves) script += `; sleep 1; rm -rf ${shellQuote(opts.watchdogRemoves)}`;
      this.watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
      this.watchdog.on('error', () => undefined);
      this.watchdog.unref();
    }
  }

  /** The child's process id, which is also its process group's id (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the process has exited. */
  get done(): boolean {
    return this.exitCode !== undefined;
  }

  /** Resolves with the exit code once the process has exited. */
  waitExit(): Promise<number | null> {
    return this.exited;
  }

  /**
   * The last lines the process printed (for error messages), after the line that said why it died when that has
   * scrolled out of them (a Go program's fatal error is followed by a long goroutine dump).
   */
  output(): string {
    const tail = [...this.tail, this.partial].join('\n').trim();
    return this.fatal && !this.tail.includes(this.fatal) ? `${this.fatal}\n[...]\n${tail}` : tail;
  }

  /** SIGTERM to the group, then SIGKILL after `graceMs`; resolves when the process has exited. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.done) return;
    // The child is unref'd: hold the event loop until its exit arrives, or a caller with nothing else pending
    // (a grace of 0, no open connections) would see its process end with this promise unsettled.
    this.child.ref();
    this.signalGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.signalGroup('SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    await this.exited;
  }

  /** SIGKILL to the group, synchronously (used from exit handlers). */
  killNow(): void {
    if (this.done) return;
    this.signalGroup('SIGKILL');
    this.stopWatchdog();
  }

  private signalGroup(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  }

  private stopWatchdog(): void {
    const pid = this.watchdog?.pid;
    if (pid === undefined || this.watchdog?.exitCode !== null) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private record(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (this.fatal === undefined && /^(F\d{4} |panic: |fatal error: )/.test(line)) this.fatal = line;
      this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
    }
  }
}

/**
 * Polls `ready` (every 100 ms) until it resolves true; rejects early, with the process's output, if `proc` exits,
 * or after `timeoutMs` naming the last error `ready` threw. How envtest waits for each process it starts.
 */
export async function waitUntilReady(proc: ManagedProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let lastError = '';
  for (;;) {
    if (proc.done) throw new Error(`envtest: ${proc.name} exited during startup:\n${proc.output()}`);
    try {
      if (await ready()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    if (performance.now() > deadline) {
      throw new Error(`envtest: ${proc.name} not ready after ${timeoutMs} ms${lastError ? ` (${lastError})` : ''}:\n${proc.output()}`);
    }
    await sleep(realClock, 100);
  }
}
