/**
 * What a schema subtree contains, computed once per schema node: walks that only matter where defaults, embedded
 * resources, list types or CEL rules are (most of a large CRD has none) skip the subtrees without them.
 */
import type { StructuralSchema } from './types.js';

/** The facts about one schema node and everything under it. */
export interface SchemaFacts {
  /** The node's properties that have a `default`, as [name, default] pairs. */
  readonly defaults: readonly (readonly [string, unknown])[];
  /** Whether some node under (or at) this one has a default (property, `additionalProperties` or `items` default). */
  readonly hasDefaults: boolean;
  readonly hasEmbedded: boolean;
  readonly hasListTypes: boolean;
  readonly hasRules: boolean;
}

const facts = new WeakMap<StructuralSchema, SchemaFacts>();

const children = (s: StructuralSchema): StructuralSchema[] => {
  const out = Object.values(s.properties ?? {});
  if (typeof s.additionalProperties === 'object') out.push(s.additionalProperties);
  if (s.items) out.push(s.items);
  return out;
};

/** The facts of `s` (memoized). */
export function schemaFacts(s: StructuralSchema): SchemaFacts {
  let f = facts.get(s);
  if (f) return f;
  const kids = children(s).map(schemaFacts);
  const defaults = Object.entries(s.properties ?? {}).filter(([, p]) => p.default !== undefined).map(([k, p]) => [k, p.default] as const);
  const ownDefault = defaults.length > 0 || (typeof s.additionalProperties === 'object' && s.additionalProperties.default !== undefined) || s.items?.default !== undefined;
  const allOfRules = (s.allOf ?? []).some((a) => schemaFacts(a).hasRules);
  f = {
    defaults,
    hasDefaults: ownDefault || kids.some((k) => k.hasDefaults),
    hasEmbedded: !!s['x-kubernetes-embedded-resource'] || kids.some((k) => k.hasEmbedded),
    hasListTypes: s['x-kubernetes-list-type'] === 'set' || s['x-kubernetes-list-type'] === 'map' || kids.some((k) => k.hasListTypes),
    hasRules: !!s['x-kubernetes-validations']?.length || allOfRules || kids.some((k) => k.hasRules),
  };
  facts.set(s, f);
  return f;
}
