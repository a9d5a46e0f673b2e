import type { Clock } from '../clock.js';
import type { ListOptions, WatchOptions } from '../client/interfaces.js';
import type { KubeList, Watch } from '../client/types.js';
import type { Logger } from '../log.js';
import type { BackoffOptions } from './backoff.js';

/** What a reflector lists and watches. A `ResourceClient` satisfies it as is. */
export interface ListerWatcher<T> {
  list(opts: ListOptions): Promise<KubeList<T>>;
  watch(opts: WatchOptions): Promise<Watch<T>>;
}

/**
 * Where a reflector writes. Calls come one at a time, in watch order. A method that throws is reported and the
 * event is skipped; the reflector carries on.
 */
export interface ReflectorStore<T> {
  /** The full state after a (re)list, at `resourceVersion`. */
  replace(items: T[], resourceVersion: string): void;
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  /** A bookmark: the watch has seen everything up to `resourceVersion`. */
  setResourceVersion?(resourceVersion: string): void;
}

/** The phase an error came from. */
export type ReflectorPhase = 'list' | 'watch';

/**
 * Settings of a reflector (client-go's `cache.Reflector`): the selectors it lists and watches with, paging, timeouts,
 * retry backoff and an error hook. Errors are always retried; all fields are optional.
 */
export interface ReflectorOptions {
  /** Used in log lines and errors, e.g. `foos.samplecontroller.k8s.io`. */
  name?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Page size for lists (`limit`). Default 500. When left unset, lists at a specific resourceVersion (relists) are
   * not paginated so the apiserver's watch cache can serve them, as client-go does.
   */
  pageSize?: number;
  /**
   * resourceVersion of the first list. `'0'` (default, as client-go) lets the apiserver answer from its watch cache,
   * which ignores `limit`; `''` asks for a consistent read from etcd, paginated by `pageSize`.
   */
  initialResourceVersion?: '0' | '';
  /** Server-side watch timeout range in seconds; each watch picks a random value in it. Default [300, 600]. */
  watchTimeoutSeconds?: [min: number, max: number];
  /**
   * A watch that delivers no event (bookmarks count) for this long is considered dead (e.g. a connection dropped
   * by a load balancer without a reset): it is stopped and a new one opened from the last resourceVersion. Also
   * bounds the time to open a watch. Default: 180 000 ms once the server has shown it sends periodic bookmarks
   * (recent apiservers send one about every minute), otherwise the watch's server timeout + 30 s (kube-apiserver
   * 1.20 sends a bookmark only just before that timeout); opening a watch defaults to 60 000 ms.
   */
  idleTimeoutMs?: number;
  /** Abort a list page that takes longer than this. Default 120 000 ms. */
  listTimeoutMs?: number;
  backoff?: BackoffOptions;
  clock?: Clock;
  logger?: Logger;
  /** Called with every error the reflector recovers from (it always recovers). Must not throw; if it does, it is logged. */
  onError?: (err: unknown, phase: ReflectorPhase) => void;
  /** Source of randomness for the watch timeout; tests pass a fixed one. */
  random?: () => number;
}
