/**
 * The store's data: the PersistentVolumeClaims the StatefulSet controller made from the claim template. They are not
 * owned by the store (the StatefulSet controller creates them, without owner references, so that data outlives its
 * Pods), so the garbage collector never deletes them; the KVStore's finalizer does (`deleteClaims`).
 *
 * Clusters from 1.32 on can do the same with the StatefulSet's `persistentVolumeClaimRetentionPolicy`
 * (`whenDeleted: Delete`); this operator also runs on older clusters, where the field is dropped.
 */
import { isNotFound, type KubeClientset } from '@kubegen/runtime';
import { selectorFromSet } from '@kubegen/runtime/client';
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { claimPrefix, selectorLabels } from './names.js';

/**
 * The names of the store's claims: those that carry its members' labels (the StatefulSet controller copies the
 * selector's labels onto each claim) and are named `data-<store>-<i>`.
 */
export async function claimsOf(kube: KubeClientset, store: KVStore, signal?: AbortSignal): Promise<string[]> {
  const prefix = claimPrefix(store);
  const list = await kube.coreV1.persistentVolumeClaims(store.metadata?.namespace ?? '').list({ labelSelector: selectorFromSet(selectorLabels(store)).toString(), ...(signal ? { signal } : {}) });
  return list.items.map((c) => c.metadata?.name ?? '').filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))).sort();
}

/**
 * Deletes the store's claims; returns the names it deleted. A claim a member's Pod still uses stays (Terminating)
 * until the Pod is gone (the `kubernetes.io/pvc-protection` finalizer): the Pods go with the StatefulSet, which the
 * garbage collector deletes once the store itself is gone.
 */
export async function deleteClaims(kube: KubeClientset, store: KVStore, signal?: AbortSignal): Promise<string[]> {
  const claims = kube.coreV1.persistentVolumeClaims(store.metadata?.namespace ?? '');
  const names = await claimsOf(kube, store, signal);
  for (const name of names) {
    await claims.delete(name, signal ? { signal } : {}).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  return names;
}
