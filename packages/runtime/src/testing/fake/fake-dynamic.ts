/**
 * The fake dynamic client (client-go's `dynamic/fake`): a `DynamicClient` over a `FakeTransport`, so it has the
 * fake tracker's semantics (server-owned metadata, conflicts, status and scale subresources, apply, watches),
 * reactors and recorded actions. List kinds come from the registered resources, never from a guessed plural: a
 * resource that is not registered gets the same 404 the fake transport gives any client (naming the resource, and
 * the kind when the client was built from a mapping).
 */
import type { KubeObject } from '../../client/types.js';
import { DynamicClient } from '../../dynamic/dynamic-client.js';
import type { FakeResource } from './fake-resource.js';
import { FakeTransport, newFakeTransport } from './fake-transport.js';
import type { ObjectTracker } from './object-tracker.js';

/** A {@link DynamicClient} over a {@link FakeTransport}: seed through `tracker`, inspect `fake.actions()`. */
export class FakeDynamicClient extends DynamicClient {
  /** The fake transport: `actions()`, `prependReactor`, `addReactor`. */
  readonly fake: FakeTransport;

  constructor(transport: FakeTransport = new FakeTransport()) {
    super(transport);
    this.fake = transport;
  }

  /** The tracker behind the fake transport: `register` more resources, `add` objects. */
  get tracker(): ObjectTracker {
    return this.fake.tracker;
  }
}

/**
 * A fake dynamic client serving `resources`, seeded with `objects` (each one's `apiVersion`/`kind` picks its
 * resource; seeding records no actions). Shares nothing with other fakes: pass a `FakeTransport` to
 * `new FakeDynamicClient(transport)` to serve a fake typed clientset and a dynamic client from one tracker.
 */
export function newFakeDynamicClient(resources: FakeResource[], ...objects: KubeObject[]): FakeDynamicClient {
  return new FakeDynamicClient(newFakeTransport(resources, ...objects));
}
