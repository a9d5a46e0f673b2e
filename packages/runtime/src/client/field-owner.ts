/**
 * A field owner for every write (controller-runtime's `client.WithFieldOwner`): a transport that names `owner` as the
 * `fieldManager` of each create, update and patch it sends — a subresource's (status, scale) as the object's — and of
 * each server-side apply, unless the call names its own. Reads, watches, deletes and `raw` requests go through
 * untouched, and so does everything else of the transport it wraps (`close()`, the fake's `actions()`, …).
 *
 * Any client built on the result writes as `owner`: `new Clientset(withFieldOwner(transport, 'my-operator'))`, a
 * `ResourceClient`, the dynamic client; `CachedClient.withFieldOwner(owner)` for the manager's client, and
 * `ManagerOptions.fieldOwner` for the manager's client from the start.
 */
import type { ResourceRequest, Transport } from './types.js';

/** The verbs that carry a `fieldManager` (create, update, and every patch: merge, JSON, strategic, apply). */
const WRITES: ReadonlySet<ResourceRequest['verb']> = new Set(['create', 'update', 'patch']);

/** `transport` with `owner` as the field manager of every write that names none (see the module comment). */
export function withFieldOwner<T extends Transport>(transport: T, owner: string): T {
  if (!owner) throw new TypeError('withFieldOwner needs a field owner');
  const request = <R>(req: ResourceRequest): Promise<R> => {
    if (!WRITES.has(req.verb) || req.query?.['fieldManager']) return transport.request<R>(req);
    return transport.request<R>({ ...req, query: { ...req.query, fieldManager: owner } });
  };
  return new Proxy(transport, {
    get(target, prop) {
      if (prop === 'request') return request;
      if (prop === 'fieldManager') return owner;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
