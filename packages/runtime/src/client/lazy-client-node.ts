/**
 * `@kubernetes/client-node`, loaded on first use. Importing it costs about 0.2 s and 90 MB (its `config.js` pulls the
 * whole generated API and undici), which a controller that authenticates with a token, a client certificate or basic
 * auth never needs. Runtime code that needs one of its values (`KubeConfig`) calls `clientNode()` instead of a value
 * import; type-only imports are free. Node ≥ 22 can `require()` an ES module, so loading stays synchronous.
 */
import { createRequire } from 'node:module';

type ClientNode = typeof import('@kubernetes/client-node');

let loaded: ClientNode | undefined;

/** The `@kubernetes/client-node` module, required on the first call and cached. Throws if it is not installed. */
export function clientNode(): ClientNode {
  loaded ??= createRequire(import.meta.url)('@kubernetes/client-node') as ClientNode;
  return loaded;
}
