/**
 * The event recorder against a real kube-apiserver: events.k8s.io/v1 Events by default (the apiserver validates what
 * that API requires: action, reporting controller and instance, microsecond time, no deprecated fields), repeats as
 * a series; core/v1 Events when asked, repeats aggregated into `count`.
 */
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

  it('writes events.k8s.io/v1 Events where served, a repeat as a series, readable as core/v1 too', async () => {
    const kube = new KubeClientset(env.transport);
    const cm = await kube.coreV1.configMaps(ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'subject-v1' } });
    const recorder = createEventRecorder({ transport: env.transport, component: 'kubegen-test', host: 'node-a', logger: nullLogger });
    recorder.event(cm, 'Warning', 'ErrResourceExists', 'Resource "subject-v1" already exists', 'Creating');
    await recorder.flush();
    recorder.event(cm, 'Warning', 'ErrResourceExists', 'Resource "subject-v1" already exists', 'Creating');
    recorder.event(cm, 'Normal', 'Synced', 'synced successfully');
    await recorder.shutdown();

    const list = await kube.eventsV1.events(ns).list();
    const mine = list.items.filter((e) => e.regarding?.name === 'subject-v1');
    const byReason = new Map(mine.map((e) => [e.reason, e]));
    assert.equal(mine.length, 2);
    const warn = byReason.get('ErrResourceExists')!;
    assert.equal(warn.reportingController, 'kubegen-test');
    assert.equal(warn.reportingInstance, 'kubegen-test-node-a');
    assert.equal(warn.action, 'Creating');
    assert.equal(warn.note, 'Resource "subject-v1" already exists');
    assert.equal(warn.series?.count, 2);
    assert.match(warn.eventTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(warn.regarding?.uid, cm.metadata?.uid);
    assert.equal(byReason.get('Synced')!.action, 'Synced', 'the action defaults to the reason');
    const core = (await kube.coreV1.events(ns).list()).items.find((e) => e.reason === 'ErrResourceExists' && e.involvedObject.name === 'subject-v1')!;
    assert.equal(core.reportingComponent, 'kubegen-test');
    assert.equal(core.message, 'Resource "subject-v1" already exists');
  });

  it('writes core/v1 Events when asked and aggregates repeats into count', async () => {
    const kube = new KubeClientset(env.transport);
    const cm = await kube.coreV1.configMaps(ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'subject' }, data: { a: '1' } });
    const recorder = createEventRecorder({ transport: env.transport, component: 'kubegen-test', logger: nullLogger, api: 'v1' });
    for (let i = 0; i < 3; i++) recorder.event(cm, 'Warning', 'ErrResourceExists', 'Resource "subject" already exists');
    recorder.event(cm, 'Normal', 'Synced', 'synced successfully');
    await recorder.flush();
    recorder.event(cm, 'Normal', 'Synced', 'synced successfully');
    await recorder.shutdown();

    const list = await kube.coreV1.events(ns).list();
    const mine = list.items.filter((e) => e.involvedObject.name === 'subject');
    const byReason = new Map(mine.map((e) => [e.reason, e]));
    assert.equal(mine.length, 2);
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
