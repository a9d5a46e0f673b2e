/**
 * CPU and memory of processes from Linux `/proc`: one process (`procCpuSeconds`, `procMemoryMB`, also used by the
 * repo's tests and benches) and a process group (`processGroupStats`, for the load harness: a controller started
 * with `detached: true` leads its own group, so `npm start` → `node main.js`, or a shell wrapper, is measured as a
 * whole). CPU of processes that already exited is not counted (their time goes to a parent only when it reaps them).
 */
import fs from 'node:fs';

const CLK_TCK = 100; // Linux USER_HZ

/** Fields of `/proc/<pid>/stat` from #3 (state) on: the command name before them may hold spaces. Throws when gone. */
function statFields(pid: number | string): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU seconds of `pid` so far (`/proc/<pid>/stat` #14 utime, #15 stime). Throws when it is gone. */
export function procCpuSeconds(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/**
 * Resident set (`VmRSS`), its high-water mark (`VmHWM`) and its two parts now — `RssAnon`, the process's own memory
 * (heap, malloc), and `RssFile`, mapped file pages (for node nearly all its binary's code, shared with every process
 * that maps the same file) — of `pid` in MB, from `/proc/<pid>/status`; NaN for a field the kernel does not report. Throws when the process (or `/proc`) is not there.
 */
export function procMemoryMB(pid: number | 'self'): { rssMB: number; hwmMB: number; anonMB: number; fileMB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rssMB: mb('VmRSS'), hwmMB: mb('VmHWM'), anonMB: mb('RssAnon'), fileMB: mb('RssFile') };
}

/** CPU seconds (user + system) and resident memory (MB) summed over the live processes of group `pgid`. */
export function processGroupStats(pgid: number): { cpuSeconds: number; rssMB: number; processes: number } {
  let cpuSeconds = 0;
  let rssMB = 0;
  let processes = 0;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return { cpuSeconds: NaN, rssMB: NaN, processes: 0 };
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const f = statFields(e);
      if (Number(f[2]) !== pgid) continue; // #5 pgrp
      cpuSeconds += (Number(f[11]) + Number(f[12])) / CLK_TCK;
      processes++;
      rssMB += procMemoryMB(Number(e)).rssMB || 0;
    } catch {
      // exited meanwhile
    }
  }
  return { cpuSeconds, rssMB, processes };
}
