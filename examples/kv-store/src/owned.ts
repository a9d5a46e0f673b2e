/**
 * What every object a KVStore owns carries: the store's labels and its controller reference. The reference makes the
 * garbage collector delete the object with its store, and lets the controller's `.owns()` watches map the object's
 * events back to the store.
 */
import { setControllerReference } from '@kubegen/runtime';
import type { ApplyObjectMeta } from '@kubegen/runtime';
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { ownedLabels } from './names.js';

/** Adds the store's labels (beside the config's own) and controller reference to an apply configuration; returns it. */
export function owned<C extends { apiVersion: string; kind: string; metadata: ApplyObjectMeta }>(store: KVStore, config: C): C {
  config.metadata.labels = { ...ownedLabels(store), ...config.metadata.labels };
  setControllerReference(store, config);
  return config;
}
