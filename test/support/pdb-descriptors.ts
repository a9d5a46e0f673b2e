import type { ResourceDescriptor } from '@kubegen/runtime/internal/client/types.js';

/**
 * PodDisruptionBudget descriptors written by hand, with the lifecycle of k8s.io/api's prerelease-lifecycle markers:
 * `policy/v1` (1.21 on, not served by kube-apiserver 1.20) and `policy/v1beta1` (1.5 to 1.24, replaced by v1).
 */
export const PDB_V1: ResourceDescriptor = {
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  listKind: 'PodDisruptionBudgetList',
  namespaced: true,
  statusSubresource: true,
  lifecycle: { introduced: '1.21' },
};

/** See {@link PDB_V1}. */
export const PDB_V1BETA1: ResourceDescriptor = {
  ...PDB_V1,
  version: 'v1beta1',
  lifecycle: { introduced: '1.5', deprecated: '1.21', removed: '1.25', replacement: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' } },
};
