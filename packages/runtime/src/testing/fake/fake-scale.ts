/**
 * The scale subresource over a registered resource's replica paths (as the apiserver serves it for CRDs with
 * `subresources.scale`): reads build an autoscaling/v1 `Scale`, writes set the spec replicas path.
 */
import type { Scale } from '../../client/interfaces.js';
import type { KubeObject } from '../../client/types.js';
import type { FakeScaleSpec } from './fake-resource.js';

/** `.spec.replicas` → `['spec', 'replicas']`. */
function pathTokens(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter((t) => t !== '');
}

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const t of pathTokens(path)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[t];
  }
  return cur;
}

/** Sets a value at a dotted path, creating intermediate objects. Mutates `obj`. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const tokens = pathTokens(path);
  const last = tokens.pop();
  if (last === undefined) throw new Error(`empty path "${path}"`);
  let cur = obj;
  for (const t of tokens) {
    const next = cur[t];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[t] = {};
    cur = cur[t] as Record<string, unknown>;
  }
  cur[last] = value;
}

/** The `Scale` view of an object. Missing replica numbers read as 0; the selector is included when set. */
export function scaleOf(obj: KubeObject, spec: FakeScaleSpec): Scale {
  const specReplicas = getPath(obj, spec.specReplicasPath);
  const statusReplicas = getPath(obj, spec.statusReplicasPath);
  const selector = spec.labelSelectorPath ? getPath(obj, spec.labelSelectorPath) : undefined;
  const m = obj.metadata ?? {};
  const metadata: Scale['metadata'] = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  if (m.uid) metadata.uid = m.uid;
  if (m.resourceVersion) metadata.resourceVersion = m.resourceVersion;
  if (m.creationTimestamp) metadata.creationTimestamp = m.creationTimestamp;
  const status: NonNullable<Scale['status']> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector) status.selector = selector;
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata,
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}
