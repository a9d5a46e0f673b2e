/**
 * Memory of a process from `/proc/<pid>/status` (Linux): resident set (`VmRSS`) and its high-water mark (`VmHWM`),
 * and a sampler that keeps the highest `VmRSS` seen while something runs (the peak of a process whose high-water
 * mark predates the measurement, e.g. an apiserver that has been up for a while).
 */
import { procMemoryMB } from '@kubegen/runtime/internal/testing/loadtest/process-stats.js';

/** `VmRSS` and `VmHWM` of `pid` in MB; `undefined` when the process or `/proc` is not there. */
export function procMemory(pid: number | 'self'): { rssMB: number; hwmMB: number } | undefined {
  try {
    return procMemoryMB(pid);
  } catch {
    return undefined;
  }
}

/** Polls `VmRSS` of `pid` every `everyMs` until `stop()`, which returns the highest value seen (MB). */
export function sampleRss(pid: number, everyMs = 20): { stop(): number } {
  let peak = procMemory(pid)?.rssMB ?? NaN;
  const timer = setInterval(() => {
    const rss = procMemory(pid)?.rssMB;
    if (rss !== undefined && !(rss <= peak)) peak = rss;
  }, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      const rss = procMemory(pid)?.rssMB;
      if (rss !== undefined && !(rss <= peak)) peak = rss;
      return peak;
    },
  };
}
