import type { StructuralSchema } from '../types.js';

const STRING: StructuralSchema = { type: 'string' };

/**
 * The apiserver's `WithTypeAndObjectMeta`: at the root of a custom resource and of every
 * `x-kubernetes-embedded-resource` object, `apiVersion`, `kind`, `metadata.name` and `metadata.generateName` are
 * visible to rules even when the schema does not list them (and the rest of `metadata` never is).
 */
export function withTypeAndObjectMeta(s: StructuralSchema): StructuralSchema {
  const p = s.properties;
  const meta = p?.['metadata'];
  if (
    p?.['kind']?.type === 'string' &&
    p['apiVersion']?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties?.['name']?.type === 'string' &&
    meta.properties['generateName']?.type === 'string'
  ) {
    return s;
  }
  return {
    ...s,
    properties: {
      ...p,
      kind: STRING,
      apiVersion: STRING,
      metadata: { type: 'object', properties: { name: STRING, generateName: STRING } },
    },
  };
}
