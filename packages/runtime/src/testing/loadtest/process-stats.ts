/**
 * CPU and memory of a process group from Linux `/proc`, for the load harness: a controller started with
 * `detached: true` leads its own process group, so `npm start` → `node main.js` (or a shell wrapper) is measured as a
 * whole. CPU of processes that already exited is not counted (their time goes to a parent only when it reaps them).
 */
import fs from 'node:fs';

const CLK_TCK = 100; // Linux USER_HZ

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
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces): #3 state, #5 pgrp, #14 utime, #15 stime.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) !== pgid) continue;
    processes++;
    cpuSeconds += (Number(f[11]) + Number(f[12])) / CLK_TCK;
    try {
      rssMB += Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${e}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      // exited meanwhile
    }
  }
  return { cpuSeconds, rssMB, processes };
}
