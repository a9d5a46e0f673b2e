/** Linux /proc readings of a child process, for benchmarks and tests. */
import fs from 'node:fs';

const CLK_TCK = 100; // Linux USER_HZ

/** User + system CPU seconds of `pid` so far. */
export function procCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from #3 (state) on
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // #14 utime, #15 stime
}

/** Peak resident set size of `pid` in MB (VmHWM). */
export function procPeakRssMB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Current resident set size of `pid` in MB (VmRSS). */
export function procRssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
