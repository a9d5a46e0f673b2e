import type { ResourceDescriptor } from '../client/types.js';

function describe(group: string, version: string, resource: string, kind: string, namespaced: boolean, extra: Partial<ResourceDescriptor> = {}): ResourceDescriptor {
  return { group, version, resource, kind, listKind: `${kind}List`, namespaced, ...extra };
}

const replicas = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

const all = ['all'];

/**
 * Descriptors of the built-in kinds a controller typically owns or reads, with the short names and categories the
 * apiserver's discovery gives them (the fake transport serves them in its discovery).
 */
export const builtinResources = {
  pods: describe('', 'v1', 'pods', 'Pod', true, { statusSubresource: true, shortNames: ['po'], categories: all }),
  services: describe('', 'v1', 'services', 'Service', true, { statusSubresource: true, shortNames: ['svc'], categories: all }),
  configMaps: describe('', 'v1', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'] }),
  secrets: describe('', 'v1', 'secrets', 'Secret', true),
  namespaces: describe('', 'v1', 'namespaces', 'Namespace', false, { statusSubresource: true, shortNames: ['ns'] }),
  events: describe('', 'v1', 'events', 'Event', true, { shortNames: ['ev'] }),
  serviceAccounts: describe('', 'v1', 'serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'] }),
  deployments: describe('apps', 'v1', 'deployments', 'Deployment', true, { statusSubresource: true, scale: replicas, shortNames: ['deploy'], categories: all }),
  statefulSets: describe('apps', 'v1', 'statefulsets', 'StatefulSet', true, { statusSubresource: true, scale: replicas, shortNames: ['sts'], categories: all }),
  daemonSets: describe('apps', 'v1', 'daemonsets', 'DaemonSet', true, { statusSubresource: true, shortNames: ['ds'], categories: all }),
  replicaSets: describe('apps', 'v1', 'replicasets', 'ReplicaSet', true, { statusSubresource: true, scale: replicas, shortNames: ['rs'], categories: all }),
  jobs: describe('batch', 'v1', 'jobs', 'Job', true, { statusSubresource: true, categories: all }),
  cronJobs: describe('batch', 'v1', 'cronjobs', 'CronJob', true, { statusSubresource: true, shortNames: ['cj'], categories: all }),
  leases: describe('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  customResourceDefinitions: describe('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, {
    statusSubresource: true,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
  }),
} as const satisfies Record<string, ResourceDescriptor>;

/** All built-in descriptors, e.g. to register with a fake tracker next to generated ones. */
export const allBuiltinResources: readonly ResourceDescriptor[] = Object.values(builtinResources);
