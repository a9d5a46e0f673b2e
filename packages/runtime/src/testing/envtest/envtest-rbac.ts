/**
 * Running a manager as its ServiceAccount, bound to the project's RBAC as deployed (kubebuilder projects test as an
 * admin; a missing `+kubebuilder:rbac` marker then shows only in the cluster). `installRbac` creates the objects
 * `readProjectRbac` rendered (and their namespaces) through an admin transport, `requestServiceAccountToken` asks the
 * TokenRequest API (`POST …/serviceaccounts/<name>/token`) for a token, and `writeTokenKubeconfig` writes a kubeconfig
 * that authenticates with it. `Envtest.installProjectRbac` does the three for a project folder.
 *
 * Needs a control plane with RBAC and ServiceAccount tokens: envtest's `full` profile, or a real cluster. The
 * `crd-only` profile allows every request and serves no core kinds: it is refused.
 */
import fs from 'node:fs';
import type { KubeConfig } from '../../client/kubeconfig-model.js';
import { isAlreadyExists, isNotFound } from '../../client/errors.js';
import { isRestConfig } from '../../client/kubeconfig-model.js';
import type { RestConfig } from '../../client/rest-config.js';
import { ResourceClient } from '../../client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';
import { createTransport } from '../../client/kubeconfig.js';
import { explainNotServed } from './envtest-profiles.js';
import { waitForPermissions } from './rbac-in-effect.js';
import type { ProjectRbac, ServiceAccountRef } from './project-rbac.js';

const rbacResource = (resource: string, kind: string, namespaced: boolean): ResourceInfo => ({
  group: 'rbac.authorization.k8s.io', version: 'v1', resource, kind, listKind: `${kind}List`, namespaced,
});
const core = (resource: string, kind: string, namespaced: boolean): ResourceInfo => ({ group: '', version: 'v1', resource, kind, listKind: `${kind}List`, namespaced });

/** The resources of the kinds `installRbac` creates, by kind. */
const RESOURCES: Readonly<Record<string, ResourceInfo>> = {
  ServiceAccount: core('serviceaccounts', 'ServiceAccount', true),
  Role: rbacResource('roles', 'Role', true),
  ClusterRole: rbacResource('clusterroles', 'ClusterRole', false),
  RoleBinding: rbacResource('rolebindings', 'RoleBinding', true),
  ClusterRoleBinding: rbacResource('clusterrolebindings', 'ClusterRoleBinding', false),
};
const NAMESPACES = core('namespaces', 'Namespace', false);

/** Default lifetime of a token from {@link requestServiceAccountToken}: 24 hours (a test run, a day of `kubegen dev`). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 24 * 3600;

/**
 * Creates `rbac`'s namespaces (when missing) and objects through `admin`, replacing objects that exist (as
 * `kubectl apply` leaves them: the rendered object wins). Errors name the object; a 404 on a control plane without
 * RBAC (envtest's `crd-only` profile) says so. Returns a function that deletes the objects again (not the
 * namespaces: on envtest they would stay Terminating).
 */
