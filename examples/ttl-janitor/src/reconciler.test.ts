/**
 * One resource's reconcile on the fake transport: an expired object is deleted with a uid precondition and
 * propagationPolicy Background, a young one is looked at again when its TTL runs out, a bad TTL gets one Warning
 * event and nothing else, --dry-run writes nothing, and a delete that finds the object gone or replaced is not an
 * error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import {
  ApiError, builtinResources, CachedClient, createLogger, type KubeObject, type ReconcileContext,
} from '@kubegen/runtime';
import { newStatus } from '@kubegen/runtime/client';
import { FakeClock } from '@kubegen/runtime/clock';
import { FakeEventRecorder, newFakeTransport, type FakeTransport, allBuiltinResources } from '@kubegen/runtime/testing/fake';
import { janitorMetrics } from './metrics.js';
import { MAX_REQUEUE_MS, ttlReconciler } from './reconciler.js';
import { TTL_ANNOTATION } from './ttl.js';

const CM = builtinResources.configMaps;
const CREATED = '2026-01-01T00:00:00Z';
const T0 = Date.parse(CREATED);
const configMap = (name: string, ttl?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', creationTimestamp: CREATED, ...(ttl !== undefined ? { annotations: { [TTL_ANNOTATION]: ttl } } : {}) },
});

function setup(opts: { dryRun?: boolean; nowMs: number }) {
  const transport = newFakeTransport([...allBuiltinResources]);
  const lines: { level: string; msg: string; name?: string; error?: string }[] = [];
  const log = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(JSON.parse(l) as (typeof lines)[number]) });
  const registry = new Registry();
  const metrics = janitorMetrics(registry);
  const recorder = new FakeEventRecorder();
  const clock = new FakeClock(opts.nowMs);
  const reconcile = ttlReconciler({ client: CachedClient.direct(transport), info: CM, resource: 'configmaps', dryRun: opts.dryRun ?? false, recorder, metrics, clock, log });
  const ctx = { signal: new AbortController().signal, log, reconcileID: 'r' } as ReconcileContext;
  const run = async (name: string) => reconcile({ namespace: 'ns', name }, ctx);
  const counter = async (name: string, labels: Record<string, string>): Promise<number | undefined> =>
    (await registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;
  return { transport, lines, recorder, clock, run, counter };
}

const deletes = (t: FakeTransport) => t.actions().filter((a) => a.verb === 'delete');
const exists = (t: FakeTransport, name: string): boolean => t.tracker.list(CM, 'ns').items.some((o) => o.metadata?.name === name);

describe('the TTL reconcile', () => {
  it('deletes an expired object with a uid precondition and Background propagation, and says so', async () => {
    const s = setup({ nowMs: T0 + 31_000 });
    s.transport.tracker.add(configMap('old', '30s'));
    const uid = s.transport.tracker.get(CM, 'ns', 'old').metadata!.uid!;
    assert.equal(await s.run('old'), undefined);
    assert.deepEqual(deletes(s.transport).map((a) => [a.namespace, a.name, a.deleteOptions]), [['ns', 'old', { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid }, propagationPolicy: 'Background' }]]);
    assert.ok(!exists(s.transport, 'old'));
    assert.deepEqual(s.recorder.events, ['Normal TimeToLiveExpired Deleted: the TTL 30s ran out at 2026-01-01T00:00:30.000Z']);
    assert.equal(await s.counter('ttl_janitor_objects_deleted_total', { resource: 'configmaps', dry_run: 'false' }), 1);
    assert.ok(s.lines.some((l) => l.msg === 'TTL expired; deleted' && l.name === 'old'));
  });

  it('comes back when the TTL runs out, at most a day later, and leaves objects without a TTL alone', async () => {
    const s = setup({ nowMs: T0 + 10_000 });
    s.transport.tracker.add(configMap('young', '30s'), configMap('weekly', '7d'), configMap('plain'), configMap('kept', 'forever'));
    assert.deepEqual(await s.run('young'), { requeueAfterMs: 20_000 });
    assert.deepEqual(await s.run('weekly'), { requeueAfterMs: MAX_REQUEUE_MS });
    assert.equal(await s.run('plain'), undefined);
    assert.equal(await s.run('kept'), undefined);
    assert.equal(await s.run('missing'), undefined, 'a deleted object is not an error');
    s.clock.step(20_000);
    await s.run('young');
    assert.deepEqual(deletes(s.transport).map((a) => a.name), ['young']);
  });

  it('reports a bad TTL once per object and value, with a Warning event naming it, and deletes nothing', async () => {
    const s = setup({ nowMs: T0 + 1e9 });
    s.transport.tracker.add(configMap('bad', 'soon'));
    await s.run('bad');
    await s.run('bad');
    assert.deepEqual(s.recorder.recorded.map((e) => [e.type, e.reason, e.object.metadata?.name]), [['Warning', 'InvalidTTL', 'bad']]);
    assert.match(s.recorder.events[0]!, /invalid TTL "soon"/);
    const warned = s.lines.filter((l) => l.level === 'warn');
    assert.equal(warned.length, 1);
    assert.equal(warned[0]!.name, 'bad');
    assert.equal(await s.counter('ttl_janitor_invalid_ttl_total', { resource: 'configmaps' }), 1);
    assert.deepEqual(deletes(s.transport), []);
    // A new bad value is a new report.
    s.transport.tracker.update(CM, 'ns', { ...s.transport.tracker.get(CM, 'ns', 'bad'), metadata: { ...s.transport.tracker.get(CM, 'ns', 'bad').metadata, annotations: { [TTL_ANNOTATION]: '5 minutes' } } });
    await s.run('bad');
    assert.equal(s.recorder.recorded.length, 2);
  });

  it('with --dry-run, logs and counts what it would delete and writes nothing', async () => {
    const s = setup({ dryRun: true, nowMs: T0 + 1e9 });
    s.transport.tracker.add(configMap('old', '1h'), configMap('bad', 'x'));
    await s.run('old');
    await s.run('bad');
    assert.deepEqual(deletes(s.transport), []);
    assert.ok(exists(s.transport, 'old'));
    assert.deepEqual(s.recorder.events, [], 'no events either: a dry run writes nothing');
    assert.equal(await s.counter('ttl_janitor_objects_deleted_total', { resource: 'configmaps', dry_run: 'true' }), 1);
    assert.ok(s.lines.some((l) => l.msg === 'TTL expired; would delete (dry run)' && l.name === 'old'));
  });

  it('treats a delete that finds the object replaced (uid precondition) or gone as done, and retries other errors', async () => {
    const s = setup({ nowMs: T0 + 1e9 });
    s.transport.tracker.add(configMap('old', '1s'));
    s.transport.prependReactor('delete', 'configmaps', () => ({ handled: true, error: new ApiError(newStatus(409, 'Conflict', 'Precondition failed: UID in precondition: x, UID in object meta: y')) }));
    assert.equal(await s.run('old'), undefined);
    s.transport.prependReactor('delete', 'configmaps', () => ({ handled: true, error: new ApiError(newStatus(404, 'NotFound', 'configmaps "old" not found')) }));
    assert.equal(await s.run('old'), undefined);
    s.transport.prependReactor('delete', 'configmaps', () => ({ handled: true, error: new ApiError(newStatus(500, 'InternalError', 'etcd is away')) }));
    await assert.rejects(s.run('old'), /etcd is away/);
    assert.equal(await s.counter('ttl_janitor_objects_deleted_total', { resource: 'configmaps', dry_run: 'false' }), undefined);
  });
});
