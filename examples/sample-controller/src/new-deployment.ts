/**
 * The Deployment a Foo asks for (sample-controller's `newDeployment`): named `spec.deploymentName` in the Foo's
 * namespace, labels `{app: 'nginx', controller: <foo name>}` on it, its selector and its pod template, one
 * `nginx:latest` container, `spec.replicas` copied from the Foo, and a controller ownerReference to the Foo.
 * Pure: returns a fresh object, never mutates `foo`.
 */
import type { Deployment, OwnerReference } from '@kubegen/runtime';
import type { Foo } from './generated/samplecontroller.k8s.io/v1alpha1/index.js';

export const FOO_API_VERSION = 'samplecontroller.k8s.io/v1alpha1';
export const FOO_KIND = 'Foo';

/** `metav1.NewControllerRef(foo, Foo GVK)`: the owner reference a Foo's Deployment carries. */
export function fooControllerRef(foo: Foo): OwnerReference {
  return {
    apiVersion: FOO_API_VERSION,
    kind: FOO_KIND,
    name: foo.metadata?.name ?? '',
    uid: foo.metadata?.uid ?? '',
    blockOwnerDeletion: true,
    controller: true,
  };
}

/**
 * `extraLabels` go on the Deployment's own metadata only (not its selector or pod template): with sharding, the
 * shard label (`shard.labelsFor(foo)`), so the Deployment lands in the Foo's shard's cache at once.
 */
export function newDeployment(foo: Foo, extraLabels: Record<string, string> = {}): Deployment {
  const labels = { app: 'nginx', controller: foo.metadata?.name ?? '' };
  const spec: NonNullable<Deployment['spec']> = {
    selector: { matchLabels: { ...labels } },
    template: {
      metadata: { labels: { ...labels } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
    },
  };
  if (foo.spec?.replicas !== undefined) spec.replicas = foo.spec.replicas;
  const metadata: NonNullable<Deployment['metadata']> = {
    name: foo.spec?.deploymentName ?? '',
    ...(Object.keys(extraLabels).length > 0 ? { labels: { ...extraLabels } } : {}),
    ownerReferences: [fooControllerRef(foo)],
  };
  if (foo.metadata?.namespace) metadata.namespace = foo.metadata.namespace;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}
