/**
 * One RBAC rule of a `+kubebuilder:rbac` marker, as the TypeScript front end read it (the CRD front end has no
 * markers and so no rules). The RBAC emitter merges, sorts and de-duplicates the rules; here they are kept exactly as
 * written, in file order.
 */
export interface RbacRule {
  /** API groups; `""` is the core group (a marker's `core` is already mapped to it). */
  groups: string[];
  resources: string[];
  resourceNames: string[];
  verbs: string[];
  /** Non-resource URLs (`nonResourceURLs`); a rule has resources or URLs. */
  urls: string[];
  /** Set for a namespaced Role; absent for the ClusterRole. */
  namespace?: string;
}
