/**
 * The controller helpers on unstructured objects, through the fake dynamic client: owner references, finalizers,
 * status conditions (`statusConditionsOf`) and events, as a generic controller uses them on kinds it has no types for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { findStatusCondition, setStatusCondition } from '@kubegen/runtime/internal/conditions/conditions.js';
import { addFinalizer, containsFinalizer, removeFinalizer } from '@kubegen/runtime/internal/controllerutil/finalizers.js';
import { getControllerOf, setControllerReference } from '@kubegen/runtime/internal/controllerutil/owner-references.js';
import { NestedFieldError, statusConditionsOf } from '@kubegen/runtime/internal/dynamic/nested.js';
import type { Unstructured } from '@kubegen/runtime/internal/dynamic/unstructured.js';
import { EventBroadcaster } from '@kubegen/runtime/internal/events/event-recorder.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';
import { newFakeDynamicClient } from '@kubegen/runtime/internal/testing/fake/fake-dynamic.js';
import { until } from '../support/wait.js';

const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', namespaced: true, statusSubresource: true };
const GVR = { group: 'example.com', version: 'v1', resource: 'widgets' };

describe('controller helpers on Unstructured', () => {
  it('owner references, finalizers, conditions and events', async () => {
    const client = newFakeDynamicClient([WIDGETS, builtinResources.configMaps, builtinResources.events], { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' } });
    const widgets = client.resource(GVR).namespace('ns');
    const owner = await widgets.get('w');

    const child: Unstructured = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { a: '1' } };
    setControllerReference(owner, child);
    const created = await client.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace('ns').create(child);
    assert.deepEqual(getControllerOf(created), { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true });

    assert.equal(addFinalizer(owner, 'example.com/cleanup'), true);
    const withFinalizer = await widgets.update(owner);
    assert.ok(containsFinalizer(withFinalizer, 'example.com/cleanup'));
    assert.equal(removeFinalizer(withFinalizer, 'example.com/cleanup'), true);

    const status = await widgets.get('w');
    setStatusCondition(statusConditionsOf(status), { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'ok', observedGeneration: 1 });
    await widgets.updateStatus(status);
    const stored = await widgets.get('w');
    assert.equal(findStatusCondition(statusConditionsOf(stored), 'Ready')?.reason, 'Reconciled');
    assert.throws(() => statusConditionsOf({ status: { conditions: 'oops' } }), NestedFieldError);
    assert.throws(() => statusConditionsOf({ status: 'oops' }), NestedFieldError);

    const events = new EventBroadcaster({ transport: client.fake, logger: nullLogger });
    events.newRecorder('janitor').event(stored, 'Normal', 'Checked', 'looked at it');
    await until(() => client.fake.actions().some((a) => a.verb === 'create' && a.resource === 'events' && a.group === ''), 'an event is written');
    const event = client.fake.actions().find((a) => a.verb === 'create' && a.resource === 'events' && a.group === '')!.object as { involvedObject: Record<string, unknown> };
    assert.deepEqual([event.involvedObject['kind'], event.involvedObject['apiVersion'], event.involvedObject['name']], ['Widget', 'example.com/v1', 'w']);
    await events.shutdown();
  });
});
