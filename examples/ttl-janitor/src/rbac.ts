/**
 * The janitor's permissions, as `+kubebuilder:rbac` markers: `npm run generate` (kubegen, reading `rbacSources: [src]`
 * of codegen.config.yaml) writes them into config/rbac/role.yaml, and `npm run verify` checks that file is current.
 *
 * The janitor handles kinds it learns of only at run time, so its rule on objects is a wildcard: `list`, `watch`
 * and `delete` on every resource of every group (`groups=*,resources=*`). Narrow it, and the janitor skips (with
 * one warning each) the resources it may no longer use, before it watches them. The other rules: CRDs (`list`,
 * `watch`: the RESTMapper follows CRDs as they come and go), Events (`create`, `patch`: `TimeToLiveExpired`,
 * `InvalidTTL`), Leases (leader election, `--leader-elect`). Discovery (`/api`, `/apis`) and
 * SelfSubjectAccessReviews need no rule: every authenticated identity may use them (`system:discovery`,
 * `system:basic-user`).
 *
 * +kubebuilder:rbac:groups=*,resources=*,verbs=list;watch;delete
 * +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list;watch
 * +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
 * +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
 * +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
 */
export {};
