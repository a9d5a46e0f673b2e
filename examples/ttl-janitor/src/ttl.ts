/**
 * The janitor's annotation and what it decides from it (kube-janitor's `janitor/ttl`): `janitor.kubegen.io/ttl: 30s`
 * says "delete this object 30 seconds after its creation". A TTL is a whole number and a unit — `s`, `m`, `h`, `d`
 * (24 h) or `w` (7 d) — or `forever` (never delete; useful to exempt an object that inherits the annotation).
 * Everything here is pure: the decision takes the time as an argument.
 */
import type { KubeObject } from '@kubegen/runtime';

/** The annotation the janitor reads. */
export const TTL_ANNOTATION = 'janitor.kubegen.io/ttl';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const TTL_PATTERN = /^(\d+)([smhdw])$/;

/** A parsed TTL: a length in ms, or `forever`. */
export type Ttl = { ms: number } | 'forever';

/**
 * Parses a TTL (`30s`, `5m`, `2h`, `7d`, `1w`, `forever`); throws a TypeError naming the value and the accepted form
 * for anything else (`1.5h`, `5 m`, `-1s`, `10`, `5M`, a number too large to be a date).
 */
export function parseTtl(value: string): Ttl {
  if (value === 'forever') return 'forever';
  const m = TTL_PATTERN.exec(value);
  if (!m) throw new TypeError(`invalid TTL ${JSON.stringify(value)}: use a whole number and a unit (s, m, h, d or w, e.g. 30s, 5m, 2h, 7d) or "forever"`);
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  // Dates reach ±8.64e15 ms; a TTL beyond 100,000 years is a typo, not an intention.
  if (!Number.isSafeInteger(ms) || ms > 100_000 * 365 * UNIT_MS.d) throw new TypeError(`invalid TTL ${JSON.stringify(value)}: too long`);
  return { ms };
}

/** What to do with an object, given its metadata and the time (see {@link decide}). */
export type Verdict =
  /** Nothing to do: no annotation, `forever`, or already being deleted. */
  | { action: 'ignore'; reason: 'no-ttl' | 'forever' | 'deleting' }
  /** The annotation (or the creation time) cannot be read: say so, change nothing. */
  | { action: 'invalid'; value: string; message: string }
  /** Not yet: look again in `afterMs` (when the TTL runs out, at `expiresAt`). */
  | { action: 'wait'; ttl: string; afterMs: number; expiresAt: number }
  /** The TTL has run out (at `expiresAt`, `overdueMs` ago): delete it. */
  | { action: 'delete'; ttl: string; expiresAt: number; overdueMs: number };

/**
 * The janitor's decision for `obj` at `nowMs`: delete it once `creationTimestamp + ttl` has passed, else wait for
 * the rest. Objects being deleted (a `deletionTimestamp`) are left alone.
 */
export function decide(obj: KubeObject, nowMs: number): Verdict {
  const meta = obj.metadata ?? {};
  const value = meta.annotations?.[TTL_ANNOTATION];
  if (value === undefined) return { action: 'ignore', reason: 'no-ttl' };
  if (meta.deletionTimestamp) return { action: 'ignore', reason: 'deleting' };
  let ttl: Ttl;
  try {
    ttl = parseTtl(value);
  } catch (err) {
    return { action: 'invalid', value, message: (err as Error).message };
  }
  if (ttl === 'forever') return { action: 'ignore', reason: 'forever' };
  const created = Date.parse(meta.creationTimestamp ?? '');
  if (Number.isNaN(created)) return { action: 'invalid', value, message: `no readable creationTimestamp (${JSON.stringify(meta.creationTimestamp ?? null)}) to count the TTL from` };
  const expiresAt = created + ttl.ms;
  if (nowMs >= expiresAt) return { action: 'delete', ttl: value, expiresAt, overdueMs: nowMs - expiresAt };
  return { action: 'wait', ttl: value, afterMs: expiresAt - nowMs, expiresAt };
}
