/** Linux /proc readings of a child process, for benchmarks and tests (the load harness's readers). */
import { procCpuSeconds, procMemoryMB } from '@kubegen/runtime/internal/testing/loadtest/process-stats.js';

/** User + system CPU seconds of `pid` so far. */
export { procCpuSeconds };

/** Peak resident set size of `pid` in MB (VmHWM). */
export function procPeakRssMB(pid: number): number {
  return procMemoryMB(pid).hwmMB;
}

/** Current resident set size of `pid` in MB (VmRSS). */
export function procRssMB(pid: number): number {
  return procMemoryMB(pid).rssMB;
}
