/**
 * "May I?" before the janitor watches a resource (`kubectl auth can-i`): one SelfSubjectAccessReview per verb it needs
 * (`list`, `watch`, and `delete` unless it only pretends), in each namespace it works in, or cluster-wide. A resource
 * the janitor may not use is reported once and skipped, so that it never holds back the others (an informer that
 * cannot list would retry forever and keep the janitor from being ready). Every authenticated user may create
 * SelfSubjectAccessReviews (the `system:basic-user` role); where that fails, the answer is "don't know" and the
 * janitor tries the resource anyway (its informer then says what is refused).
 */
import { ResourceClient, type KubeObject, type Transport } from '@kubegen/runtime';
import type { ResourceInfo } from '@kubegen/runtime/client';

const SELF_SUBJECT_ACCESS_REVIEWS: ResourceInfo = {
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'selfsubjectaccessreviews',
  kind: 'SelfSubjectAccessReview',
  listKind: 'SelfSubjectAccessReviewList',
  namespaced: false,
};

interface SelfSubjectAccessReview extends KubeObject {
  spec: { resourceAttributes: { group: string; resource: string; verb: string; namespace?: string } };
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
}

/** What the janitor asks: may this identity do `verbs` on `resource` of `group` in `namespaces` (`''`: all)? */
export interface AccessQuestion {
  group: string;
  resource: string;
  verbs: readonly string[];
  namespaces: readonly string[];
}

/** The answer: allowed, refused (naming what), or unknown (the review itself failed: `error`). */
export type AccessAnswer = { allowed: true } | { allowed: false; refused: string[] } | { allowed: 'unknown'; error: unknown };

/** Answers {@link AccessQuestion}s; `selfSubjectAccessReviews(transport)` in a process, a stub in tests. */
export type AccessReviewer = (q: AccessQuestion) => Promise<AccessAnswer>;

/** A reviewer that asks the apiserver, one SelfSubjectAccessReview per verb and namespace, all at once. */
export function selfSubjectAccessReviews(transport: Transport): AccessReviewer {
  const reviews = new ResourceClient<SelfSubjectAccessReview>(transport, SELF_SUBJECT_ACCESS_REVIEWS);
  return async (q) => {
    const asks = q.verbs.flatMap((verb) => q.namespaces.map((namespace) => ({ verb, namespace })));
    try {
      const answers = await Promise.all(
        asks.map(async ({ verb, namespace }) => {
          const review = await reviews.create({
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            metadata: {},
            spec: { resourceAttributes: { group: q.group, resource: q.resource, verb, ...(namespace ? { namespace } : {}) } },
          });
          return { verb, namespace, allowed: review.status?.allowed === true };
        }),
      );
      const refused = answers.filter((a) => !a.allowed).map((a) => (a.namespace ? `${a.verb} in ${a.namespace}` : a.verb));
      return refused.length === 0 ? { allowed: true } : { allowed: false, refused };
    } catch (error) {
      return { allowed: 'unknown', error };
    }
  };
}
