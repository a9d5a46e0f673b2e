/** The event recorder against a real kube-apiserver: Events written, repeats aggregated into `count`. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';
import { createEventRecorder } from '@kubegen/runtime/internal/events/event-recorder.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { sharedEnv, type TestEnv } from './support/env.js';

describe('event recorder (envtest)', () => {
  let env: TestEnv;
  let ns: string;

  before(async () => {
    env = await sharedEnv();
    ns = await env.newNamespace('events');
  });
  after(async () => {
    await env?.release();
  });

  it('writes core/v1 Events and aggregates repeats into count', async () => {
    const kube = new KubeClientset(env.transport);
    const cm = await kube.coreV1.configMaps(ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'subject' }, data: { a: '1' } });
    const recorder = createEventRecorder({ transport: env.transport, component: 'kubegen-test', logger: nullLogger });
    for (let i = 0; i < 3; i++) recorder.event(cm, 'Warning', 'ErrResourceExists', 'Resource "subject" already exists');
    recorder.event(cm, 'Normal', 'Synced', 'synced successfully');
    await recorder.flush();
    recorder.event(cm, 'Normal', 'Synced', 'synced successfully');
    await recorder.shutdown();

    const list = await kube.coreV1.events(ns).list();
    const byReason = new Map(list.items.map((e) => [e.reason, e]));
    assert.equal(list.items.length, 2);
    const warn = byReason.get('ErrResourceExists')!;
    assert.equal(warn.count, 3);
    assert.equal(warn.type, 'Warning');
    assert.equal(warn.source?.component, 'kubegen-test');
    assert.equal(warn.involvedObject.uid, cm.metadata?.uid);
    assert.equal(warn.involvedObject.kind, 'ConfigMap');
    assert.equal(warn.involvedObject.namespace, ns);
    assert.match(warn.metadata.name!, /^subject\.[0-9a-f]+$/);
    assert.equal(byReason.get('Synced')!.count, 2);
  });
});
