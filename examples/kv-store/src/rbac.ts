/**
 * The operator's permissions, as `+kubebuilder:rbac` markers: `npm run generate` (kubegen, reading `rbacSources: [src]`
 * of codegen.config.yaml) writes them into config/rbac/role.yaml, and `npm run verify` checks that file is current.
 *
 * - KVStores: read and watch them, update them (the finalizer), write their status, and `update` their finalizers
 *   subresource (owner references with `blockOwnerDeletion` need it where OwnerReferencesPermissionEnforcement is on).
 * - What a store owns: everything a server-side apply may do (`patch`, and `create` when the object is new), `list`
 *   and `watch` for the controller's cache, `delete`.
 * - PersistentVolumeClaims: list and delete (the finalizer; the StatefulSet controller creates them).
 * - Pods (`get`, `list`, `watch`): never used by the operator, but granted to the members by the store's Role — the
 *   apiserver lets no one grant a permission they do not hold (RBAC escalation prevention), and so are ConfigMaps.
 * - Events: `ClaimsDeleted`. Discovery (`/api`, `/apis`, for `--pdb-version=auto`) needs no rule: every authenticated
 *   identity may read it (`system:discovery`).
 *
 * +kubebuilder:rbac:groups=kv.kubegen.io,resources=kvstores,verbs=get;list;watch;update;patch
 * +kubebuilder:rbac:groups=kv.kubegen.io,resources=kvstores/status,verbs=get;update;patch
 * +kubebuilder:rbac:groups=kv.kubegen.io,resources=kvstores/finalizers,verbs=update
 * +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list;watch;create;update;patch;delete
 * +kubebuilder:rbac:groups=core,resources=services;configmaps;serviceaccounts,verbs=get;list;watch;create;update;patch;delete
 * +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;update;patch;delete
 * +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete
 * +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;update;patch;delete
 * +kubebuilder:rbac:groups=core,resources=persistentvolumeclaims,verbs=list;delete
 * +kubebuilder:rbac:groups=core,resources=pods,verbs=get;list;watch
 * +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
 * +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
 */
export {};
