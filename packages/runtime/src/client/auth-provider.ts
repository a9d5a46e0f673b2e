/**
 * kubeconfig users with an `auth-provider` (the in-tree plugins client-go had: `gcp`, `azure`, `oidc`). Kubernetes
 * removed `gcp` and `azure` in 1.26 in favour of exec credential plugins, and the runtime supports none of them:
 * every such user is refused, when its kubeconfig is resolved, with an error that names the user and says which
 * exec plugin replaces the provider and how to switch (for `oidc`, the exec config to write, from the provider's
 * issuer URL and client id — never its secrets).
 */

/** The replacement of each provider, in the words of its error. */
const REPLACEMENTS: Record<string, (config: Record<string, unknown>) => string> = {
  gcp: () =>
    'use the exec credential plugin gke-gcloud-auth-plugin instead (`gcloud components install gke-gcloud-auth-plugin`, then ' +
    '`gcloud container clusters get-credentials <cluster>` writes the exec user; see ' +
    'https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke)',
  azure: () =>
    'use the exec credential plugin kubelogin instead (https://github.com/Azure/kubelogin: ' +
    '`kubelogin convert-kubeconfig -l azurecli` rewrites the user)',
  oidc: (config) => {
    const arg = (flag: string, key: string): string[] => (typeof config[key] === 'string' && config[key] !== '' ? [`--${flag}=${config[key] as string}`] : []);
    const args = ['oidc-login', 'get-token', ...arg('oidc-issuer-url', 'idp-issuer-url'), ...arg('oidc-client-id', 'client-id')];
    const secret = typeof config['client-secret'] === 'string' ? ' (add --oidc-client-secret=… if your provider needs one)' : '';
    return (
      'use the exec credential plugin kubelogin instead (https://github.com/int128/kubelogin, `kubectl oidc-login`): ' +
      `exec: {apiVersion: client.authentication.k8s.io/v1, command: kubectl, args: ${JSON.stringify(args)}, interactiveMode: IfAvailable}${secret}`
    );
  },
};

/** The error for kubeconfig user `user` whose `auth-provider` is `provider` (see the module comment). */
export function authProviderError(user: string, provider: unknown): Error {
  const p = typeof provider === 'object' && provider !== null ? (provider as Record<string, unknown>) : {};
  const name = typeof p['name'] === 'string' ? p['name'] : '';
  const config = typeof p['config'] === 'object' && p['config'] !== null ? (p['config'] as Record<string, unknown>) : {};
  const replacement = REPLACEMENTS[name];
  const head = `kubeconfig user ${JSON.stringify(user)} uses the ${JSON.stringify(name)} auth-provider, which kubegen does not support`;
  return new Error(replacement ? `${head}: ${replacement(config)}` : `${head}: use an exec credential plugin (users[].user.exec) from your provider instead`);
}
