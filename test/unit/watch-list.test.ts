/**
 * WatchList detection helpers (on the Status objects real apiservers answer) and the informer over a WatchList.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ApiError, isTooLargeResourceVersion, newStatus } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject, Status } from '@kubegen/runtime/internal/client/types.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { DeletedFinalStateUnknown } from '@kubegen/runtime/internal/cache/keys.js';
import { SharedIndexInformer } from '@kubegen/runtime/internal/cache/shared-informer.js';
import { InitialEvents, isWatchListRejected, watchListModeFromEnv } from '@kubegen/runtime/internal/cache/watch-list.js';
import { FakeListerWatcher } from '@kubegen/runtime/internal/testing/fake/fake-lister-watcher.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { settle } from '../support/wait.js';

/** What kube-apiserver 1.20.2 answers a watch with sendInitialEvents=true&resourceVersionMatch=NotOlderThan (resourceVersion unset). */
const KUBE_1_20_REJECTION: Status = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided]',
  reason: 'Invalid',
  details: {
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [
      { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden for watch', field: 'resourceVersionMatch' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' },
    ],
  },
  code: 422,
};

/** What the 1.36 apiserver answers an in-stream request for a resourceVersion it has not reached within 3 s. */
const KUBE_1_36_TOO_LARGE: Status = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Timeout: Too large resource version: 999999, current: 7',
  reason: 'Timeout',
  details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
  code: 504,
};

interface Foo extends KubeObject {
  spec?: { replicas?: number };
}
const foo = (name: string, rv?: string): Foo => ({ metadata: { namespace: 'ns', name, ...(rv ? { resourceVersion: rv } : {}) } });

