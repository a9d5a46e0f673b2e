import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { Indexer, NAMESPACE_INDEX, metaNamespaceIndexFunc } from '@kubegen/runtime/internal/cache/indexer.js';
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKey,
  isTombstone,
  metaNamespaceKey,
  objectFromDeleted,
  splitMetaNamespaceKey,
} from '@kubegen/runtime/internal/cache/keys.js';
import { Lister } from '@kubegen/runtime/internal/cache/lister.js';
import { parseSelector } from '@kubegen/runtime/internal/labels/parse-selector.js';

interface Pod extends KubeObject {
  spec?: { nodeName?: string; tags?: string[] };
}

function pod(ns: string, name: string, labels: Record<string, string> = {}, spec: Pod['spec'] = {}): Pod {
  return { metadata: { namespace: ns, name, labels, resourceVersion: '1' }, spec };
}

const byNode = (p: Pod): string[] => (p.spec?.nodeName ? [p.spec.nodeName] : []);
const byTag = (p: Pod): string[] => p.spec?.tags ?? [];

function newIndexer(): Indexer<Pod> {
  return new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc, node: byNode, tag: byTag });
}

describe('keys', () => {
  it('builds and splits namespace/name keys', () => {
    assert.equal(metaNamespaceKey(pod('a', 'x')), 'a/x');
    assert.equal(metaNamespaceKey({ metadata: { name: 'node1' } }), 'node1');
    assert.deepEqual(splitMetaNamespaceKey('a/x'), { namespace: 'a', name: 'x' });
    assert.deepEqual(splitMetaNamespaceKey('node1'), { namespace: '', name: 'node1' });
    assert.throws(() => splitMetaNamespaceKey('a/b/c'));
    assert.throws(() => metaNamespaceKey({ metadata: {} }), /metadata.name/);
  });

  it('tombstones carry the key and the last known object', () => {
    const p = pod('a', 'x');
    const t = new DeletedFinalStateUnknown('a/x', p);
    assert.ok(isTombstone(t));
    assert.ok(!isTombstone(p));
    assert.equal(objectFromDeleted(t), p);
    assert.equal(objectFromDeleted(p), p);
    assert.equal(deletionHandlingMetaNamespaceKey(t), 'a/x');
    assert.equal(deletionHandlingMetaNamespaceKey(p), 'a/x');
  });
});

