/** The komega-style matchers of @kubegen/runtime/testing, on the fake API. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consistently, eventuallyObject, objectList } from '@kubegen/runtime/testing';
import { newFakeTransport } from '@kubegen/runtime/testing/fake';
import { KubeClientset, type ConfigMap } from '@kubegen/runtime';
import { builtinResources } from '@kubegen/runtime';

function cluster() {
  const cs = new KubeClientset(newFakeTransport([builtinResources.configMaps]));
  return cs.coreV1.configMaps('ns');
}

describe('test matchers', () => {
  it('eventuallyObject waits for an object that does not exist yet to meet the condition, and returns it', async () => {
    const cms = cluster();
    setTimeout(() => void cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { phase: 'new' } }), 30);
    setTimeout(() => void cms.patch('a', { type: 'merge', patch: { data: { phase: 'ready' } } }), 80);
    const cm = await eventuallyObject(cms, 'a', (c: ConfigMap) => assert.equal(c.data?.['phase'], 'ready'), { intervalMs: 10, timeoutMs: 2000 });
    assert.equal(cm.data?.['phase'], 'ready');
  });

  it('eventuallyObject fails naming what failed last, the last object seen and what changed since the first', async () => {
    const cms = cluster();
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { phase: 'new', replicas: '1' } });
    setTimeout(() => void cms.patch('b', { type: 'merge', patch: { data: { replicas: '3' } } }), 20);
    await assert.rejects(eventuallyObject(cms, 'b', (c: ConfigMap) => c.data?.['phase'] === 'ready', { intervalMs: 10, timeoutMs: 150 }), (err: Error) => {
      assert.match(err.message, /^eventually: object "b" did not meet the condition within 150 ms: the condition returned false\n/);
      assert.match(err.message, /last seen: \{\n/);
      assert.match(err.message, /changed since first seen:\n {2}data\.replicas: "1" → "3"(\n|$)/);
      assert.doesNotMatch(err.message, /resourceVersion/);
      return true;
    });
    await assert.rejects(eventuallyObject(cms, 'never', () => true, { intervalMs: 10, timeoutMs: 50 }), /object "never" was not found$/);
  });

  it('objectList waits for the list to meet the condition', async () => {
    const cms = cluster();
    setTimeout(() => void cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' } }), 20);
    setTimeout(() => void cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2' } }), 40);
    const items = await objectList(cms, (list: ConfigMap[]) => list.length === 2, { intervalMs: 10, timeoutMs: 2000 });
    assert.deepEqual(items.map((c) => c.metadata?.name).sort(), ['c1', 'c2']);
  });

  it('consistently holds for its duration, and fails at the first change naming when', async () => {
    const cms = cluster();
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' }, data: { v: '1' } });
    await consistently(async () => assert.equal((await cms.get('d')).data?.['v'], '1'), { durationMs: 60, intervalMs: 10 });
    setTimeout(() => void cms.patch('d', { type: 'merge', patch: { data: { v: '2' } } }), 30);
    await assert.rejects(
      consistently(async () => assert.equal((await cms.get('d')).data?.['v'], '1'), { durationMs: 2000, intervalMs: 10 }),
      /^Error: consistently: failed after \d+ ms of 2000 ms: Expected values to be strictly equal/,
    );
  });
});
