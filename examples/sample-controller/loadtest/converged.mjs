// Convergence check of the sample controller for `kubegen loadtest --check`: a Foo has converged when the Deployment
// named by spec.deploymentName exists, is controlled by that Foo and has its spec.replicas. (The Foo's status can
// not serve: the default envtest runs no Deployment controller, so availableReplicas stays 0 — available.mjs is the
// check for `--envtest cluster`, where it does. The Go original sets no observedGeneration either.) Called about once
// a second with every Foo; returns the names not converged yet.
export async function unconverged(foos, ctx) {
  const deployments = new Map((await ctx.list('apps/v1', 'Deployment')).map((d) => [d.metadata.name, d]));
  return foos
    .filter((foo) => {
      const d = deployments.get(foo.spec?.deploymentName);
      const owned = d?.metadata?.ownerReferences?.some((o) => o.controller && o.uid === foo.metadata.uid);
      return !owned || d.spec?.replicas !== (foo.spec?.replicas ?? 1);
    })
    .map((foo) => foo.metadata.name);
}