describe('Indexer', () => {
  it('adds, updates and deletes by namespace/name key', () => {
    const s = newIndexer();
    const p1 = pod('a', 'x');
    assert.equal(s.add(p1), undefined);
    assert.equal(s.getByKey('a/x'), p1, 'stores the object itself, no copy');
    const p2 = pod('a', 'x', { v: '2' });
    assert.equal(s.update(p2), p1, 'returns the previous object');
    assert.equal(s.get(pod('a', 'x')), p2);
    assert.equal(s.size, 1);
    assert.equal(s.delete(p2), p2);
    assert.equal(s.size, 0);
    assert.equal(s.delete(p2), undefined);
  });

  it('maintains the namespace index and user indexes through updates and deletes', () => {
    const s = newIndexer();
    s.add(pod('a', 'x', {}, { nodeName: 'n1', tags: ['t1', 't2'] }));
    s.add(pod('a', 'y', {}, { nodeName: 'n2', tags: ['t2'] }));
    s.add(pod('b', 'z', {}, { nodeName: 'n1' }));
    assert.deepEqual(s.indexKeys(NAMESPACE_INDEX, 'a').sort(), ['a/x', 'a/y']);
    assert.deepEqual(s.byIndex('node', 'n1').map(metaNamespaceKey).sort(), ['a/x', 'b/z']);
    assert.deepEqual(s.listIndexFuncValues('tag').sort(), ['t1', 't2']);

    // Moving a/x to n2 and dropping its t1 tag must remove the stale index entries.
    s.update(pod('a', 'x', {}, { nodeName: 'n2', tags: ['t2'] }));
    assert.deepEqual(s.indexKeys('node', 'n1'), ['b/z']);
    assert.deepEqual(s.indexKeys('node', 'n2').sort(), ['a/x', 'a/y']);
    assert.deepEqual(s.listIndexFuncValues('tag'), ['t2'], 'empty index values disappear');

    s.delete(pod('a', 'y'));
    assert.deepEqual(s.indexKeys('node', 'n2'), ['a/x']);
    assert.deepEqual(s.indexKeys(NAMESPACE_INDEX, 'a'), ['a/x']);
    assert.deepEqual(s.byIndex('node', 'nope'), []);
  });

  it('index() returns objects sharing any index value of the given object', () => {
    const s = newIndexer();
    s.add(pod('a', 'x', {}, { tags: ['t1'] }));
    s.add(pod('a', 'y', {}, { tags: ['t2'] }));
    s.add(pod('a', 'z', {}, { tags: ['t3'] }));
    const probe = pod('q', 'probe', {}, { tags: ['t1', 't2'] });
    assert.deepEqual(s.index('tag', probe).map(metaNamespaceKey).sort(), ['a/x', 'a/y']);
  });

  it('rejects unknown and duplicate indexes', () => {
    const s = newIndexer();
    assert.throws(() => s.byIndex('nope', 'x'), /does not exist/);
    assert.throws(() => s.addIndexers({ node: byNode }), /conflict/);
  });

  it('indexes existing objects when an indexer is added later', () => {
    const s = new Indexer<Pod>();
    s.add(pod('a', 'x', {}, { nodeName: 'n1' }));
    s.addIndexers({ node: byNode });
    assert.deepEqual(s.indexKeys('node', 'n1'), ['a/x']);
  });

  it('replace swaps the content, reports vanished objects and records the resourceVersion', () => {
    const s = newIndexer();
    const old = pod('a', 'gone', {}, { nodeName: 'n1' });
    s.add(old);
    s.add(pod('a', 'kept'));
    const gone = s.replace([pod('a', 'kept'), pod('b', 'new', {}, { nodeName: 'n2' })], '42');
    assert.deepEqual([...gone.keys()], ['a/gone']);
    assert.equal(gone.get('a/gone'), old);
    assert.deepEqual(s.listKeys().sort(), ['a/kept', 'b/new']);
    assert.deepEqual(s.indexKeys('node', 'n1'), [], 'vanished objects leave the indexes');
    assert.deepEqual(s.indexKeys('node', 'n2'), ['b/new']);
    assert.equal(s.lastSyncResourceVersion, '42');
  });

  it('handles 20,000 objects with linear work (smoke check of the O(1) write path)', () => {
    const s = newIndexer();
    for (let i = 0; i < 20_000; i++) s.add(pod(`ns${i % 10}`, `p${i}`, {}, { nodeName: `n${i % 100}` }));
    assert.equal(s.size, 20_000);
    assert.equal(s.indexKeys(NAMESPACE_INDEX, 'ns3').length, 2_000);
    assert.equal(s.byIndex('node', 'n7').length, 200);
    for (let i = 0; i < 20_000; i += 2) s.delete(pod(`ns${i % 10}`, `p${i}`));
    assert.equal(s.size, 10_000);
    assert.equal(s.indexKeys(NAMESPACE_INDEX, 'ns2').length, 0);
    assert.equal(s.indexKeys(NAMESPACE_INDEX, 'ns3').length, 2_000);
  });
});

describe('Lister', () => {
  const s = newIndexer();
  s.add(pod('a', 'web1', { app: 'web', tier: 'front' }));
  s.add(pod('a', 'web2', { app: 'web', tier: 'back' }));
  s.add(pod('a', 'db', { app: 'db' }));
  s.add(pod('b', 'web3', { app: 'web', tier: 'front' }));
  s.add({ metadata: { name: 'cluster-thing', labels: { app: 'web' } } });
  const lister = new Lister(s);
  const names = (xs: KubeObject[]): string[] => xs.map((x) => x.metadata!.name!).sort();

  it('lists everything, or what matches an equality selector', () => {
    assert.equal(lister.list().length, 5);
    assert.deepEqual(names(lister.list('app=web')), ['cluster-thing', 'web1', 'web2', 'web3']);
    assert.deepEqual(names(lister.list('app=web,tier!=front')), ['cluster-thing', 'web2']);
  });

  it('supports set-based selectors and Selector objects', () => {
    assert.deepEqual(names(lister.list('tier in (front,back),app notin (db)')), ['web1', 'web2', 'web3']);
    assert.deepEqual(names(lister.list('!tier')), ['cluster-thing', 'db']);
    assert.deepEqual(names(lister.list(parseSelector('tier'))), ['web1', 'web2', 'web3']);
  });

  it('scopes list and get to a namespace', () => {
    assert.deepEqual(names(lister.namespace('a').list()), ['db', 'web1', 'web2']);
    assert.deepEqual(names(lister.namespace('a').list('tier=front')), ['web1']);
    assert.deepEqual(names(lister.namespace('b').list()), ['web3']);
    assert.equal(lister.namespace('a').get('db')?.metadata?.name, 'db');
    assert.equal(lister.namespace('b').get('db'), undefined);
    assert.equal(lister.get('cluster-thing')?.metadata?.name, 'cluster-thing');
  });

  it('returns the cached objects themselves (shared, read-only)', () => {
    assert.equal(lister.namespace('a').get('db'), s.getByKey('a/db'));
  });

  it('rejects an invalid selector', () => {
    assert.throws(() => lister.list('app in (web'));
  });
});
