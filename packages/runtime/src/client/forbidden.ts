/**
 * What a 403 Forbidden says about RBAC: which verb on which resource, where, was refused to whom, and the
 * kubebuilder RBAC marker that would grant it. Used by the runtime's log lines (an informer that may not list its
 * kind, a reconcile refused a write) and by the envtest helpers that run a manager as its ServiceAccount, so that a
 * missing marker is named, not just "forbidden".
 */
import { ApiError, isForbidden } from './errors.js';

/** One refused request, as far as the error (and the request, when known) tell. */
export interface ForbiddenRequest {
  /** RBAC verb: `list`, `watch`, `get`, `create`, `update`, `patch`, `delete`, `deletecollection`. */
  verb: string;
  /** API group (`''` for the core group). */
  group: string;
  /** The resource's plural, e.g. `services`. */
  resource: string;
  /** e.g. `status`; RBAC names it as `resource/subresource`. */
  subresource?: string;
  /** The namespace the request was in; undefined at the cluster scope. */
  namespace?: string;
  /** The user the apiserver refused, e.g. `system:serviceaccount:ns:controller-manager`, when its message says. */
  user?: string;
}

/** The parts the apiserver's authorizer message carries (kube-apiserver `forbiddenMessage`). */
const MESSAGE = /User "((?:[^"\\]|\\.)*)" cannot (\S+) resource "([^"]*)" in API group "([^"]*)"(?: in the namespace "([^"]*)"| at the cluster scope)?/;

/**
 * The refused request of a 403 `ApiError`, from the apiserver's message (`User "u" cannot list resource "services"
 * in API group "" at the cluster scope`), else from `req` (what the caller sent); undefined for other errors or
 * when neither says which resource.
 */
export function forbiddenRequestOf(
  err: unknown,
  req?: { verb: string; group: string; resource: string; subresource?: string | undefined; namespace?: string | undefined },
): ForbiddenRequest | undefined {
  if (!isForbidden(err)) return undefined;
  const m = MESSAGE.exec((err as ApiError).message);
  if (m) {
    const [resource, subresource] = m[3]!.split('/', 2) as [string, string | undefined];
    return {
      verb: m[2]!,
      group: m[4]!,
      resource,
      ...(subresource ? { subresource } : {}),
      ...(m[5] ? { namespace: m[5] } : {}),
      user: m[1]!.replace(/\\(.)/g, '$1'),
    };
  }
  if (!req) return undefined;
  return {
    verb: req.verb,
    group: req.group,
    resource: req.resource,
    ...(req.subresource ? { subresource: req.subresource } : {}),
    ...(req.namespace ? { namespace: req.namespace } : {}),
  };
}

/** The marker that grants `r` (`+kubebuilder:rbac:groups="",resources=services,verbs=list`), as `kubegen generate --apis` reads it. */
export function rbacMarkerFor(r: Pick<ForbiddenRequest, 'verb' | 'group' | 'resource' | 'subresource'>): string {
  const group = r.group === '' ? '""' : r.group;
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return `+kubebuilder:rbac:groups=${group},resources=${resource},verbs=${r.verb}`;
}

/**
 * One line for a refused request: `list services (core group) at the cluster scope, as
 * system:serviceaccount:ns:sa; the marker +kubebuilder:rbac:groups="",resources=services,verbs=list grants it`.
 */
export function describeForbidden(r: ForbiddenRequest): string {
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const group = r.group === '' ? 'core group' : `group ${r.group}`;
  const where = r.namespace ? `in namespace ${r.namespace}` : 'at the cluster scope';
  const who = r.user ? `, as ${r.user}` : '';
  return `${r.verb} ${resource} (${group}) ${where}${who}; the marker ${rbacMarkerFor(r)} grants it`;
}

/**
 * An API error in one line for a log or a readiness reason: a 403 as {@link describeForbidden} (verb, resource,
 * scope, identity and the marker that grants it), anything else as its message (a 404 for a kind that is not
 * served names the kind and its CRD: see `apiErrorFromResponse`).
 */
export function explainError(err: unknown): string {
  if (isForbidden(err)) {
    const refused = forbiddenRequestOf(err, (err as ApiError).request);
    if (refused) return `forbidden: ${describeForbidden(refused)}`;
  }
  return err instanceof Error ? err.message : String(err);
}
