/**
 * The member kind of `npm run bench:multicluster`: `MemberConfigMap` (`fleet-bench.kubegen.io/v1`), a custom kind of
 * ConfigMap's shape (a top-level `data` string map), so the fleet-config controller can run against members on the
 * CRD-only control plane (CRD apiserver 1.36: no ConfigMaps, but ten of them fit on two cores).
 */
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { kindCrdObject } from '../../test/support/crd-yaml.js';

export const MEMBER_CONFIG_MAP: ResourceInfo = {
  group: 'fleet-bench.kubegen.io', version: 'v1', resource: 'memberconfigmaps', kind: 'MemberConfigMap', listKind: 'MemberConfigMapList', namespaced: true,
};

export const MEMBER_CONFIG_MAP_CRD = kindCrdObject('fleet-bench.kubegen.io', 'MemberConfigMap', {
  data: { type: 'object', additionalProperties: { type: 'string' } },
});
