/**
 * What an object's compositions (`allOf`, `oneOf`, `anyOf`) ask of a sample beyond its `required` fields. In a
 * structural schema the types live in `properties`; the branches hold value validations only — typically `required`
 * (3scale's `deployment.oneOf: [{required: [apicastHosted]}, {required: [apicastSelfManaged]}]`), and `enum`s or
 * nested `required` under `properties`. A sample takes every `allOf` part and one branch of each `oneOf`/`anyOf`:
 *
 * - a branch the object meets already (every field it requires is required anyway, or it requires none), so that
 *   nothing is added and no second `oneOf` branch comes to hold;
 * - else the first branch whose required fields the schema declares (so they can be generated);
 * - else the first branch.
 *
 * The chosen parts add their `required` fields and narrow the schemas of the fields they constrain (their
 * `properties`: an `enum`, a nested `required`, a nested `oneOf`), recursively. Adding one branch's fields leaves
 * the other `oneOf` branches unmet in the common shape (each requires a field of its own); whatever the sample still
 * breaks, the validator finds and ./satisfy.ts repairs or names.
 */
import type { JSONSchemaProps } from '../../model/index.js';

/** The fields an object's sample needs (in order: `required`, then the parts') and its fields' narrowed schemas. */
export interface ObjectNeeds {
  required: string[];
  /** A field's schema with the chosen parts' constraints merged in; fields no part constrains are absent. */
  narrowed: Record<string, JSONSchemaProps>;
}

/** What object schema `s` asks of a sample (see the module comment). */
export function objectNeeds(s: JSONSchemaProps): ObjectNeeds {
  const props = s.properties ?? {};
  const required = [...(s.required ?? [])];
  const narrowed: Record<string, JSONSchemaProps> = {};
  const take = (part: JSONSchemaProps): void => {
    for (const r of part.required ?? []) if (!required.includes(r)) required.push(r);
    for (const [k, extra] of Object.entries(part.properties ?? {})) narrowed[k] = narrow(narrowed[k] ?? props[k] ?? {}, extra);
    for (const a of part.allOf ?? []) take(a);
    for (const branches of [part.oneOf, part.anyOf]) if (branches?.length) take(chooseBranch(branches, required, props));
  };
  take({ ...(s.allOf ? { allOf: s.allOf } : {}), ...(s.oneOf ? { oneOf: s.oneOf } : {}), ...(s.anyOf ? { anyOf: s.anyOf } : {}) });
  return { required, narrowed };
}

/** The branch a sample takes (see the module comment). */
export function chooseBranch(branches: JSONSchemaProps[], required: readonly string[], props: Record<string, JSONSchemaProps>): JSONSchemaProps {
  const needs = (b: JSONSchemaProps): string[] => b.required ?? [];
  return (
    branches.find((b) => needs(b).every((r) => required.includes(r))) ??
    branches.find((b) => needs(b).every((r) => props[r] !== undefined)) ??
    branches[0]!
  );
}

/**
 * `base` with the value validations of `extra` (a composition part's schema of the same field) merged in:
 * `required` lists joined, `properties` and `items` narrowed in turn, `allOf` parts appended, a `oneOf`/`anyOf` the
 * base has already kept as another `allOf` part; any other key (`enum`, `pattern`, bounds, …) is the part's.
 */
export function narrow(base: JSONSchemaProps, extra: JSONSchemaProps): JSONSchemaProps {
  const out: JSONSchemaProps = { ...base };
  const o = out as Record<string, unknown>;
  for (const [key, v] of Object.entries(extra) as [keyof JSONSchemaProps, unknown][]) {
    if (key === 'required') out.required = [...new Set([...(base.required ?? []), ...(v as string[])])];
    else if (key === 'properties') {
      const merged: Record<string, JSONSchemaProps> = { ...base.properties };
      for (const [p, ps] of Object.entries(v as Record<string, JSONSchemaProps>)) merged[p] = narrow(merged[p] ?? {}, ps);
      out.properties = merged;
    } else if (key === 'items') out.items = narrow(base.items ?? {}, v as JSONSchemaProps);
    else if (key === 'allOf') out.allOf = [...(base.allOf ?? []), ...(v as JSONSchemaProps[])];
    else if ((key === 'oneOf' || key === 'anyOf') && base[key]) out.allOf = [...(out.allOf ?? []), { [key]: v }];
    else o[key] = v;
  }
  return out;
}
