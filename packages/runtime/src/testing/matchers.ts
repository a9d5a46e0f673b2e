/**
 * Test matchers in the spirit of controller-runtime's komega: wait for an object (or a list) as a client reads it to
 * meet a condition, or check that it keeps meeting one. The condition is a predicate that returns a boolean or
 * asserts (throws); every read goes through the client you give (the API through a typed client, or a cache).
 *
 * Contract: `eventuallyObject` resolves with the first object that meets the condition; it retries a read that
 * fails as not found (the object may not exist yet) and any failed condition, and after `timeoutMs` rejects with a
 * message that says what failed last, prints the last object seen and what changed in it since the first one seen
 * (`metadata.resourceVersion` and `managedFields` left out). `objectList` does the same for a list's items.
 * `consistently` runs its check every `intervalMs` for `durationMs` and rejects at the first failure, naming when.
 * Real time, not a `Clock`.
 */
import { isNotFound } from '../client/errors.js';
import { sleep } from '../deadline.js';
import { realClock } from '../clock.js';

/** How long to wait and how often to look (defaults: 10 s, every 100 ms). */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** A condition on what was read: true when met; false or a thrown error (an assertion) when not. */
export type Condition<T> = (value: T) => boolean | void | Promise<boolean | void>;

/** Anything that gets objects by name: a typed or generic client, already in its namespace. */
export interface ObjectGetter<T> {
  get(name: string): Promise<T>;
}

/** Anything that lists objects: a typed or generic client, already in its namespace. */
export interface ObjectLister<T> {
  list(): Promise<{ items: T[] }>;
}

/** Waits until `client.get(name)` returns an object meeting `condition`; resolves with it (see the module comment). */
export async function eventuallyObject<T>(client: ObjectGetter<T>, name: string, condition: Condition<T>, opts: WaitOptions = {}): Promise<T> {
  return waitFor(`object ${JSON.stringify(name)}`, () => client.get(name), condition, opts);
}

/** Waits until `client.list()`'s items meet `condition`; resolves with them (see the module comment). */
export async function objectList<T>(client: ObjectLister<T>, condition: Condition<T[]>, opts: WaitOptions = {}): Promise<T[]> {
  return waitFor('the list', async () => (await client.list()).items, condition, opts);
}

/**
 * Checks `check` every `intervalMs` (default 100 ms) for `durationMs` (default 2 s): it must not throw nor return
 * false. Rejects at the first failure with how long it had held.
 */
export async function consistently(check: () => boolean | void | Promise<boolean | void>, opts: { durationMs?: number; intervalMs?: number } = {}): Promise<void> {
  const durationMs = opts.durationMs ?? 2000;
  const intervalMs = opts.intervalMs ?? 100;
  const start = performance.now();
  for (;;) {
    const elapsed = Math.round(performance.now() - start);
    let failure: string | undefined;
    try {
      if ((await check()) === false) failure = 'the check returned false';
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
    if (failure !== undefined) throw new Error(`consistently: failed after ${elapsed} ms of ${durationMs} ms: ${failure}`);
    if (elapsed >= durationMs) return;
    await sleep(realClock, Math.min(intervalMs, Math.max(0, durationMs - elapsed)));
  }
}

async function waitFor<T>(what: string, read: () => Promise<T>, condition: Condition<T>, opts: WaitOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = performance.now() + timeoutMs;
  let first: { value: T } | undefined;
  let last: { value: T } | undefined;
  let failure = 'never read';
  for (;;) {
    try {
      const value = await read();
      first ??= { value };
      last = { value };
      try {
        const met = await condition(value);
        if (met !== false) return value;
        failure = 'the condition returned false';
      } catch (err) {
        failure = err instanceof Error ? err.message : String(err);
      }
    } catch (err) {
      if (!isNotFound(err)) throw err;
      failure = `${what} was not found`;
    }
    if (performance.now() + intervalMs > deadline) break;
    await sleep(realClock, intervalMs);
  }
  const lines = [`eventually: ${what} did not meet the condition within ${timeoutMs} ms: ${failure}`];
  if (last) {
    lines.push(`last seen: ${JSON.stringify(comparable(last.value), null, 2)}`);
    const changes = diff(comparable(first!.value), comparable(last.value), '');
    lines.push(changes.length > 0 ? `changed since first seen:\n${changes.join('\n')}` : 'unchanged since first seen');
  }
  throw new Error(lines.join('\n'));
}

/** The value without what changes on every write (resourceVersion, managedFields). */
function comparable(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  const meta = o['metadata'];
  if (meta === null || typeof meta !== 'object') return o;
  const { resourceVersion: _rv, managedFields: _mf, ...rest } = meta as Record<string, unknown>;
  return { ...o, metadata: rest };
}

/** `  spec.replicas: 1 → 3` lines, one per leaf that differs (arrays compared as wholes). */
function diff(a: unknown, b: unknown, path: string): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  return ja === jb ? [] : [`  ${path || '(root)'}: ${ja ?? '(absent)'} → ${jb ?? '(absent)'}`];
}
