/**
 * The member kind of `npm run bench:multicluster`: `MemberConfigMap` (`fleet-bench.kubegen.io/v1`), a custom kind of
 * ConfigMap's shape (a top-level `data` string map), so the fleet-config controller can run against members on the
 * CRD-only control plane (CRD apiserver 1.36: no ConfigMaps, but ten of them fit on two cores).
 */
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';

export const MEMBER_CONFIG_MAP: ResourceInfo = {
  group: 'fleet-bench.kubegen.io', version: 'v1', resource: 'memberconfigmaps', kind: 'MemberConfigMap', listKind: 'MemberConfigMapList', namespaced: true,
};

export const MEMBER_CONFIG_MAP_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'memberconfigmaps.fleet-bench.kubegen.io' },
  spec: {
    group: 'fleet-bench.kubegen.io',
    scope: 'Namespaced',
    names: { plural: 'memberconfigmaps', singular: 'memberconfigmap', kind: 'MemberConfigMap', listKind: 'MemberConfigMapList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string' } } } } },
    }],
  },
};
