/**
 * What a built-in kind's sample needs beyond its OpenAPI schema: the apiserver's Go validation asks for more than the
 * schema's required fields (a Deployment's selector matching its template's labels and a container with a name and
 * an image, a Service's ports, a PersistentVolume's capacity, access modes and source, a signed PEM request in a
 * CertificateSigningRequest …). Each seed is merged over the schema's minimal object (objects field by field; lists
 * and scalars replace), so it holds only what the schema cannot say.
 *
 * Keys are `group/Kind` (`Kind` for the core group), or `group/version/Kind` for one version only (that one wins).
 * A seed is an object, or a function of the sample's name and namespace for kinds that name them inside (an Event's
 * involved object, a LocalSubjectAccessReview's namespace).
 *
 * Kept honest by test/integration/builtin-kinds.test.ts, which creates a sample of every kind kube-apiserver 1.20
 * (envtest's `full` profile) serves in a version Kubernetes 1.36 still has. Seeds of kinds that release does not serve
 * (resource.k8s.io, admission policies, ServiceCIDR, IPAddress, …) follow the 1.36 API documentation and are not
 * checked against an apiserver. Two seeds set the name, which their kinds constrain: an IPAddress is named by its
 * address, a StorageVersion `<group>.<resource>`. A PodCertificateRequest has no seed: the apiserver checks it against
 * a running pod, its node and a signed proof of possession, which no sample can carry.
 */

/** What a seed may depend on. */
export interface SeedContext {
  /** The sample's `metadata.name`. */
  name: string;
  /** The namespace the sample is for (namespaced kinds; `default` unless told). */
  namespace: string;
}

export type Seed = Record<string, unknown> | ((ctx: SeedContext) => Record<string, unknown>);

/** A small image every node can pull, that runs (and does nothing). */
const IMAGE = 'registry.k8s.io/pause:3.10';

/** A pod template whose labels the owner's selector matches (by the sample's name, so two samples never overlap). */
const podTemplate = (name: string, restartPolicy?: 'Never' | 'OnFailure') => ({
  metadata: { labels: { app: name } },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'sample', image: IMAGE }] },
});

/** A workload: a selector and a pod template with matching labels. */
const workload: Seed = ({ name }) => ({ spec: { selector: { matchLabels: { app: name } }, template: podTemplate(name) } });

/** A PKCS#10 request for `CN=sample` (ECDSA P-256), whose key was not kept: a CertificateSigningRequest must carry a real, signed one. */
const CSR_PEM = `-----BEGIN CERTIFICATE REQUEST-----
MIHMMHMCAQAwETEPMA0GA1UEAwwGc2FtcGxlMFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAERoMe4huhDDs1DlynxM2KOJNpe1rngE3xDHTmQfd6IHu3Zm7dYZQXw2F5
rUqsvTg9EH8PzW6S4kSScERizKo9BaAAMAoGCCqGSM49BAMCA0kAMEYCIQCO6JyH
EcXWlh4fKWXLdOYhPNJ58rBXn4W30ntKSm+C5QIhAIlZ80vPWNRfH5LAMVVhKH1Z
1ZROmaRHKIq8+9CNDg3v
-----END CERTIFICATE REQUEST-----
`;

