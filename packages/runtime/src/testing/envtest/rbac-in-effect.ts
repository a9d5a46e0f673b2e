/**
 * Waiting until a ServiceAccount's new permissions take effect. The apiserver's RBAC authorizer reads Roles and
 * bindings from its own informers, so a manager started the moment its RBAC was created can be refused for a short
 * while (seen as a 403 about 1 s into a test, one run in twenty). `waitForPermissions` asks, as the ServiceAccount, one
 * SelfSubjectAccessReview per rule the project binds to it (the rule's first verb, group and resource, in the binding's
 * namespace or at the cluster scope; its first non-resource URL), until every one is allowed.
 *
 * Contract: resolves once all are allowed; rejects after `timeoutMs` naming each rule still refused (a rule the
 * ServiceAccount can never get, such as one its binding does not reach, is named, not waited for forever).
 */
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';
import { ResourceClient } from '../../client/resource-client.js';
import { realClock } from '../../clock.js';
import { sleep } from '../../deadline.js';
import type { ProjectRbac } from './project-rbac.js';

const SELF_SUBJECT_ACCESS_REVIEWS: ResourceInfo = {
  group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', listKind: 'SelfSubjectAccessReviewList', namespaced: false,
};

/** Default of `timeoutMs`: RBAC changes reach the authorizer within a second or two. */
export const DEFAULT_PERMISSIONS_TIMEOUT_MS = 10_000;

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  nonResourceURLs?: string[];
}

/** One access check: what a SelfSubjectAccessReview asks, and how to name it. */
export interface AccessCheck {
  spec: Record<string, unknown>;
  what: string;
}

/** The checks for every rule of every Role/ClusterRole of `rbac` bound to its ServiceAccount by a binding of `rbac`. */
export function accessChecks(rbac: ProjectRbac): AccessCheck[] {
  const sa = rbac.serviceAccount;
  const roles = new Map(rbac.objects.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole').map((o) => [`${o.kind}/${o.kind === 'Role' ? o.metadata?.namespace : ''}/${o.metadata?.name}`, o]));
  const checks: AccessCheck[] = [];
  for (const b of rbac.objects.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')) {
    const binding = b as KubeObject & { subjects?: { kind: string; name: string; namespace?: string }[]; roleRef?: { kind: string; name: string } };
    if (!binding.subjects?.some((s) => s.kind === 'ServiceAccount' && s.name === sa.name && (s.namespace ?? binding.metadata?.namespace) === sa.namespace)) continue;
    const ns = b.kind === 'RoleBinding' ? b.metadata?.namespace : undefined;
    const ref = binding.roleRef;
    const role = ref && roles.get(`${ref.kind}/${ref.kind === 'Role' ? ns : ''}/${ref.name}`);
    for (const rule of ((role as { rules?: PolicyRule[] } | undefined)?.rules ?? [])) {
      const verb = rule.verbs?.[0];
      if (!verb || verb === '*') continue;
      if (rule.nonResourceURLs?.length) {
        checks.push({ spec: { nonResourceAttributes: { path: rule.nonResourceURLs[0], verb } }, what: `${verb} ${rule.nonResourceURLs[0]}` });
        continue;
      }
      const group = rule.apiGroups?.[0];
      const resource = rule.resources?.[0];
      if (group === undefined || group === '*' || !resource || resource === '*') continue;
      const [res, sub] = resource.split('/', 2) as [string, string | undefined];
      const attributes = { verb, group, resource: res, ...(sub ? { subresource: sub } : {}), ...(ns ? { namespace: ns } : {}) };
      checks.push({ spec: { resourceAttributes: attributes }, what: `${verb} ${resource} (${group === '' ? 'core group' : `group ${group}`}) ${ns ? `in namespace ${ns}` : 'at the cluster scope'}, from ${ref!.kind} ${ref!.name}` });
    }
  }
  return checks;
}

/** Resolves once every check of `rbac` is allowed to `asServiceAccount` (see the module comment). */
export async function waitForPermissions(asServiceAccount: Transport, rbac: ProjectRbac, opts: { timeoutMs?: number } = {}): Promise<void> {
  const reviews = new ResourceClient<KubeObject>(asServiceAccount, SELF_SUBJECT_ACCESS_REVIEWS);
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_PERMISSIONS_TIMEOUT_MS);
  let pending = accessChecks(rbac);
  for (;;) {
    const allowed = await Promise.all(
      pending.map(async (c) => {
        const review = (await reviews.create({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: c.spec } as KubeObject)) as KubeObject & { status?: { allowed?: boolean } };
        return review.status?.allowed === true;
      }),
    );
    pending = pending.filter((_, i) => !allowed[i]);
    if (pending.length === 0) return;
    if (Date.now() >= deadline) {
      throw new Error(`the permissions of ${rbac.user} did not take effect within ${opts.timeoutMs ?? DEFAULT_PERMISSIONS_TIMEOUT_MS} ms; still refused:\n${pending.map((c) => `- ${c.what}`).join('\n')}`);
    }
    await sleep(realClock, 100);
  }
}
