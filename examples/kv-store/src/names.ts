/**
 * The names, labels and numbers every part of the kv-store operator agrees on: what a KVStore's owned objects are
 * called, the labels that select its members (and, through the StatefulSet, its claims), its ports, its finalizer and
 * the field manager its server-side applies use.
 */
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';

/** The field manager of every apply: the owned objects' fields and the KVStore's status are owned under it. */
export const FIELD_MANAGER = 'kv-store';
/** Held on a KVStore until its claims are deleted (src/claims.ts). */
export const FINALIZER = 'kv.kubegen.io/delete-claims';
/** The client port (the client Service, the NetworkPolicy's client rule). */
export const CLIENT_PORT = 2379;
/** The peer port (the headless Service, the NetworkPolicy's peer rule). */
export const PEER_PORT = 2380;
/** The claim template's name: member `<store>-<i>` gets the claim `data-<store>-<i>`. */
export const DATA_VOLUME = 'data';
/** Where a member's claim is mounted (etcd's data dir). */
export const DATA_DIR = '/var/lib/kv';

/** The defaults the CRD also declares, for a KVStore a client wrote without them (the fake defaults nothing). */
export const DEFAULT_REPLICAS = 3;
export const DEFAULT_IMAGE = 'registry.k8s.io/etcd:3.5.21-0';
export const DEFAULT_STORAGE_SIZE = '1Gi';

/** The names of what one KVStore owns; each is the store's name or starts with it. */
export interface OwnedNames {
  /** The StatefulSet, the client Service, the ServiceAccount, the Role, the RoleBinding, the PDB and the NetworkPolicy. */
  store: string;
  /** The headless Service the members find each other through (the StatefulSet's `serviceName`). */
  peers: string;
  /** The ConfigMap of the members' configuration. */
  config: string;
}

export function ownedNames(store: KVStore): OwnedNames {
  const name = store.metadata?.name ?? '';
  return { store: name, peers: `${name}-peers`, config: `${name}-config` };
}

/** The labels of a store's members; the StatefulSet, the Services, the PDB and the NetworkPolicy select by them. */
export function selectorLabels(store: KVStore): { [key: string]: string } {
  return { 'app.kubernetes.io/name': 'kv-store', 'app.kubernetes.io/instance': store.metadata?.name ?? '' };
}

/** The label every owned object carries with the value `kv-store`; the manager's cache holds only what has it. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** The labels every owned object carries: the selector labels and who manages it. */
export function ownedLabels(store: KVStore): { [key: string]: string } {
  return { ...selectorLabels(store), [MANAGED_BY_LABEL]: 'kv-store' };
}

/** `spec.replicas`, or the default. */
export function replicasOf(store: KVStore): number {
  return store.spec.replicas ?? DEFAULT_REPLICAS;
}

/** The members that must be up for the store to answer: more than half. */
export function quorum(replicas: number): number {
  return Math.floor(replicas / 2) + 1;
}

/** The name every claim of the store starts with (`data-<store>-`), as the StatefulSet controller names them. */
export function claimPrefix(store: KVStore): string {
  return `${DATA_VOLUME}-${store.metadata?.name ?? ''}-`;
}
