/**
 * What the unit tests share (no production code imports it): a fake cluster serving the built-in kinds and the
 * KVStore kind, with PodDisruptionBudget in the versions a test chooses, and a KVStore as a user writes it.
 */
import { nullLogger, type ReconcileContext } from '@kubegen/runtime';
import { allBuiltinResources } from '@kubegen/runtime/testing/fake';
import { createFakeClientset, type FakeClientset } from './generated/fake.js';
import { API_VERSION, type KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { disruptionBudgetResource, type DisruptionBudgetVersion } from './disruption.js';

/** A fake API serving every GA built-in kind, KVStores, and PodDisruptionBudget in `pdbVersions` only. */
export function fakeCluster(objects: KVStore[] = [], pdbVersions: readonly DisruptionBudgetVersion[] = ['policy/v1']): FakeClientset {
  const builtins = allBuiltinResources.filter((r) => r.group !== 'policy');
  return createFakeClientset(objects, [...builtins, ...pdbVersions.map(disruptionBudgetResource)]);
}

/** A KVStore `name` in `ns`, as stored: uid and generation set, the CRD's defaults not (the fake defaults nothing). */
export function kvStore(name: string, spec: KVStore['spec'] = {}, ns = 'db'): KVStore {
  return { apiVersion: API_VERSION, kind: 'KVStore', metadata: { name, namespace: ns, uid: `uid-${name}`, generation: 1 }, spec };
}

export function context(): ReconcileContext {
  return { signal: new AbortController().signal, log: nullLogger, reconcileID: 'test' };
}
