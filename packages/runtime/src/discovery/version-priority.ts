/**
 * Kubernetes' version priority (apimachinery `version.CompareKubeAwareVersionStrings`): GA before beta before alpha;
 * within each, the higher major then the higher minor first; versions that do not look like `v1`, `v2beta1`,
 * `v1alpha3` come last, in alphabetical order. E.g. v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2,
 * foo1, foo10. The apiserver orders a CRD group's versions so, and prefers the first.
 */

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Negative when `a` has the higher priority (sorts first), positive when `b` has, 0 when equal. */
export function compareVersionPriority(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stage = (m: RegExpExecArray): number => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return stage(mb) - stage(ma) || Number(mb[1]) - Number(ma[1]) || Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/** `versions` sorted by priority, highest first (a new array). */
export function sortByVersionPriority(versions: Iterable<string>): string[] {
  return [...versions].sort(compareVersionPriority);
}
