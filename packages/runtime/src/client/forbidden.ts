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
  /**
   * Set when the write was refused as privilege escalation (RBAC's escalation check: a Role or binding may only grant
   * what its writer holds): the permissions the object grants that the writer does not hold. The write's own verb was
   * allowed; these are what is missing.
   */
  notHeld?: PolicyRuleText[];
}

/** One rule of an escalation refusal, as the apiserver prints it (`{APIGroups:[""], Resources:["endpoints"], Verbs:["get"]}`). */
export interface PolicyRuleText {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** The parts the apiserver's authorizer message carries (kube-apiserver `forbiddenMessage`). */
const MESSAGE = /User "((?:[^"\\]|\\.)*)" cannot (\S+) resource "([^"]*)" in API group "([^"]*)"(?: in the namespace "([^"]*)"| at the cluster scope)?/;

/** RBAC's escalation refusal (`rbac/validation` `ConfirmNoEscalation`): the user, then one compact rule per line. */
const ESCALATION = /user "((?:[^"\\]|\\.)*)" \(groups=.*?\) is attempting to grant RBAC permissions not currently held:\s*([\s\S]*)$/;

/** The rules of an escalation message: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}` each (Go's `%q` of a string slice). */
function notHeldRules(text: string): PolicyRuleText[] {
  const rules: PolicyRuleText[] = [];
  for (const m of text.matchAll(/\{((?:[A-Za-z]+:\[(?:"(?:[^"\\]|\\.)*"\s*)*\](?:, )?)+)\}/g)) {
    const fields: Record<string, string[]> = {};
    for (const f of m[1]!.matchAll(/([A-Za-z]+):\[((?:"(?:[^"\\]|\\.)*"\s*)*)\]/g)) {
      fields[f[1]!] = [...f[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((q) => JSON.parse(`"${q[1]!}"`) as string);
    }
    rules.push({
      apiGroups: fields['APIGroups'] ?? [],
      resources: fields['Resources'] ?? [],
      verbs: fields['Verbs'] ?? [],
      ...(fields['ResourceNames'] ? { resourceNames: fields['ResourceNames'] } : {}),
      ...(fields['NonResourceURLs'] ? { nonResourceURLs: fields['NonResourceURLs'] } : {}),
    });
  }
  return rules;
}

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
  const escalation = ESCALATION.exec((err as ApiError).message);
  if (escalation && req) return { ...sentRequest(req), user: escalation[1]!.replace(/\\(.)/g, '$1'), notHeld: notHeldRules(escalation[2]!) };
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
  return req ? sentRequest(req) : undefined;
}

/** What the caller sent, as a refused request (without a user: the apiserver's message did not say). */
function sentRequest(req: { verb: string; group: string; resource: string; subresource?: string | undefined; namespace?: string | undefined }): ForbiddenRequest {
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
 * An escalation refusal names what the writer does not hold and the markers that would grant it instead:
 * `create roles (group rbac.authorization.k8s.io) in namespace ns, as …: refused as privilege escalation, the
 * object grants permissions not held: get endpoints (core group); the marker +kubebuilder:rbac:groups="",resources=endpoints,verbs=get grants them`.
 */
export function describeForbidden(r: ForbiddenRequest): string {
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const group = r.group === '' ? 'core group' : `group ${r.group}`;
  const where = r.namespace ? `in namespace ${r.namespace}` : 'at the cluster scope';
  const who = r.user ? `, as ${r.user}` : '';
  if (r.notHeld !== undefined) {
    const held = r.notHeld.map(describeRule).join('; ');
    const markers = r.notHeld.map(ruleMarker);
    return `${r.verb} ${resource} (${group}) ${where}${who}: refused as privilege escalation, the object grants permissions not held: ${held}; ${markers.length === 1 ? 'the marker' : 'the markers'} ${markers.join(' ')} ${markers.length === 1 ? 'grants' : 'grant'} them`;
  }
  return `${r.verb} ${resource} (${group}) ${where}${who}; the marker ${rbacMarkerFor(r)} grants it`;
}

/** `get, list endpoints (core group)`, or `get /healthz` for non-resource URLs. */
function describeRule(rule: PolicyRuleText): string {
  if (rule.nonResourceURLs?.length) return `${rule.verbs.join(', ')} ${rule.nonResourceURLs.join(', ')}`;
  const groups = rule.apiGroups.map((g) => (g === '' ? 'core group' : `group ${g}`)).join(', ');
  const names = rule.resourceNames?.length ? ` named ${rule.resourceNames.join(', ')}` : '';
  return `${rule.verbs.join(', ')} ${rule.resources.join(', ')}${names} (${groups})`;
}

/** The kubebuilder marker of one rule (`verbs=get;list`, several groups or resources joined by `;`). */
function ruleMarker(rule: PolicyRuleText): string {
  const list = (v: readonly string[]): string => v.map((x) => (x === '' ? '""' : x)).join(';');
  if (rule.nonResourceURLs?.length) return `+kubebuilder:rbac:urls=${list(rule.nonResourceURLs)},verbs=${list(rule.verbs)}`;
  const names = rule.resourceNames?.length ? `,resourceNames=${list(rule.resourceNames)}` : '';
  return `+kubebuilder:rbac:groups=${list(rule.apiGroups)},resources=${list(rule.resources)}${names},verbs=${list(rule.verbs)}`;
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
