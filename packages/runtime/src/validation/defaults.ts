/**
 * Defaulting as the apiserver applies it after decoding (`schema/defaulting/algorithm.go`): a missing property (or a
 * null one that is not nullable) takes its schema's `default`, map values and list items that are non-nullable nulls
 * take the `additionalProperties`/`items` default, then defaulting recurses into the value. Defaults are deep-copied.
 */
import type { StructuralSchema } from './types.js';
import { cloneJson, isObject } from './json-value.js';
import { schemaFacts } from './schema-index.js';

const isNonNullableNull = (x: unknown, s: StructuralSchema | undefined) => x === null && s !== undefined && !s.nullable;

/** Applies the schema's defaults to `x` in place. */
export function applyDefaults(x: unknown, s: StructuralSchema | undefined): void {
  if (!s || !schemaFacts(s).hasDefaults) return;
  if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && items!.default !== undefined) x[i] = cloneJson(items!.default);
      applyDefaults(x[i], items);
    }
    return;
  }
  if (!isObject(x)) return;
  const props = s.properties;
  for (const [k, d] of schemaFacts(s).defaults) {
    if (!(k in x) || isNonNullableNull(x[k], props![k])) x[k] = cloneJson(d);
  }
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k of Object.keys(x)) {
    const prop = props?.[k];
    if (prop) applyDefaults(x[k], prop);
    else if (additional) {
      if (isNonNullableNull(x[k], additional) && additional.default !== undefined) x[k] = cloneJson(additional.default);
      applyDefaults(x[k], additional);
    }
  }
}
