/**
 * Descriptors of the built-in kinds a controller typically owns or reads, by friendly name — each the generated
 * descriptor of `@kubegen/runtime/api/<folder>/<version>` (client-go's typed client of the kind, discovery's short
 * names and categories), plus `customResourceDefinitions`, whose group (apiextensions.k8s.io) client-go's
 * `kubernetes.Interface` does not have. Every built-in kind a current apiserver serves is `allBuiltinResources` of `@kubegen/runtime/testing/fake`.
 */
import type { ResourceDescriptor } from '../client/types.js';
import { deploymentResource, daemonSetResource, replicaSetResource, statefulSetResource } from '../api/apps/v1/register.js';
import { cronJobResource, jobResource } from '../api/batch/v1/register.js';
import { leaseResource } from '../api/coordination/v1/register.js';
import {
  configMapResource, eventResource, namespaceResource, persistentVolumeClaimResource, podResource, secretResource, serviceAccountResource,
  serviceResource,
} from '../api/core/v1/register.js';

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
