/**
 * Deep copy of plain JSON data (what the apiserver sends: objects, arrays, strings, numbers, booleans, null).
 * Used by generated `deepCopy<Kind>` functions for free-form subtrees (`x-kubernetes-preserve-unknown-fields`,
 * `unknown`, keys not in the schema). Never mutates its input. Class instances, Dates and Maps are not JSON and
 * are copied as plain objects; cycles are not supported (JSON has none). An own `__proto__` key is copied as a
 * plain property, never as the prototype.
 */
export function deepCopyJSON<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = value.slice();
    for (let i = 0; i < out.length; i++) {
      const e: unknown = out[i];
      if (typeof e === 'object' && e !== null) out[i] = deepCopyJSON(e);
    }
    return out as T;
  }
  const src = value as { [key: string]: unknown };
  const out: { [key: string]: unknown } = {};
  for (const k in src) {
    const v = src[k];
    const c = typeof v === 'object' && v !== null ? deepCopyJSON(v) : v;
    if (k === '__proto__') setOwnKey(out, k, c);
    else out[k] = c;
  }
  return out as T;
}

/** Sets `obj[key] = value` as an own enumerable data property, even for `__proto__`. */
export function setOwnKey(obj: object, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
