/**
 * The view a lagging apiserver gives (Sieve's "time travel"), for the `stale` fault: a control plane of its own
 * holding the objects as they were at an earlier point of the run. Lists and gets answer from it, with the
 * resourceVersions the objects had then (an object unchanged since is written to the live control plane without a
 * conflict, a changed one conflicts); its watches see nothing happen. Writes never come here: the fault transport
 * sends them to the live control plane, as a lagging apiserver's writes go to etcd.
 */
import type { KubeObject, RawRequestInit, RawResponse, ResourceRequest, Transport, Watch } from '../../client/types.js';
import { newFakeTransportFromCrds } from '../fake/fake-validation.js';
import type { FakeResource } from '../fake/fake-resource.js';
import type { ValidatedCrd } from '../../validation/index.js';

/** A read-only, frozen view of `objects` (a snapshot of the live control plane), serving the same resources. */
export async function staleView(crds: readonly ValidatedCrd[], extraResources: readonly FakeResource[], objects: readonly KubeObject[]): Promise<Transport> {
  const frozen = await newFakeTransportFromCrds(crds, objects, { validate: false, extraResources });
  const rvOf = new Map(objects.map((o) => [o.metadata?.uid ?? '', o.metadata?.resourceVersion]));
  const restore = (o: unknown): void => {
    const meta = (o as KubeObject | undefined)?.metadata;
    const rv = meta?.uid ? rvOf.get(meta.uid) : undefined;
    if (meta && rv !== undefined) meta.resourceVersion = rv;
  };
  return {
    get fieldManager() {
      return frozen.fieldManager;
    },
    raw(method: string, path: string, init?: RawRequestInit): Promise<RawResponse> {
      return frozen.raw(method, path, init);
    },
    async request<T = unknown>(req: ResourceRequest): Promise<T> {
      const out = await frozen.request<T>(req);
      if (req.verb === 'list') for (const item of (out as { items?: unknown[] }).items ?? []) restore(item);
      else restore(out);
      return out;
    },
    watch<T = unknown>(req: ResourceRequest): Promise<Watch<T>> {
      return frozen.watch<T>(req);
    },
  };
}

/** Every object of the run now, as a snapshot (deep copies). */
export function snapshotOf(objects: readonly KubeObject[]): KubeObject[] {
  return structuredClone(objects) as KubeObject[];
}
