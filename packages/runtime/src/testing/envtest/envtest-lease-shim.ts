/**
 * Leases on the `crd-only` profile. The CRD apiserver serves no built-in kinds, yet leader election and sharding
 * need `coordination.k8s.io/v1` Leases; the profile therefore installs this CustomResourceDefinition of the same
 * group, version and names, so `/apis/coordination.k8s.io/v1/namespaces/NS/leases` answers as on a cluster. The
 * schema keeps `spec` as given (no validation of its fields: the clients are ours), which is all a Lease lock needs.
 * A built-in group may be served by a CRD only with the `api-approved.kubernetes.io` annotation.
 */
export const LEASE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'leases.coordination.k8s.io',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, envtest only: Leases served as a custom resource by the crd-only profile' },
  },
  spec: {
    group: 'coordination.k8s.io',
    scope: 'Namespaced',
    names: { plural: 'leases', singular: 'lease', kind: 'Lease', listKind: 'LeaseList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      },
    ],
  },
} as const;