describe('WatchList detection', () => {
  it('isWatchListRejected: the 1.20 and feature-off answers, and nothing else', () => {
    assert.equal(isWatchListRejected(new ApiError(KUBE_1_20_REJECTION)), true);
    const gateOff = newStatus(
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    );
    assert.equal(isWatchListRejected(new ApiError(gateOff)), true);
    assert.equal(isWatchListRejected(new ApiError(newStatus(400, 'BadRequest', 'unable to parse requirement: invalid label key'))), false);
    assert.equal(isWatchListRejected(new ApiError(newStatus(500, 'InternalError', 'resourceVersionMatch'))), false, 'a 500 says nothing about support');
    assert.equal(isWatchListRejected(new ApiError(newStatus(403, 'Forbidden', 'cannot watch'))), false);
    assert.equal(isWatchListRejected(new Error('resourceVersionMatch')), false);
  });

  it('isTooLargeResourceVersion: by status cause, and by message on old servers', () => {
    assert.equal(isTooLargeResourceVersion(new ApiError(KUBE_1_36_TOO_LARGE)), true);
    assert.equal(isTooLargeResourceVersion(new ApiError(newStatus(504, 'Timeout', 'Too large resource version: 5, current: 3'))), true);
    assert.equal(isTooLargeResourceVersion(new ApiError(newStatus(504, 'Timeout', 'request timed out'))), false);
    assert.equal(isTooLargeResourceVersion(new ApiError(newStatus(410, 'Expired', 'too old resource version'))), false);
  });

  it('KUBEGEN_WATCH_LIST: true, false, auto (any case), else unset', () => {
    assert.equal(watchListModeFromEnv({ KUBEGEN_WATCH_LIST: 'true' }), true);
    assert.equal(watchListModeFromEnv({ KUBEGEN_WATCH_LIST: 'FALSE' }), false);
    assert.equal(watchListModeFromEnv({ KUBEGEN_WATCH_LIST: ' auto ' }), 'auto');
    assert.equal(watchListModeFromEnv({ KUBEGEN_WATCH_LIST: '1' }), undefined);
    assert.equal(watchListModeFromEnv({}), undefined);
  });

  it('InitialEvents: ADDED collect, ordinary bookmarks pass, MODIFIED/DELETED are unexpected, the annotated bookmark completes', () => {
    const ie = new InitialEvents<Foo>();
    assert.equal(ie.accept({ type: 'ADDED', object: foo('a', '5') }), 'collecting');
    assert.equal(ie.accept({ type: 'ADDED', object: foo('b', '6') }), 'collecting');
    assert.equal(ie.accept({ type: 'ADDED', object: { metadata: {} } }), 'collecting');
    assert.equal(ie.skipped, 1, 'an object without a name is skipped');
    assert.equal(ie.accept({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } }), 'collecting');
    assert.equal(ie.complete, false);
    assert.equal(ie.accept({ type: 'MODIFIED', object: foo('a', '7') }), 'unexpected');
    assert.equal(ie.accept({ type: 'DELETED', object: foo('b', '8') }), 'unexpected');
    const end = { type: 'BOOKMARK' as const, object: { metadata: { resourceVersion: '8', annotations: { 'k8s.io/initial-events-end': 'true' } } } };
    assert.equal(ie.accept(end), 'complete');
    assert.equal(ie.complete, true);
    assert.equal(ie.resourceVersion, '8');
    assert.deepEqual(ie.take().map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`), ['a@7']);
    assert.equal(ie.size, 0, 'taken');
  });

  it('FakeTransport declares no WatchList semantics unless asked (as client-go fake clientsets)', () => {
    const t = newFakeTransport([]);
    const client = new ResourceClient(t, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true });
    assert.equal(client.isWatchListSemanticsUnsupported(), true);
    t.watchListSemantics = true;
    assert.equal(client.isWatchListSemanticsUnsupported(), false);
  });
});

describe('SharedIndexInformer over WatchList', () => {
  it('syncs at the end bookmark with initial adds, and a resume after 410 delivers tombstones for what vanished', async () => {
    const lw = new FakeListerWatcher<Foo>({ watchList: 'supported' });
    lw.upsert(foo('a'));
    lw.upsert(foo('b'));
    lw.withholdInitialEventsEnd = true;
    const informer = new SharedIndexInformer<Foo>(lw, { clock: new FakeClock(0), logger: nullLogger, random: () => 0 });
    const events: string[] = [];
    const reg = informer.addEventHandler({
      onAdd: (o, initial) => void events.push(`add ${o.metadata!.name}${initial ? ' initial' : ''}`),
      onUpdate: (_o, n) => void events.push(`update ${n.metadata!.name}`),
      onDelete: (o) => void events.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : `delete ${o.metadata!.name}`),
    });
    void informer.run();
    await settle(() => lw.openWatches === 1, 'the stream');
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
    assert.equal(informer.hasSynced(), false, 'not before the end bookmark');
    lw.withholdInitialEventsEnd = false;
    lw.sendInitialEventsEnd();
    await settle(() => informer.hasSynced(), 'synced at the end bookmark');
    lw.silently(() => lw.remove('ns/b'));
    lw.sendError(newStatus(410, 'Expired', 'too old resource version'));
    await settle(() => informer.getIndexer().size === 1, 'the resumed stream');
    await reg.whenIdle();
    assert.deepEqual(events, ['add a initial', 'add b initial', 'tombstone ns/b']);
    assert.equal(lw.listCalls.length, 0);
    await informer.stop();
  });
});

describe('SharedInformerFactory watchList options', () => {
  it('reflector.watchList applies to every informer; InformerOptions.watchList overrides it', async () => {
    const cm = (ns: string, name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name } });
    const t = newFakeTransport([builtinResources.configMaps], cm('a', 'x'), cm('b', 'y'));
    const f = new SharedInformerFactory(t, { logger: nullLogger, reflector: { watchList: true } });
    const streamed = f.informerFor(builtinResources.configMaps, { namespace: 'a' });
    const listed = f.informerFor(builtinResources.configMaps, { namespace: 'b', watchList: false });
    f.start();
    await f.waitForCacheSync({ timeoutMs: 5_000 });
    assert.equal(streamed.getIndexer().size, 1);
    assert.equal(listed.getIndexer().size, 1);
    const seen = t.actions().map((a) => `${a.namespace} ${a.verb}${a.query['sendInitialEvents'] ? ' sendInitialEvents' : ''}`);
    assert.deepEqual(seen.filter((a) => a.startsWith('a ')), ['a watch sendInitialEvents']);
    assert.deepEqual(seen.filter((a) => a.startsWith('b ')), ['b list', 'b watch']);
    await f.shutdown();
  });
});
