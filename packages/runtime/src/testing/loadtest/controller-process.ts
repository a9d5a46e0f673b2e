/**
 * The controller under test as a child process of the load harness: started in its own process group (so CPU and
 * memory are those of the whole group, e.g. `npm start` and the node it runs), its output appended to a log file,
 * stopped with SIGTERM (then SIGKILL after a grace period) to the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { onAbnormalExit } from '../envtest/envtest-process.js';
import { processGroupStats } from './process-stats.js';

/** How the controller ran, for the report. */
export interface ControllerRun {
  command: string[];
  /** Exit code (or the signal's name); undefined while it runs. */
  exit: number | string | undefined;
  /** The controller ended before the harness stopped it. */
  exitedEarly: boolean;
  cpuSeconds: number;
  peakRssMB: number;
  logFile: string;
}

/** A started controller process (module comment). */
export class ControllerProcess {
  private readonly child: ChildProcess;
  private readonly peakTimer: NodeJS.Timeout;
  private peakRss = 0;
  private lastCpu = 0;
  private stopping = false;
  private exit: number | string | undefined;
  private readonly exited: Promise<void>;
  private early = false;
  private readonly unregisterCleanup: () => void;

  constructor(
    readonly command: string[],
    readonly logFile: string,
    opts: { env: NodeJS.ProcessEnv; cwd?: string; onEarlyExit?: (exit: number | string) => void },
  ) {
    const log = fs.openSync(logFile, 'a');
    try {
      this.child = spawn(command[0]!, command.slice(1), { cwd: opts.cwd, env: opts.env, stdio: ['ignore', log, log], detached: true });
    } finally {
      fs.closeSync(log);
    }
    // The group is detached: if the harness is interrupted (Ctrl-C) or crashes, take the controller down with it.
    this.unregisterCleanup = onAbnormalExit(() => this.signal('SIGKILL'));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.exit = `spawn error: ${err.message}`;
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.exit = code ?? signal ?? 'unknown';
        if (!this.stopping) {
          this.early = true;
          opts.onEarlyExit?.(this.exit);
        }
        resolve();
      });
    });
    // RSS peaks are short: sample the group's memory more often than the once-a-second report samples.
    this.peakTimer = setInterval(() => this.stats(), 200);
    this.peakTimer.unref();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether it is still running. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** CPU seconds and RSS of the group now (the last known CPU once it has ended); updates the peak. */
  stats(): { cpuSeconds: number; rssMB: number } {
    if (this.child.pid === undefined || !this.running) return { cpuSeconds: this.lastCpu, rssMB: 0 };
    const s = processGroupStats(this.child.pid);
    if (s.processes === 0) return { cpuSeconds: this.lastCpu, rssMB: 0 };
    this.lastCpu = Math.max(this.lastCpu, s.cpuSeconds);
    this.peakRss = Math.max(this.peakRss, s.rssMB);
    return { cpuSeconds: this.lastCpu, rssMB: s.rssMB };
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves with the run's summary. */
  async stop(graceMs = 15_000): Promise<ControllerRun> {
    this.stats();
    this.stopping = true;
    clearInterval(this.peakTimer);
    if (this.running && this.child.pid !== undefined) {
      this.signal('SIGTERM');
      const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.unregisterCleanup();
    return { command: this.command, exit: this.exit, exitedEarly: this.early, cpuSeconds: this.lastCpu, peakRssMB: this.peakRss, logFile: this.logFile };
  }

  private signal(sig: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, sig);
    } catch {
      // the group is gone already
    }
  }
}
