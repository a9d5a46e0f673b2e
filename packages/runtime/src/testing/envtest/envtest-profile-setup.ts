/**
 * Per-profile files and flags of the envtest apiserver: how the admin authenticates, and the flags that differ
 * between kube-apiserver 1.20 (`full`, `cluster`) and the CRD apiserver 1.36 (`crd-only`); and one object per profile
 * ({@link CONTROL_PLANES}) with what else differs: the readiness path, the components and the garbage collector it
 * runs. The common flags (etcd, port, cert dir, bind address) are set by `Envtest.start`.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateClientCertificate } from '../../certs/self-signed.js';
import { writeClusterPki, type ClusterPki } from './envtest-cluster-pki.js';
import { LEASE_CRD } from './envtest-lease-shim.js';
import type { EnvtestProfile } from './envtest-profiles.js';

/** How the envtest admin authenticates: the kubeconfig `user` entry, and the token when it is one. */
export interface AdminCredentials {
  user: Record<string, string>;
  token?: string;
}

/** What a profile adds: the admin's credentials, the apiserver flags, and CRDs installed before the test's own. */
export interface ProfileSetup {
  credentials: AdminCredentials;
  args: string[];
  crds?: readonly object[];
  /** The `cluster` profile's: the PKI and service-account key its components are started with. */
  cluster?: { pki: ClusterPki; serviceAccountKeyFile: string };
}

/**
 * What differs between the profiles when envtest starts and polls a control plane: one object per profile, in
 * {@link CONTROL_PLANES} (what each serves is `PROFILE_CAPABILITIES`, envtest-profiles.ts).
 */
export interface ControlPlaneProfile {
  readonly name: EnvtestProfile;
  /** The apiserver's entry in the table of versioned flags (envtest-flags.ts). */
  readonly apiserver: 'kube-apiserver' | 'apiextensions-apiserver';
  /** What envtest polls until the apiserver is ready. */
  readonly readyPath: string;
  /** Runs kube-controller-manager, kube-scheduler and hollow nodes beside the apiserver (the `cluster` options). */
  readonly components: boolean;
  /** Runs kubegen's garbage collector beside the apiserver unless `garbageCollector: false` (that option). */
  readonly garbageCollector: boolean;
  /** Writes the profile's files in `dir`: the admin's credentials, the apiserver flags, the CRDs to install first. */
  setup(dir: string, nodeNames: readonly string[]): Promise<ProfileSetup>;
}

/**
 * kube-apiserver 1.20: a service-account key pair (so ServiceAccount tokens can be issued), the admin as a static
 * bearer token in `system:masters`, RBAC authorization, and ServiceAccount admission off (no controller-manager
 * creates the `default` ServiceAccount, so with it on every Pod create is refused).
 */
export function fullProfileSetup(dir: string): ProfileSetup {
  const token = randomBytes(24).toString('hex');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  fs.writeFileSync(path.join(dir, 'sa.pub'), publicKey);
  fs.writeFileSync(path.join(dir, 'sa.key'), privateKey, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'tokens.csv'), `${token},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });
  return {
    credentials: { user: { token }, token },
    args: [
      '--advertise-address=127.0.0.1',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
    ],
  };
}

/**
 * kube-apiserver 1.20 with a controller-manager, a scheduler and hollow nodes behind it: the `full` setup, plus one
 * CA for the components' client certificates (`--client-ca-file`) and the apiserver's serving certificate, the Node
 * authorizer and NodeRestriction admission in front of the kubelets (`--authorization-mode=Node,RBAC`), and the
 * ServiceAccount admission plugin back on (the controller-manager makes each namespace's `default` ServiceAccount
 * and its token, so Pods get them mounted as in a cluster).
 */
export async function clusterProfileSetup(dir: string, nodeNames: readonly string[]): Promise<ProfileSetup> {
  const full = fullProfileSetup(dir);
  const pki = await writeClusterPki(dir, nodeNames);
  const args = full.args.filter((a) => !a.startsWith('--disable-admission-plugins=') && !a.startsWith('--authorization-mode='));
  return {
    credentials: full.credentials,
    cluster: { pki, serviceAccountKeyFile: path.join(dir, 'sa.key') },
    args: [
      ...args,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      `--client-ca-file=${pki.caFile}`,
      `--tls-cert-file=${pki.servingCertFile}`,
      `--tls-private-key-file=${pki.servingKeyFile}`,
    ],
  };
}

/**
 * The CRD apiserver 1.36 run alone. The admin is a client certificate (`CN=admin, O=system:masters`) signed by a CA
 * given as `--client-ca-file`. Delegated authentication/authorization and its core informers need a kubeconfig to
 * construct; they get one pointing at a closed port (never reached: `--authentication-skip-lookup`, and every path
 * is allowed by `--authorization-always-allow-paths=/*`). Admission plugins that need core kinds or webhooks are
 * off, and KEP-5866's `ShardedListAndWatch` gate is on (lists and watches honour `shardSelector`, as sharded
 * managers use; `apiserverArgs: ['--feature-gates=ShardedListAndWatch=false']` turns it off): those flags name
 * plugins and a gate that only some versions have, so they come from `envtest-flags.ts`. `/readyz` never passes its
 * `informer-sync` check (it waits on core kinds); envtest polls without it. Leases are served by a CRD of their own
 * group (see `envtest-lease-shim.ts`), so leader election and sharding run on this profile too.
 */
export async function crdOnlyProfileSetup(dir: string): Promise<ProfileSetup> {
  const admin = await generateClientCertificate({ commonName: 'admin', organizations: ['system:masters'] });
  const caFile = path.join(dir, 'client-ca.crt');
  fs.writeFileSync(caFile, admin.caCert);
  const nowhere = path.join(dir, 'delegation.kubeconfig');
  fs.writeFileSync(
    nowhere,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'none', cluster: { server: 'http://127.0.0.1:1' } }],
      contexts: [{ name: 'none', context: { cluster: 'none', user: 'none' } }],
      'current-context': 'none',
      users: [{ name: 'none', user: {} }],
    }),
  );
  return {
    credentials: {
      user: {
        'client-certificate-data': Buffer.from(admin.cert).toString('base64'),
        'client-key-data': Buffer.from(admin.key).toString('base64'),
      },
    },
    args: [
      `--client-ca-file=${caFile}`,
      '--authentication-skip-lookup',
      `--authentication-kubeconfig=${nowhere}`,
      `--authorization-kubeconfig=${nowhere}`,
      `--kubeconfig=${nowhere}`,
      '--authorization-always-allow-paths=/*',
    ],
    crds: [LEASE_CRD],
  };
}

/** The three control planes (see envtest-profiles.ts for what each serves). */
export const CONTROL_PLANES: Readonly<Record<EnvtestProfile, ControlPlaneProfile>> = {
  full: {
    name: 'full',
    apiserver: 'kube-apiserver',
    readyPath: '/readyz',
    components: false,
    garbageCollector: false,
    setup: async (dir) => fullProfileSetup(dir),
  },
  'crd-only': {
    name: 'crd-only',
    apiserver: 'apiextensions-apiserver',
    // The CRD apiserver's informer-sync check waits forever on core kinds that nothing serves.
    readyPath: '/readyz?exclude=informer-sync',
    components: false,
    garbageCollector: true,
    setup: (dir) => crdOnlyProfileSetup(dir),
  },
  cluster: {
    name: 'cluster',
    apiserver: 'kube-apiserver',
    readyPath: '/readyz',
    components: true,
    garbageCollector: false,
    setup: (dir, nodeNames) => clusterProfileSetup(dir, nodeNames),
  },
};
