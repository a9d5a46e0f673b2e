import type { ResourceDescriptor } from '../client/types.js';

function describe(group: string, version: string, resource: string, kind: string, namespaced: boolean, extra: Partial<ResourceDescriptor> = {}): ResourceDescriptor {
  return { group, version, resource, kind, listKind: `${kind}List`, namespaced, ...extra };
}

const replicas = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

/** Descriptors of the built-in kinds a controller typically owns or reads. */
export const builtinResources = {
  pods: describe('', 'v1', 'pods', 'Pod', true, { statusSubresource: true }),
  services: describe('', 'v1', 'services', 'Service', true, { statusSubresource: true }),
  configMaps: describe('', 'v1', 'configmaps', 'ConfigMap', true),
  secrets: describe('', 'v1', 'secrets', 'Secret', true),
  namespaces: describe('', 'v1', 'namespaces', 'Namespace', false, { statusSubresource: true }),
  events: describe('', 'v1', 'events', 'Event', true),
  serviceAccounts: describe('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  deployments: describe('apps', 'v1', 'deployments', 'Deployment', true, { statusSubresource: true, scale: replicas }),
  statefulSets: describe('apps', 'v1', 'statefulsets', 'StatefulSet', true, { statusSubresource: true, scale: replicas }),
  daemonSets: describe('apps', 'v1', 'daemonsets', 'DaemonSet', true, { statusSubresource: true }),
  replicaSets: describe('apps', 'v1', 'replicasets', 'ReplicaSet', true, { statusSubresource: true, scale: replicas }),
  jobs: describe('batch', 'v1', 'jobs', 'Job', true, { statusSubresource: true }),
  leases: describe('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
} as const satisfies Record<string, ResourceDescriptor>;

/** All built-in descriptors, e.g. to register with a fake tracker next to generated ones. */
export const allBuiltinResources: readonly ResourceDescriptor[] = Object.values(builtinResources);
