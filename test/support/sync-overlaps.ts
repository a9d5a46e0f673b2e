/**
 * The overlap checker of the sharding tests: from the `sync started` / `sync finished` debug lines of several
 * controller processes (field `resourceName`, the line's time `ts`, to the millisecond), the time intervals each process spent
 * syncing each key, and every pair of intervals of one key from different processes that overlap. A sync that
 * never finished (the process was killed) ends at `openEnd` of its process.
 */

/** One process's log lines (parsed JSON) and when its open syncs end (its kill time, or now). */
export interface SyncLog {
  proc: string;
  lines: readonly Record<string, unknown>[];
  openEnd: number;
}

export interface SyncInterval {
  proc: string;
  start: number;
  end: number;
}

/** Sync intervals per key, and the count of finished syncs. */
export function syncIntervals(logs: readonly SyncLog[]): { byKey: Map<string, SyncInterval[]>; finished: number } {
  const byKey = new Map<string, SyncInterval[]>();
  let finished = 0;
  const push = (key: string, i: SyncInterval): void => void byKey.set(key, [...(byKey.get(key) ?? []), i]);
  for (const log of logs) {
    const open = new Map<string, number>();
    for (const l of log.lines) {
      const key = l['resourceName'] as string;
      if (l['msg'] === 'sync started') open.set(key, lineTime(l));
      else if (l['msg'] === 'sync finished' && open.has(key)) {
        push(key, { proc: log.proc, start: open.get(key)!, end: lineTime(l) });
        open.delete(key);
        finished++;
      }
    }
    for (const [key, start] of open) push(key, { proc: log.proc, start, end: log.openEnd });
  }
  return { byKey, finished };
}

/** When a log line was written, in ms since the epoch (its `ts`; a test's own line may give a number). */
function lineTime(l: Record<string, unknown>): number {
  const ts = l['ts'];
  return typeof ts === 'number' ? ts : Date.parse(String(ts));
}

/** Pairs of intervals of one key, from different processes, that overlap in time. */
export function syncOverlaps(byKey: Map<string, SyncInterval[]>): { key: string; a: SyncInterval; b: SyncInterval }[] {
  const out: { key: string; a: SyncInterval; b: SyncInterval }[] = [];
  for (const [key, list] of byKey) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!;
        const b = list[j]!;
        if (a.proc !== b.proc && a.start < b.end && b.start < a.end) out.push({ key, a, b });
      }
    }
  }
  return out;
}
