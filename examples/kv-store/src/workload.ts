/**
 * The members of a KVStore and how they are reached, as apply configurations (pure: the store in, the objects out):
 *
 * - a ConfigMap with the members' etcd configuration (the initial cluster lists every member by its stable DNS name);
 * - a headless Service (`<store>-peers`, the StatefulSet's `serviceName`) that gives each member that name, ready or
 *   not, so members find each other before they are ready;
 * - a Service (`<store>`) for clients, on the client port, to ready members only;
 * - the StatefulSet: one Pod per member, each with a PersistentVolumeClaim from the claim template (`data`).
 *
 * Every port names its `protocol`, though the apply configurations leave it optional (the API defaults it to TCP):
 * it is a key of the ports' list maps, and kube-apiserver 1.20 refuses an apply whose entry lacks a key ("associative
 * list with keys has an element that omits key field \"protocol\"").
 */
import { configMapApply, serviceApply } from '@kubegen/runtime/api/core/v1';
import type { ConfigMapApply, ContainerApply, ServiceApply } from '@kubegen/runtime/api/core/v1';
import { statefulSetApply } from '@kubegen/runtime/api/apps/v1';
import type { StatefulSetApply } from '@kubegen/runtime/api/apps/v1';
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import {
  CLIENT_PORT, DATA_DIR, DATA_VOLUME, DEFAULT_IMAGE, DEFAULT_STORAGE_SIZE, ownedNames, PEER_PORT, replicasOf, selectorLabels,
} from './names.js';
import { owned } from './owned.js';

/** The stable DNS name of member `i`: `<store>-<i>.<store>-peers.<namespace>.svc`. */
export function memberHost(store: KVStore, i: number): string {
  const n = ownedNames(store);
  return `${n.store}-${i}.${n.peers}.${store.metadata?.namespace ?? ''}.svc`;
}

/** The members' shared etcd configuration (ETCD_* variables); each member adds its own name (see `container`). */
export function configMap(store: KVStore): ConfigMapApply {
  const n = ownedNames(store);
  const members = Array.from({ length: replicasOf(store) }, (_, i) => `${n.store}-${i}=http://${memberHost(store, i)}:${PEER_PORT}`);
  return owned(store, {
    ...configMapApply(n.config, store.metadata?.namespace),
    data: {
      ETCD_DATA_DIR: DATA_DIR,
      ETCD_LISTEN_CLIENT_URLS: `http://0.0.0.0:${CLIENT_PORT}`,
      ETCD_LISTEN_PEER_URLS: `http://0.0.0.0:${PEER_PORT}`,
      ETCD_INITIAL_CLUSTER: members.join(','),
      ETCD_INITIAL_CLUSTER_STATE: 'new',
      ETCD_INITIAL_CLUSTER_TOKEN: `${store.metadata?.namespace ?? ''}/${n.store}`,
    },
  });
}

/** The headless Service of the members (`clusterIP: None`): a DNS name per member, published before it is ready. */
export function peerService(store: KVStore): ServiceApply {
  const n = ownedNames(store);
  return owned(store, {
    ...serviceApply(n.peers, store.metadata?.namespace),
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: selectorLabels(store),
      ports: [
        { name: 'peer', protocol: 'TCP', port: PEER_PORT, targetPort: 'peer' },
        { name: 'client', protocol: 'TCP', port: CLIENT_PORT, targetPort: 'client' },
      ],
    },
  });
}

/** The clients' Service: the client port of the ready members. */
export function clientService(store: KVStore): ServiceApply {
  const n = ownedNames(store);
  return owned(store, {
    ...serviceApply(n.store, store.metadata?.namespace),
    spec: {
      selector: selectorLabels(store),
      ports: [{ name: 'client', protocol: 'TCP', port: CLIENT_PORT, targetPort: 'client' }],
    },
  });
}

/** The etcd container of a member: the shared configuration, its own name and URLs, its claim mounted. */
function container(store: KVStore): ContainerApply & { name: string } {
  const host = `$(POD_NAME).${ownedNames(store).peers}.${store.metadata?.namespace ?? ''}.svc`;
  return {
    name: 'etcd',
    image: store.spec.image ?? DEFAULT_IMAGE,
    command: ['etcd'],
    envFrom: [{ configMapRef: { name: ownedNames(store).config } }],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'ETCD_NAME', value: '$(POD_NAME)' },
      { name: 'ETCD_ADVERTISE_CLIENT_URLS', value: `http://${host}:${CLIENT_PORT}` },
      { name: 'ETCD_INITIAL_ADVERTISE_PEER_URLS', value: `http://${host}:${PEER_PORT}` },
    ],
    ports: [
      { name: 'client', protocol: 'TCP', containerPort: CLIENT_PORT },
      { name: 'peer', protocol: 'TCP', containerPort: PEER_PORT },
    ],
    volumeMounts: [{ name: DATA_VOLUME, mountPath: DATA_DIR }],
    // etcdctl in the member's own container: ready once the member answers on its client port. (An exec probe runs
    // in envtest's `cluster` profile too, whose hollow kubelets reach no container over the network.)
    readinessProbe: { exec: { command: ['etcdctl', `--endpoints=http://127.0.0.1:${CLIENT_PORT}`, 'endpoint', 'health'] }, periodSeconds: 5 },
    ...(store.spec.resources ? { resources: store.spec.resources } : {}),
  };
}

/**
 * The StatefulSet: `spec.replicas` members started together (`Parallel`: a new cluster needs its peers up to elect a
 * leader), each a Pod `<store>-<i>` with the claim `data-<store>-<i>` made from the claim template. The claim
 * template, selector and serviceName cannot change once the StatefulSet exists; the apiserver refuses an apply that
 * changes them (the reconciler reports it in the `Ready` condition).
 */
export function statefulSet(store: KVStore): StatefulSetApply {
  const n = ownedNames(store);
  const storage = store.spec.storage ?? {};
  return owned(store, {
    ...statefulSetApply(n.store, store.metadata?.namespace),
    spec: {
      replicas: replicasOf(store),
      serviceName: n.peers,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorLabels(store) },
      template: {
        metadata: { labels: selectorLabels(store) },
        spec: { serviceAccountName: n.store, containers: [container(store)] },
      },
      volumeClaimTemplates: [
        {
          // Embedded objects of a built-in kind carry their kind: the apply configuration asks for it, the API keeps it.
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: DATA_VOLUME, labels: selectorLabels(store) },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: storage.size ?? DEFAULT_STORAGE_SIZE } },
            ...(storage.storageClassName !== undefined ? { storageClassName: storage.storageClassName } : {}),
          },
        },
      ],
    },
  });
}
