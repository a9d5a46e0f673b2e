/**
 * Descriptors of the built-in kinds a controller typically owns or reads, by friendly name — each the generated
 * descriptor of `@kubegen/runtime/api/<folder>/<version>` (client-go's typed client of the kind, discovery's short
 * names and categories), plus `customResourceDefinitions`, whose group (apiextensions.k8s.io) client-go's
 * `kubernetes.Interface` does not have. The fake transport serves every built-in kind (`allBuiltinResources`).
 */
import type { ResourceDescriptor } from '../client/types.js';
import { deploymentResource, daemonSetResource, replicaSetResource, statefulSetResource } from '../api/apps/v1/register.js';
import { cronJobResource, jobResource } from '../api/batch/v1/register.js';
import { leaseResource } from '../api/coordination/v1/register.js';
import {
  configMapResource, eventResource, namespaceResource, persistentVolumeClaimResource, podResource, secretResource, serviceAccountResource,
  serviceResource,
} from '../api/core/v1/register.js';
import { allResources } from '../api/resources.js';

const customResourceDefinitions: ResourceDescriptor = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  namespaced: false,
  statusSubresource: true,
  singular: 'customresourcedefinition',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
};

/** The built-in kinds controllers use most, by name (the same objects the generated `register.ts` modules export). */
export const builtinResources = {
  pods: podResource,
  services: serviceResource,
  configMaps: configMapResource,
  secrets: secretResource,
  namespaces: namespaceResource,
  events: eventResource,
  serviceAccounts: serviceAccountResource,
  persistentVolumeClaims: persistentVolumeClaimResource,
  deployments: deploymentResource,
  statefulSets: statefulSetResource,
  daemonSets: daemonSetResource,
  replicaSets: replicaSetResource,
  jobs: jobResource,
  cronJobs: cronJobResource,
  leases: leaseResource,
  customResourceDefinitions,
} as const satisfies Record<string, ResourceDescriptor>;

/**
 * The built-in kinds a current apiserver serves by default — every GA version (`v1`, `v2`) of `api/*`, and CRDs —
 * e.g. for a fake tracker standing in for a cluster. Alpha and beta versions are off by default since Kubernetes 1.24
 * (and most older betas are removed); `allResources` of `@kubegen/runtime/api` has every version.
 */
export const allBuiltinResources: readonly ResourceDescriptor[] = [...allResources.filter((r) => /^v\d+$/.test(r.version)), customResourceDefinitions];
