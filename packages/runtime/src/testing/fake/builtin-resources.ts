/**
 * Every built-in kind a fake cluster serves: apart from the root entry point, because it loads the descriptor of
 * every group-version of `@kubegen/runtime/api` (a controller names the few it uses; a test standing in for a whole
 * cluster takes them all).
 */
import type { ResourceDescriptor } from '../../client/types.js';
import { allResources } from '../../api/resources.js';
import { builtinResources } from '../../builtin/resources.js';

/**
 * The built-in kinds a current apiserver serves by default — every GA version (`v1`, `v2`) of `api/*`, and CRDs —
 * e.g. for a fake tracker standing in for a cluster. Alpha and beta versions are off by default since Kubernetes 1.24
 * (and most older betas are removed); `allResources` of `@kubegen/runtime/api/resources` has every version.
 */
export const allBuiltinResources: readonly ResourceDescriptor[] = [
  ...allResources.filter((r) => /^v\d+$/.test(r.version)),
  builtinResources.customResourceDefinitions,
];
