/**
 * RBAC emitter: the model's `+kubebuilder:rbac` rules (`ApiModel.rbacRules`) as one ClusterRole (`manager-role`, controller-gen's default name),
 * plus one Role per namespace for rules with `namespace=`. Rules with the same groups, resources, resource names
 * and URLs are merged (verbs united), every list is sorted and de-duplicated, as controller-gen normalises them.
 */
import type { ApiModel, RbacRule } from '../../model/index.js';
import { toYaml, YAML_HEADER } from '../crd/index.js';

export const DEFAULT_ROLE_NAME = 'manager-role';
export const ROLE_FILE = 'role.yaml';

/**
 * The content of `role.yaml` for the model's `rbacRules`. Always holds the ClusterRole, with no rules when the model
 * has none. Pure.
 */
export function emitRbac(model: ApiModel, roleName = DEFAULT_ROLE_NAME): string {
  const byNs = new Map<string, RbacRule[]>();
  for (const r of model.rbacRules ?? []) byNs.set(r.namespace ?? '', [...(byNs.get(r.namespace ?? '') ?? []), r]);
  if (!byNs.has('')) byNs.set('', []);
  const docs: string[] = [];
  for (const ns of [...byNs.keys()].sort()) {
    const metadata: Record<string, unknown> = { name: roleName };
    if (ns !== '') metadata['namespace'] = ns;
    docs.push(`---\n${toYaml({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: ns === '' ? 'ClusterRole' : 'Role', metadata, rules: normalise(byNs.get(ns)!) })}`);
  }
  return `${YAML_HEADER}\n${docs.join('')}`;
}

const uniqSorted = (xs: string[]): string[] => [...new Set(xs)].sort();

function normalise(rules: RbacRule[]): Record<string, string[]>[] {
  const merged = new Map<string, { groups: string[]; resources: string[]; resourceNames: string[]; urls: string[]; verbs: Set<string> }>();
  for (const r of rules) {
    const groups = uniqSorted(r.groups);
    const resources = uniqSorted(r.resources);
    const resourceNames = uniqSorted(r.resourceNames);
    const urls = uniqSorted(r.urls);
    const key = JSON.stringify([groups, resources, resourceNames, urls]);
    const m = merged.get(key) ?? { groups, resources, resourceNames, urls, verbs: new Set<string>() };
    for (const v of r.verbs) m.verbs.add(v);
    merged.set(key, m);
  }
  const out = [...merged.values()].map((m) => {
    const o: Record<string, string[]> = {};
    if (m.urls.length) o['nonResourceURLs'] = m.urls;
    else {
      o['apiGroups'] = m.groups.length ? m.groups : [''];
      o['resources'] = m.resources;
      if (m.resourceNames.length) o['resourceNames'] = m.resourceNames;
    }
    o['verbs'] = [...m.verbs].sort();
    return o;
  });
  return out.sort((a, b) => {
    const ka = JSON.stringify([a['apiGroups'] ?? [], a['resources'] ?? [], a['nonResourceURLs'] ?? []]);
    const kb = JSON.stringify([b['apiGroups'] ?? [], b['resources'] ?? [], b['nonResourceURLs'] ?? []]);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}
