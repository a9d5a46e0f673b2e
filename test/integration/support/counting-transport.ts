import type { ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';

/** Counts list requests and watch opens going through it (to prove one watch serves many handlers, or a relist). */
export class CountingTransport implements Transport {
  lists = 0;
  watches = 0;
  constructor(private readonly inner: Transport) {}
  request<T>(req: ResourceRequest): Promise<T> {
    if (req.verb === 'list') this.lists++;
    return this.inner.request<T>(req);
  }
  watch<T>(req: ResourceRequest): Promise<Watch<T>> {
    this.watches++;
    return this.inner.watch<T>(req);
  }
}
