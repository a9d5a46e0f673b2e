import type { Clock } from '../clock.js';
import type { ListOptions, WatchOptions } from '../client/interfaces.js';
import type { KubeList, Watch } from '../client/types.js';
import type { Logger } from '../log.js';
import type { BackoffOptions } from './backoff.js';

/** What a reflector lists and watches. A `ResourceClient` satisfies it as is. */
export interface ListerWatcher<T> {
  list(opts: ListOptions): Promise<KubeList<T>>;
  watch(opts: WatchOptions): Promise<Watch<T>>;
  /**
   * True when this lister-watcher cannot serve a WatchList (a watch with `sendInitialEvents`), as client-go's
   * `IsWatchListSemanticsUnSupported` on its fake clients: a reflector in `'auto'` mode then lists and watches
   * without asking. Absent or false: the server decides (see {@link ReflectorOptions.watchList}).
   */
  isWatchListSemanticsUnsupported?(): boolean;
}

/**
 * How a reflector gets the initial state: `true` = WatchList only, `false` = list + watch only, `'auto'` = WatchList
 * with a fallback to list + watch (see {@link ReflectorOptions.watchList}).
 */
export type WatchListMode = boolean | 'auto';

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

/**
 * The phase an error came from: `list` for anything before the initial state is stored (a list, or a WatchList
 * stream before its initial-events-end bookmark), `watch` afterwards.
 */
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
  /** A KEP-5866 shard selector sent with every list and watch (see `ListOptions.shardSelector`). */
  shardSelector?: string;
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
  /**
   * How the initial state (and every relist) is fetched. Default: `KUBEGEN_WATCH_LIST` (`true`, `false` or `auto`),
   * else `'auto'`.
   * - `'auto'`: a WatchList (client-go's `WatchListClient`, on by default since client-go 1.35): one watch with
   *   `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and bookmarks streams the state as ADDED
   *   events, which replace the store's content at once when the `k8s.io/initial-events-end` bookmark arrives; the
   *   same watch then carries on, with no list request at all. When the server shows it does not support WatchList
   *   (kube-apiserver before 1.27, or with the feature off, answers 422 Invalid; a server that ignores the
   *   parameters sends MODIFIED/DELETED events or falls silent before the bookmark) the reflector lists and watches
   *   instead and remembers it for its life. Other WatchList failures fall back to one list for that sync only,
   *   as client-go does. A lister-watcher with `isWatchListSemanticsUnsupported()` (the fakes) is not asked.
   * - `true`: WatchList only, never a list; failures are retried like failed lists (a server without WatchList
   *   never syncs).
   * - `false`: list (paginated) + watch only, as before WatchList.
   */
  watchList?: WatchListMode;
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
  /**
   * Called each time a watch is stopped because it delivered nothing for `idleTimeoutMs`, or did not open within it
   * (with how long it was quiet), before it is replaced; see `Reflector.watchStalledSince`. Must not throw; if it does, it is logged.
   */
  onWatchStall?: (quietMs: number) => void;
  /** Source of randomness for the watch timeout; tests pass a fixed one. */
  random?: () => number;
}

/** Page size of a paginated list when `pageSize` is unset (client-go pager's `defaultPageSize`). */
export const DEFAULT_LIST_PAGE_SIZE = 500;
export const DEFAULT_WATCH_TIMEOUT_SECONDS: [number, number] = [300, 600];
/** Idle timeout once the server is known to send periodic bookmarks (about every minute on recent apiservers). */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
/** Without periodic bookmarks, a watch may be idle until its server timeout; this much slack is added to it. */
export const IDLE_GRACE_MS = 30_000;
/** Opening a watch must get an answer within this (or `idleTimeoutMs` when set). */
export const DEFAULT_WATCH_OPEN_TIMEOUT_MS = 60_000;
export const DEFAULT_LIST_TIMEOUT_MS = 120_000;
/** A watch that ends sooner than this without an event counts as a failure (client-go `VeryShortWatchError`). */
export const VERY_SHORT_WATCH_MS = 1000;
/** The relist that answers a 410 waits only a random jitter below this (many informers do not relist in lockstep). */
export const EXPIRED_RELIST_JITTER_MS = 500;
