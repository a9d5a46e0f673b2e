import { InputError, InputErrors } from './errors.js';
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

/**
 * The identifier a group's accessors are named from (`servingKnative` for `serving.knative.dev`: the clientset's
 * `servingKnativeV1`, the client class `ServingKnativeV1Client`, the informer factory's `servingKnativeV1`), decided
 * by the group alone so that adding a CRD of another group never renames an existing accessor: every DNS label but
 * the last (the top-level domain), camel-cased (`cert-manager.io` → `certManager`, `kubernetes.crossplane.io` →
 * `kubernetesCrossplane`, its namespaced twin `kubernetes.m.crossplane.io` → `kubernetesMCrossplane`). Two groups
 * clash only when they differ in the top-level domain alone. A name given explicitly (`groupAccessors` in
 * `codegen.config.yaml`, `+groupGoName=` in a TypeScript package's doc comment, as client-go's code generator names a
 * group after its package) replaces it.
 */
export function groupIdentifier(group: string): string {
  const labels = group.split('.');
  return camel((labels.length > 1 ? labels.slice(0, -1) : labels).join('-'));
}

/** Undefined when `name` can name a group's accessors (an ASCII identifier of letters and digits), else why not. */
export function checkGroupAccessor(name: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9]*$/.test(name)) return undefined;
  return `"${name}" cannot name a group's accessors: use letters and digits, starting with a letter (e.g. knativeServing)`;
}

/**
 * Every generated group's identifier ({@link groupIdentifier}): `overrides` (group → name; a PascalCase name such as
 * client-go's `+groupGoName=KnativeServing` is lower-cased at its start), else the model's own (`model.groupAccessors`),
 * else the group's labels but the last. Overrides for groups the model lacks are ignored. Two groups with one identifier would
 * give two clients one name: that is an `InputError` (every such pair at once) naming both groups and the fix, never
 * a renamed accessor. Groups without a served version generate nothing and are left out.
 */
export function groupIdentifiers(model: ApiModel, overrides: Readonly<Record<string, string>> = {}): Map<string, string> {
  const firstOf = new Map<string, ApiModel['resources'][number]>();
  for (const r of [...model.resources].sort((a, b) => cmp(a.group, b.group))) {
    if (r.versions.some((v) => v.served) && !firstOf.has(r.group)) firstOf.set(r.group, r);
  }
  const result = new Map<string, string>();
  const byId = new Map<string, string>();
  const errors: InputError[] = [];
  for (const [group, r] of firstOf) {
    const explicit = overrides[group] ?? model.groupAccessors?.[group];
    if (explicit !== undefined) {
      const bad = checkGroupAccessor(explicit);
      if (bad) {
        errors.push(new InputError(r.source, `group ${group}: ${bad}`));
        continue;
      }
    }
    const id = explicit !== undefined ? explicit.charAt(0).toLowerCase() + explicit.slice(1) : groupIdentifier(group);
    const other = byId.get(id);
    if (other !== undefined) {
      const example = camel(group.replace(/\./g, '-'));
      errors.push(
        new InputError(
          r.source,
          `groups ${other} and ${group} would both name their accessors ${id} (${id}${pascal(r.versions.find((v) => v.served)!.name)}, …); ` +
            `give one its own name: groupAccessors: { ${group}: ${example} } in codegen.config.yaml (or +groupGoName=${pascal(example)} in the doc comment of its TypeScript package)`,
        ),
      );
      continue;
    }
    byId.set(id, group);
    result.set(group, id);
  }
  InputErrors.throwIfAny(errors);
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
