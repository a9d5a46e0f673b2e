/**
 * Who the members are and who may reach them, as apply configurations (pure):
 *
 * - a ServiceAccount the members run as, a Role that lets them read their own ConfigMap and list the Pods of their
 *   store (peer discovery), and a RoleBinding between the two — so a member can do that and nothing else;
 * - a NetworkPolicy that admits members to each other on both ports and `spec.clients` Pods to the client port, and
 *   nothing else. Its rules' sources are `from` on the wire (`V1NetworkPolicyIngressRule._from` of
 *   @kubernetes/client-node was not: an ingress rule without `from` admits everyone).
 */
import { serviceAccountApply } from '@kubegen/runtime/api/core/v1';
import type { ServiceAccountApply } from '@kubegen/runtime/api/core/v1';
import { networkPolicyApply } from '@kubegen/runtime/api/networking/v1';
import type { NetworkPolicyApply } from '@kubegen/runtime/api/networking/v1';
import { roleApply, roleBindingApply } from '@kubegen/runtime/api/rbac/v1';
import type { RoleApply, RoleBindingApply } from '@kubegen/runtime/api/rbac/v1';
import type { KVStore } from './generated/kv.kubegen.io/v1alpha1/index.js';
import { CLIENT_PORT, ownedNames, PEER_PORT, selectorLabels } from './names.js';
import { owned } from './owned.js';

/** The members' ServiceAccount, named as the store. */
export function serviceAccount(store: KVStore): ServiceAccountApply {
  return owned(store, serviceAccountApply(ownedNames(store).store, store.metadata?.namespace));
}

/**
 * What a member may do: get its store's ConfigMap, and get, list and watch Pods (a Role cannot narrow a list to
 * labels; members select their peers by the store's labels). The operator holds these permissions itself (src/rbac.ts):
 * the apiserver lets no one grant what they do not have.
 */
export function role(store: KVStore): RoleApply {
  const n = ownedNames(store);
  return owned(store, {
    ...roleApply(n.store, store.metadata?.namespace),
    rules: [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: [n.config], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    ],
  });
}

/** Binds the Role to the members' ServiceAccount. */
export function roleBinding(store: KVStore): RoleBindingApply {
  const n = ownedNames(store);
  return owned(store, {
    ...roleBindingApply(n.store, store.metadata?.namespace),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: n.store },
    subjects: [{ kind: 'ServiceAccount', name: n.store, namespace: store.metadata?.namespace ?? '' }],
  });
}

/**
 * Ingress to the members: from the members on the peer and client ports, from `spec.clients` (every Pod of the
 * namespace when unset) on the client port. Egress is not restricted.
 */
export function networkPolicy(store: KVStore): NetworkPolicyApply {
  const members = { matchLabels: selectorLabels(store) };
  return owned(store, {
    ...networkPolicyApply(ownedNames(store).store, store.metadata?.namespace),
    spec: {
      podSelector: members,
      policyTypes: ['Ingress'],
      ingress: [
        { from: [{ podSelector: members }], ports: [{ protocol: 'TCP', port: PEER_PORT }, { protocol: 'TCP', port: CLIENT_PORT }] },
        { from: [{ podSelector: store.spec.clients ?? {} }], ports: [{ protocol: 'TCP', port: CLIENT_PORT }] },
      ],
    },
  });
}
