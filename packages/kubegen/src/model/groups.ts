import type { ApiModel, GroupVersion, KindVersion } from './resource.js';

/**
 * Groups the model's kinds by group and version, the layout of generated code. Unserved versions are left out
 * (nothing can be read or written through them). Sorted by group, version, kind.
 */
export function groupVersions(model: ApiModel): GroupVersion[] {
  const byKey = new Map<string, GroupVersion>();
  for (const resource of model.resources) {
    for (const version of resource.versions) {
      if (!version.served) continue;
      const key = `${resource.group}/${version.name}`;
      let gv = byKey.get(key);
      if (!gv) {
        gv = { group: resource.group, version: version.name, kinds: [] };
        byKey.set(key, gv);
      }
      gv.kinds.push({ resource, version });
    }
  }
  const list = [...byKey.values()];
  for (const gv of list) gv.kinds.sort((a, b) => cmp(a.resource.names.kind, b.resource.names.kind));
  list.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version));
  return list;
}

/** Sorts a model in place into the canonical order (group, then kind). */
export function sortModel(model: ApiModel): ApiModel {
  model.resources.sort((a, b) => cmp(a.group, b.group) || cmp(a.names.kind, b.names.kind));
  return model;
}

/** Compares two strings by UTF-16 code units (locale-independent, so generated output is the same everywhere). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every group's identifier, unique in the model: the first DNS label camel-cased, widened on a clash. */
export function groupIdentifiers(groups: readonly string[]): Map<string, string> {
  const unique = [...new Set(groups)].sort(cmp);
  const result = new Map<string, string>();
  for (let labels = 1; unique.some((g) => !result.has(g)); labels++) {
    const taken = new Map<string, string[]>();
    for (const g of unique) {
      if (result.has(g)) continue;
      const id = camel(g.split('.').slice(0, labels).join('-'));
      taken.set(id, [...(taken.get(id) ?? []), g]);
    }
    for (const [id, gs] of taken) {
      const full = gs.length === 1 && gs[0] !== undefined;
      const used = [...result.values()].includes(id);
      if (full && !used) result.set(gs[0]!, id);
      else if (labels > 8) gs.forEach((g, i) => result.set(g, `${camel(g.replace(/\./g, '-'))}${i || ''}`));
    }
  }
  return result;
}

/** `cert-manager` → `certManager`, `acme` → `acme`; the result is a valid identifier. */
export function camel(s: string): string {
  const parts = s.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const out = parts.map((p, i) => (i === 0 ? p.charAt(0).toLowerCase() + p.slice(1) : p.charAt(0).toUpperCase() + p.slice(1))).join('');
  return /^[0-9]/.test(out) || out === '' ? `g${out}` : out;
}

/** `v1alpha1` → `V1alpha1` */
export function pascal(s: string): string {
  const c = camel(s);
  return c.charAt(0).toUpperCase() + c.slice(1);
}

export type { KindVersion };
