/** Shared fixtures for the fake transport tests (not a test file itself). */
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import type { Watch, WatchEvent } from '@kubegen/runtime/internal/client/types.js';
import { newFakeTransportWithOptions } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import type { FakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import type { FakeResource } from '@kubegen/runtime/internal/testing/fake/fake-resource.js';

export interface Foo extends KubeObject {
  spec?: { replicas?: number; color?: string; [k: string]: unknown };
  status?: { replicas?: number; selector?: string; phase?: string };
}

/** Namespaced, with status and scale subresources. */
export const FOOS: FakeResource = {
  group: 'example.com',
  version: 'v1',
  resource: 'foos',
  kind: 'Foo',
  listKind: 'FooList',
  namespaced: true,
  statusSubresource: true,
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
};

/** Cluster-scoped, no subresources. */
export const BARS: FakeResource = {
  group: 'example.com',
  version: 'v1',
  resource: 'bars',
  kind: 'Bar',
  listKind: 'BarList',
  namespaced: false,
};

export const NAMESPACES: FakeResource = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
};

/** 2024-05-06T07:08:09.500Z: timestamps must come out with seconds precision. */
export const FIXED_NOW = Date.UTC(2024, 4, 6, 7, 8, 9, 500);

export function setup(opts: { watchHistorySize?: number; seed?: KubeObject[] } = {}): {
  fake: FakeTransport;
  foos: ResourceClient<Foo>;
  bars: ResourceClient<Foo>;
  now: { ms: number };
} {
  const now = { ms: FIXED_NOW };
  const fake = newFakeTransportWithOptions(
    { clock: { now: () => now.ms }, watchHistorySize: opts.watchHistorySize },
    [FOOS, BARS, NAMESPACES],
    ...(opts.seed ?? []),
  );
  return { fake, foos: new ResourceClient<Foo>(fake, FOOS, 'ns1'), bars: new ResourceClient<Foo>(fake, BARS), now };
}

export function foo(name: string, extra: Partial<Foo> = {}): Foo {
  return { metadata: { name, ...(extra.metadata ?? {}) }, spec: { replicas: 1, ...(extra.spec ?? {}) }, ...(extra.status ? { status: extra.status } : {}) };
}

const iterators = new WeakMap<object, AsyncIterator<WatchEvent<unknown>>>();

/** The next `n` events of a watch (fewer if it ends); may be called repeatedly on one watch. */
export async function take<T>(w: Watch<T>, n: number): Promise<WatchEvent<T>[]> {
  let it = iterators.get(w) as AsyncIterator<WatchEvent<T>> | undefined;
  if (!it) {
    it = w[Symbol.asyncIterator]();
    iterators.set(w, it as AsyncIterator<WatchEvent<unknown>>);
  }
  const out: WatchEvent<T>[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

/** `[type, name]` pairs, for compact assertions on event order. */
export function summary<T extends KubeObject>(events: WatchEvent<T>[]): [string, string][] {
  return events.map((e) => [e.type, e.object.metadata?.name ?? '']);
}
