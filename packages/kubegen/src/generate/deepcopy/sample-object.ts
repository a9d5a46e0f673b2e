import type { JSONSchemaProps } from '../../model/index.js';

export interface SampleOptions {
  /** Objects deeper than this are left empty. Default 12. */
  maxDepth?: number;
  /** Elements per array and entries per map. Default 2. */
  arrayLength?: number;
}

/**
 * Builds a deterministic, schema-conforming example value with every property filled (up to `maxDepth`):
 * enums take their first value, int-or-string alternates `8080`/`"25%"`, free-form fields get a small nested JSON
 * object, and preserve-unknown objects with properties get one extra unknown key. Used by the deepcopy benchmark
 * and tests as a large realistic object; also handy for example manifests.
 */
export function sampleFromSchema(schema: JSONSchemaProps, opts: SampleOptions = {}): unknown {
  const maxDepth = opts.maxDepth ?? 12;
  const n = opts.arrayLength ?? 2;
  let counter = 0;
  const fill = (s: JSONSchemaProps, depth: number, name: string): unknown => {
    counter++;
    if (s.default !== undefined && depth > maxDepth) return s.default;
    if (s['x-kubernetes-int-or-string']) return counter % 2 ? 8080 : '25%';
    if (s.enum && s.enum.length) return s.enum[counter % s.enum.length];
    const type = s.type ?? s.oneOf?.find((b) => b.type)?.type ?? s.anyOf?.find((b) => b.type)?.type;
    switch (type) {
      case 'string':
        return s.format === 'date-time' ? '2024-01-02T03:04:05Z' : `${name}-${counter}`;
      case 'integer':
        return counter % 100;
      case 'number':
        return (counter % 100) + 0.5;
      case 'boolean':
        return counter % 2 === 0;
      case 'array': {
        if (depth > maxDepth) return [];
        const items = s.items ?? {};
        return Array.from({ length: n }, (_, i) => fill(items, depth + 1, `${name}${i}`));
      }
      case 'object':
      case undefined:
        break;
    }
    if (depth > maxDepth) return {};
    const out: Record<string, unknown> = {};
    if (s.properties) {
      for (const [k, sub] of Object.entries(s.properties)) out[k] = fill(sub, depth + 1, k);
      if (s['x-kubernetes-preserve-unknown-fields']) out['extraUnknownKey'] = { nested: [1, 'two', { three: true }] };
      return out;
    }
    if (typeof s.additionalProperties === 'object') {
      for (let i = 0; i < n; i++) out[`key${i}`] = fill(s.additionalProperties, depth + 1, `${name}${i}`);
      return out;
    }
    if (type === undefined && !s['x-kubernetes-preserve-unknown-fields']) return { free: 'form' };
    return { free: { form: ['data', 1, null] }, n: counter };
  };
  return fill(schema, 0, 'value');
}