export async function installRbac(admin: Transport, rbac: ProjectRbac): Promise<() => Promise<void>> {
  const namespaces = new ResourceClient<KubeObject>(admin, NAMESPACES);
  for (const ns of rbac.namespaces) {
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw explainNotServed(err, 'rbac', `namespace ${ns}`);
    });
  }
  for (const obj of rbac.objects) {
    const info = RESOURCES[obj.kind ?? ''];
    if (!info) throw new Error(`project RBAC: cannot install a ${obj.kind}`);
    const client = new ResourceClient<KubeObject>(admin, info, obj.metadata?.namespace);
    const name = obj.metadata?.name ?? '';
    const what = `${obj.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${name}`;
    try {
      await client.create(obj).catch(async (err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
        const current = await client.get(name);
        await client.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata?.resourceVersion } });
      });
    } catch (err) {
      const explained = explainNotServed(err, 'rbac', what);
      throw explained === err ? new Error(`installing ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err }) : explained;
    }
  }
  return async () => {
    for (const obj of [...rbac.objects].reverse()) {
      await new ResourceClient<KubeObject>(admin, RESOURCES[obj.kind!]!, obj.metadata?.namespace).delete(obj.metadata!.name!).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  };
}

/**
 * A token for ServiceAccount `sa` from the TokenRequest API (authentication.k8s.io/v1), valid for
 * `expirationSeconds` (default {@link DEFAULT_TOKEN_EXPIRATION_SECONDS}; the apiserver may shorten it).
 */
export async function requestServiceAccountToken(admin: Transport, sa: ServiceAccountRef, opts: { expirationSeconds?: number } = {}): Promise<string> {
  const res = await admin
    .request<{ status?: { token?: string } }>({
      verb: 'create',
      resource: RESOURCES['ServiceAccount']!,
      namespace: sa.namespace,
      name: sa.name,
      subresource: 'token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: opts.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS } },
    })
    .catch((err: unknown) => {
      throw explainNotServed(err, 'rbac', `a token for ServiceAccount ${sa.namespace}/${sa.name}`);
    });
  const token = res?.status?.token;
  if (!token) throw new Error(`the apiserver issued no token for ServiceAccount ${sa.namespace}/${sa.name}`);
  return token;
}

/** The cluster half of a kubeconfig: where the server is and how to trust it. */
export type ClusterConfig = Pick<RestConfig, 'server' | 'caData' | 'insecureSkipTLSVerify' | 'tlsServerName' | 'proxyUrl'>;

/** The cluster of a `RestConfig`, or of a `KubeConfig`'s current context. */
export function clusterOf(config: RestConfig | KubeConfig): ClusterConfig {
  const { server, caData, insecureSkipTLSVerify, tlsServerName, proxyUrl } = isRestConfig(config) ? config : config.restConfig();
  return { server, ...(caData !== undefined ? { caData } : {}), ...(insecureSkipTLSVerify ? { insecureSkipTLSVerify } : {}), ...(tlsServerName ? { tlsServerName } : {}), ...(proxyUrl ? { proxyUrl } : {}) };
}

/** Writes (mode 0600) a kubeconfig for `cluster` that authenticates with bearer `token`, `namespace` as its default. */
export function writeTokenKubeconfig(file: string, cluster: ClusterConfig, token: string, namespace?: string): void {
  const entry: Record<string, unknown> = { server: cluster.server };
  if (cluster.caData !== undefined) entry['certificate-authority-data'] = Buffer.from(cluster.caData, 'utf8').toString('base64');
  if (cluster.insecureSkipTLSVerify) entry['insecure-skip-tls-verify'] = true;
  if (cluster.tlsServerName) entry['tls-server-name'] = cluster.tlsServerName;
  if (cluster.proxyUrl) entry['proxy-url'] = cluster.proxyUrl;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'cluster', cluster: entry }],
    users: [{ name: 'token', user: { token } }],
    contexts: [{ name: 'token', context: { cluster: 'cluster', user: 'token', ...(namespace ? { namespace } : {}) } }],
    'current-context': 'token',
    preferences: {},
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
}

/** Who a manager runs as after {@link runAsServiceAccount}: its RBAC, user name, token and kubeconfig. */
export interface ServiceAccountIdentity {
  rbac: ProjectRbac;
  /** `system:serviceaccount:<namespace>:<name>`. */
  user: string;
  token: string;
  /** A kubeconfig authenticating as the ServiceAccount (give it to `createTransport({ kubeconfig })` or `--kubeconfig`). */
  kubeconfigPath: string;
  /** Deletes the RBAC objects again (see {@link installRbac}). */
  uninstall(): Promise<void>;
}

/**
 * Installs `rbac` through `admin`, requests a token for its ServiceAccount and writes a kubeconfig with it to
 * `kubeconfigPath` (the cluster taken from `cluster`); resolves once the ServiceAccount's permissions have taken
 * effect (`waitForPermissions`: a SelfSubjectAccessReview per bound rule), so a manager started next is not refused.
 */
export async function runAsServiceAccount(
  admin: Transport,
  cluster: ClusterConfig,
  rbac: ProjectRbac,
  opts: { kubeconfigPath: string; expirationSeconds?: number },
): Promise<ServiceAccountIdentity> {
  const uninstall = await installRbac(admin, rbac);
  const token = await requestServiceAccountToken(admin, rbac.serviceAccount, opts.expirationSeconds !== undefined ? { expirationSeconds: opts.expirationSeconds } : {});
  writeTokenKubeconfig(opts.kubeconfigPath, cluster, token, rbac.serviceAccount.namespace);
  // RBAC reaches the authorizer through its informers: return once the ServiceAccount holds what it was given.
  const asServiceAccount = createTransport({ kubeconfig: opts.kubeconfigPath });
  try {
    await waitForPermissions(asServiceAccount, rbac);
  } finally {
    asServiceAccount.close();
  }
  return { rbac, user: rbac.user, token, kubeconfigPath: opts.kubeconfigPath, uninstall };
}