/** A self-signed CA certificate (`CN=sample-ca`, valid until 2126), whose key was not kept: a ClusterTrustBundle's trust anchor. */
const CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUNawcvTV1UKRAS+469JsSjRIj58UwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJc2FtcGxlLWNhMCAXDTI2MTEyNzE5MDQ1MFoYDzIxMjYxMTAz
MTkwNDUwWjAUMRIwEAYDVQQDDAlzYW1wbGUtY2EwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASsG+WJO+U/iWnkasN/HK0rdQJt0xJxEkm9db9AXVO1aRGw2DrfL3it
PNzDfqrwMqAWSLDTv/yOrRWvyRxlVZdzo2MwYTAdBgNVHQ4EFgQUdbzysrqNSI/N
AAXqYvJxULcbnrAwHwYDVR0jBBgwFoAUdbzysrqNSI/NAAXqYvJxULcbnrAwDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAgQwCgYIKoZIzj0EAwIDSAAwRQIh
AMZlAQopNVbGETCe8qybwQ1Te6hAybWdhEPODFqac7TNAiBZYq2FgJZyh9mh6NxL
Dq5XEkgHdcV5J7wwF/nInH7OcQ==
-----END CERTIFICATE-----
`;

/** What a review asks about: may `sample` get pods (in `namespace`). */
const podsAccess = (namespace?: string) => ({ resourceAttributes: { verb: 'get', resource: 'pods', ...(namespace ? { namespace } : {}) } });

/** A rule matching Deployment creations, for admission policies. */
const matchDeployments = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] };

const roleRef = { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } };

/** The seeds (see the module comment). */
export const BUILTIN_SEEDS: Readonly<Record<string, Seed>> = {
  // core
  Event: ({ name, namespace }) => ({ involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name, namespace }, reason: 'Sample', message: 'a sample event' }),
  PersistentVolume: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/sample' } } },
  PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  Pod: ({ name }) => ({ spec: podTemplate(name).spec }),
  PodTemplate: ({ name }) => ({ template: podTemplate(name) }),
  ReplicationController: ({ name }) => ({ spec: { selector: { app: name }, template: podTemplate(name) } }),
  Service: { spec: { ports: [{ port: 80 }] } },
  // workloads
  'apps/ControllerRevision': { data: {} },
  'apps/DaemonSet': workload,
  'apps/Deployment': workload,
  'apps/ReplicaSet': workload,
  'apps/StatefulSet': ({ name }) => ({ spec: { selector: { matchLabels: { app: name } }, template: podTemplate(name), serviceName: name } }),
  'extensions/DaemonSet': workload,
  'extensions/Deployment': workload,
  'extensions/ReplicaSet': workload,
  'batch/Job': ({ name }) => ({ spec: { template: podTemplate(name, 'Never') } }),
  'batch/CronJob': ({ name }) => ({ spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: podTemplate(name, 'Never') } } } }),
  'autoscaling/HorizontalPodAutoscaler': ({ name }) => ({ spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 2 } }),
  'policy/PodDisruptionBudget': ({ name }) => ({ spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } }),
  // networking
  'networking.k8s.io/Ingress': ({ name }) => ({ spec: { defaultBackend: { service: { name, port: { number: 80 } } } } }),
  'networking.k8s.io/v1beta1/Ingress': ({ name }) => ({ spec: { backend: { serviceName: name, servicePort: 80 } } }),
  'extensions/Ingress': ({ name }) => ({ spec: { backend: { serviceName: name, servicePort: 80 } } }),
  'networking.k8s.io/IngressClass': { spec: { controller: 'example.com/ingress-controller' } },
  'networking.k8s.io/IPAddress': ({ name }) => ({ metadata: { name: '192.0.2.10' }, spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name } } }),
  'networking.k8s.io/ServiceCIDR': { spec: { cidrs: ['198.51.100.0/24'] } },
  'discovery.k8s.io/EndpointSlice': { addressType: 'IPv4', endpoints: [] },
  // access control and reviews
  'rbac.authorization.k8s.io/ClusterRoleBinding': roleRef,
  'rbac.authorization.k8s.io/RoleBinding': roleRef,
  'authorization.k8s.io/SubjectAccessReview': { spec: { user: 'sample', ...podsAccess() } },
  'authorization.k8s.io/LocalSubjectAccessReview': ({ namespace }) => ({ spec: { user: 'sample', ...podsAccess(namespace) } }),
  'authorization.k8s.io/SelfSubjectAccessReview': { spec: podsAccess() },
  'authorization.k8s.io/SelfSubjectRulesReview': ({ namespace }) => ({ spec: { namespace } }),
  'certificates.k8s.io/CertificateSigningRequest': { spec: { request: Buffer.from(CSR_PEM).toString('base64'), signerName: 'example.com/sample', usages: ['digital signature'] } },
  'certificates.k8s.io/ClusterTrustBundle': { spec: { trustBundle: CA_PEM } },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': { spec: { matchConstraints: matchDeployments, validations: [{ expression: 'true' }] } },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': ({ name }) => ({ spec: { policyName: name, validationActions: ['Deny'] } }),
  'admissionregistration.k8s.io/MutatingAdmissionPolicy': {
    spec: { matchConstraints: matchDeployments, reinvocationPolicy: 'Never', mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }] },
  },
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding': ({ name }) => ({ spec: { policyName: name } }),
  // cluster operations
  'events.k8s.io/Event': ({ name, namespace }) => ({
    // A MicroTime: the apiserver parses it with exactly six fractional digits.
    eventTime: '2024-01-01T00:00:00.000000Z',
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', name, namespace },
    reason: 'Sample',
    action: 'Sampled',
    type: 'Normal',
    reportingController: 'example.com/sample',
    reportingInstance: 'sample',
  }),
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  'coordination.k8s.io/LeaseCandidate': { spec: { leaseName: 'sample', binaryVersion: '1.36.0', strategy: 'OldestEmulationVersion' } },
  'node.k8s.io/RuntimeClass': { handler: 'runc' },
  'node.k8s.io/v1alpha1/RuntimeClass': { spec: { runtimeHandler: 'runc' } },
  'scheduling.k8s.io/PriorityClass': { value: 1000 },
  'storage.k8s.io/StorageClass': { provisioner: 'example.com/sample' },
  'storage.k8s.io/VolumeAttachment': ({ name }) => ({ spec: { attacher: 'sample.example.com', nodeName: name, source: { persistentVolumeName: name } } }),
  'storage.k8s.io/VolumeAttributesClass': { driverName: 'example.com/sample' },
  'storagemigration.k8s.io/StorageVersionMigration': { spec: { resource: { group: 'apps', resource: 'deployments' } } },
  'internal.apiserver.k8s.io/StorageVersion': ({ name }) => ({ metadata: { name: name.includes('.') ? name : `apps.${name}` } }),
  'scheduling.k8s.io/Workload': { spec: { podGroupTemplates: [{ name: 'sample', schedulingPolicy: { basic: {} } }] } },
  'scheduling.k8s.io/PodGroup': { spec: { schedulingPolicy: { basic: {} } } },
  // dynamic resource allocation
  'resource.k8s.io/DeviceTaintRule': { spec: { taint: { key: 'example.com/sample', effect: 'NoExecute' } } },
  'resource.k8s.io/ResourcePoolStatusRequest': { spec: { driver: 'example.com' } },
  'resource.k8s.io/ResourceSlice': { spec: { driver: 'example.com', pool: { name: 'sample', generation: 1, resourceSliceCount: 1 }, allNodes: true } },
};

/** The seed of `kind` in `group`/`version`, if it has one. */
export function seedOf(group: string, version: string, kind: string, ctx: SeedContext): Record<string, unknown> | undefined {
  const seed = BUILTIN_SEEDS[group ? `${group}/${version}/${kind}` : `${version}/${kind}`] ?? BUILTIN_SEEDS[group ? `${group}/${kind}` : kind];
  return typeof seed === 'function' ? seed(ctx) : seed;
}
