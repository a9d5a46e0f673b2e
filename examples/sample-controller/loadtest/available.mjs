// Convergence check of the sample controller for `kubegen loadtest --envtest cluster --check loadtest/available.mjs`:
// on the cluster profile the Deployment a Foo owns really runs (ReplicaSet, Pods scheduled on hollow nodes and
// Running), so a Foo has converged when its status.availableReplicas, written by the controller from its
// Deployment, equals its spec.replicas. Called about once a second with every Foo; returns the names not converged yet.
export function unconverged(foos) {
  return foos.filter((foo) => (foo.status?.availableReplicas ?? 0) !== (foo.spec?.replicas ?? 1)).map((foo) => foo.metadata.name);
}
