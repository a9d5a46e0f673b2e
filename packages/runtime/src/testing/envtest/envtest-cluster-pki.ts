/**
 * Certificates and kubeconfigs of the `cluster` envtest profile. One CA (`pki/ca.crt`) signs the apiserver's serving
 * certificate and a client certificate per component, so every kubeconfig verifies the apiserver and every component
 * authenticates as itself, as in a kubeadm cluster:
 *
 * - kube-apiserver serves `pki/apiserver.crt` (127.0.0.1, localhost, the `kubernetes` Service names and its first
 *   cluster IP) and trusts the CA for clients (`--client-ca-file`);
 * - kube-controller-manager is `system:kube-controller-manager`, kube-scheduler `system:kube-scheduler` (the users
 *   the apiserver's bootstrap RBAC grants their roles to);
 * - hollow node `N` is `system:node:N` in `system:nodes` (the Node authorizer and NodeRestriction admission limit it
 *   to its own Node, Lease and Pods).
 *
 * The admin keeps the bearer token of the `full` profile. Keys are ECDSA P-256, made in process (`@peculiar/x509`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateCertificateSet, type CertificateRequest } from '../../certs/self-signed.js';

/** Where a component's client certificate, key and kubeconfig are. */
export interface ComponentIdentity {
  /** The user the apiserver sees (certificate CN). */
  user: string;
  certFile: string;
  keyFile: string;
  kubeconfigPath: string;
}

/** The files of {@link writeClusterPki}. */
export interface ClusterPki {
  caFile: string;
  /** The apiserver's serving certificate and key (`--tls-cert-file`, `--tls-private-key-file`). */
  servingCertFile: string;
  servingKeyFile: string;
  controllerManager: ComponentIdentity;
  scheduler: ComponentIdentity;
  /** One per hollow node, in node order. */
  nodes: (ComponentIdentity & { nodeName: string })[];
}

/** The names the apiserver's serving certificate is valid for (what in-cluster clients and local ones dial). */
export const APISERVER_HOSTS = ['127.0.0.1', 'localhost', '10.0.0.1', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];

/**
 * Makes the CA and every certificate into `<dir>/pki` (keys mode 0600). Kubeconfigs are written later by
 * {@link writeComponentKubeconfigs}, once the apiserver's port is known.
 */
export async function writeClusterPki(dir: string, nodeNames: readonly string[]): Promise<ClusterPki> {
  const pkiDir = path.join(dir, 'pki');
  fs.mkdirSync(pkiDir, { recursive: true });
  const requests: Record<string, CertificateRequest> = {
    apiserver: { server: { hosts: APISERVER_HOSTS, commonName: 'kube-apiserver' } },
    'kube-controller-manager': { client: { commonName: 'system:kube-controller-manager' } },
    'kube-scheduler': { client: { commonName: 'system:kube-scheduler' } },
  };
  for (const node of nodeNames) requests[node] = { client: { commonName: `system:node:${node}`, organizations: ['system:nodes'] } };
  const set = await generateCertificateSet('kubegen-envtest-cluster-ca', requests);
  const caFile = path.join(pkiDir, 'ca.crt');
  fs.writeFileSync(caFile, set.caCert);
  const write = (name: string): { certFile: string; keyFile: string } => {
    const certFile = path.join(pkiDir, `${name}.crt`);
    const keyFile = path.join(pkiDir, `${name}.key`);
    fs.writeFileSync(certFile, set.certs[name]!.cert);
    fs.writeFileSync(keyFile, set.certs[name]!.key, { mode: 0o600 });
    return { certFile, keyFile };
  };
  const identity = (name: string, user: string): ComponentIdentity => ({ user, ...write(name), kubeconfigPath: path.join(dir, `${name}.kubeconfig`) });
  const serving = write('apiserver');
  return {
    caFile,
    servingCertFile: serving.certFile,
    servingKeyFile: serving.keyFile,
    controllerManager: identity('kube-controller-manager', 'system:kube-controller-manager'),
    scheduler: identity('kube-scheduler', 'system:kube-scheduler'),
    nodes: nodeNames.map((nodeName) => ({ nodeName, ...identity(nodeName, `system:node:${nodeName}`) })),
  };
}

/** Writes each component's kubeconfig: the apiserver at `server`, verified by the CA, and its client certificate. */
export function writeComponentKubeconfigs(pki: ClusterPki, server: string): void {
  for (const id of [pki.controllerManager, pki.scheduler, ...pki.nodes]) {
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'envtest', cluster: { server, 'certificate-authority': pki.caFile } }],
      users: [{ name: id.user, user: { 'client-certificate': id.certFile, 'client-key': id.keyFile } }],
      contexts: [{ name: 'envtest', context: { cluster: 'envtest', user: id.user } }],
      'current-context': 'envtest',
      preferences: {},
    };
    fs.writeFileSync(id.kubeconfigPath, JSON.stringify(config, null, 2), { mode: 0o600 });
  }
}
