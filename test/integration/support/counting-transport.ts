import type { RawRequestInit, RawResponse, ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';

/**
 * Counts list requests, WatchList requests (watches with `sendInitialEvents`, whether the server accepted them or
 * not) and other watch requests going through it: to prove one watch serves many handlers, a relist, or that an
 * informer synced without any list.
 */
export class CountingTransport implements Transport {
  lists = 0;
  /** Watch requests without `sendInitialEvents`. */
  watches = 0;
  /** Watch requests with `sendInitialEvents=true` (WatchList). */
  watchLists = 0;
  constructor(private readonly inner: Transport) {}
  request<T>(req: ResourceRequest): Promise<T> {
    if (req.verb === 'list') this.lists++;
    return this.inner.request<T>(req);
  }
  watch<T>(req: ResourceRequest): Promise<Watch<T>> {
    if (req.query?.['sendInitialEvents']) this.watchLists++;
    else this.watches++;
    return this.inner.watch<T>(req);
  }
  raw(method: string, path: string, init?: RawRequestInit): Promise<RawResponse> {
    return this.inner.raw(method, path, init);
  }
}
