/** The TTL annotation: what parses, what does not, and the decision it leads to at a given time. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kubegen/runtime';
import { decide, parseTtl, TTL_ANNOTATION } from './ttl.js';

const CREATED = Date.parse('2026-01-01T00:00:00Z');
const obj = (ttl: string | undefined, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z', ...(ttl !== undefined ? { annotations: { [TTL_ANNOTATION]: ttl } } : {}), ...extra },
});

describe('parseTtl', () => {
  it('reads a whole number and a unit, and forever', () => {
    assert.deepEqual(parseTtl('30s'), { ms: 30_000 });
    assert.deepEqual(parseTtl('5m'), { ms: 300_000 });
    assert.deepEqual(parseTtl('2h'), { ms: 7_200_000 });
    assert.deepEqual(parseTtl('7d'), { ms: 604_800_000 });
    assert.deepEqual(parseTtl('1w'), { ms: 604_800_000 });
    assert.deepEqual(parseTtl('0s'), { ms: 0 });
    assert.equal(parseTtl('forever'), 'forever');
  });

  it('refuses anything else, naming the value and the form', () => {
    for (const bad of ['', '30', '1.5h', '5 m', ' 5m', '-1s', '5M', '5min', '1y', 'soon', 'Forever', '99999999999999999w']) {
      assert.throws(() => parseTtl(bad), (err: Error) => err instanceof TypeError && err.message.includes(JSON.stringify(bad)), bad);
    }
    assert.throws(() => parseTtl('5min'), /use a whole number and a unit \(s, m, h, d or w, e\.g\. 30s, 5m, 2h, 7d\) or "forever"/);
    assert.throws(() => parseTtl('99999999999999999w'), /too long/);
  });
});

describe('decide', () => {
  it('ignores objects without the annotation, marked forever, or being deleted', () => {
    assert.deepEqual(decide(obj(undefined), CREATED + 1e12), { action: 'ignore', reason: 'no-ttl' });
    assert.deepEqual(decide(obj('forever'), CREATED + 1e12), { action: 'ignore', reason: 'forever' });
    assert.deepEqual(decide(obj('1s', { deletionTimestamp: '2026-01-01T00:00:05Z' }), CREATED + 1e12), { action: 'ignore', reason: 'deleting' });
  });

  it('waits for the rest of the TTL, then deletes', () => {
    assert.deepEqual(decide(obj('30s'), CREATED + 10_000), { action: 'wait', ttl: '30s', afterMs: 20_000, expiresAt: CREATED + 30_000 });
    assert.deepEqual(decide(obj('30s'), CREATED + 30_000), { action: 'delete', ttl: '30s', expiresAt: CREATED + 30_000, overdueMs: 0 });
    assert.deepEqual(decide(obj('30s'), CREATED + 95_000), { action: 'delete', ttl: '30s', expiresAt: CREATED + 30_000, overdueMs: 65_000 });
    // A clock behind the apiserver's: the wait is longer than the TTL, never a deletion before it ran out.
    assert.deepEqual(decide(obj('2h'), CREATED - 5_000), { action: 'wait', ttl: '2h', afterMs: 7_205_000, expiresAt: CREATED + 7_200_000 });
  });

  it('says why a TTL or a creation time cannot be read', () => {
    const bad = decide(obj('soon'), CREATED);
    assert.equal(bad.action, 'invalid');
    assert.match((bad as { message: string }).message, /invalid TTL "soon"/);
    const noTime = decide(obj('5m', { creationTimestamp: undefined }), CREATED);
    assert.deepEqual(noTime, { action: 'invalid', value: '5m', message: 'no readable creationTimestamp (null) to count the TTL from' });
  });
});
