import type { Condition, int32, ListMeta, ObjectMeta, Quantity } from '@kubegen/runtime';
import type { ResourceRequirements } from '@kubegen/runtime/api/core/v1';
import type { LabelSelector } from '@kubegen/runtime/api/meta/v1';

// The source of truth of the KVStore API. `npm run generate` writes the CRD (config/crd/bases) and the typed client
// (src/generated) from it.

/** Where each member keeps its data: one PersistentVolumeClaim per member, made from the StatefulSet's claim template. */
export interface KVStoreStorage {
  /**
   * The size of each member's claim. Fixed once the store exists: a StatefulSet's claim templates cannot change.
   *
   * +kubebuilder:default="1Gi"
   * +optional
   */
  size?: Quantity;
  /**
   * The StorageClass of the claims; unset: the cluster's default class.
   *
   * +optional
   */
  storageClassName?: string;
}

/** KVStoreSpec is the store a user asks for. */
export interface KVStoreSpec {
  /**
   * How many members. A quorum (more than half of them) must be up for the store to answer; the
   * PodDisruptionBudget keeps a quorum through voluntary disruptions (drains, evictions).
   *
   * +kubebuilder:default=3
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=9
   * +optional
   */
  replicas?: int32;
  /**
   * The store's image: an etcd release (the members are configured through etcd's ETCD_* variables).
   *
   * +kubebuilder:default="registry.k8s.io/etcd:3.5.21-0"
   * +optional
   */
  image?: string;
  /**
   * Each member's storage.
   *
   * +kubebuilder:default={}
   * +optional
   */
  storage?: KVStoreStorage;
  /**
   * The Pods of this namespace that may reach the client port (2379). Unset: every Pod of the namespace. The
   * members always reach each other on the peer port (2380); nothing else reaches them.
   *
   * +optional
   */
  clients?: LabelSelector;
  /**
   * Compute resources of each member.
   *
   * +optional
   */
  resources?: ResourceRequirements;
}

/** KVStoreStatus is what the controller observed. */
export interface KVStoreStatus {
  /**
   * `Ready` (every member ready and every owned object as the spec says) and `Available` (a quorum of members
   * ready: the store answers), each for the generation in its observedGeneration.
   *
   * +listType=map
   * +listMapKey=type
   * +optional
   */
  conditions?: Condition[];
  /**
   * Members whose Pod is ready.
   *
   * +optional
   */
  readyReplicas?: int32;
  /**
   * The apiVersion of the PodDisruptionBudget the controller keeps: policy/v1, or policy/v1beta1 on clusters
   * older than 1.21.
   *
   * +optional
   */
  disruptionBudgetVersion?: string;
}

/**
 * KVStore is a replicated key-value store: a StatefulSet of etcd members with a volume claim each, a headless
 * Service for the peers and a Service for clients, a PodDisruptionBudget, a NetworkPolicy, the members' own
 * ServiceAccount, Role and RoleBinding, and a ConfigMap of their configuration. Deleting a KVStore deletes its data
 * (the claims) too.
 *
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:resource:shortName=kvs
 * +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
 * +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
 * +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
 */
export interface KVStore {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** The store asked for. */
  spec: KVStoreSpec;
  /** What the controller observed. */
  status?: KVStoreStatus;
}

/** KVStoreList is a list of KVStores. */
export interface KVStoreList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: KVStore[];
}
