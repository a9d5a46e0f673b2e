/** Settings of a `Manager` (controller-runtime's `manager.Options`); see the `Manager` class for the lifecycle. */
import type { Registry } from '../metrics/prom.js';
import type { WatchListMode } from '../cache/reflector-types.js';
import type { Transport } from '../client/types.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { AuthFilterOptions } from '../metrics/server/auth-filter.js';
import type { WebhookServer } from '../webhook/server.js';
import type { SharderTuning } from '../sharding/sharder.js';
import type { ShardLeaseTimings } from '../sharding/shard-lease.js';
import type { CacheOptions } from '../cluster/cluster-cache.js';
import type { ReadYourWritesOptions } from '../cluster/read-your-writes.js';
import type { TracerProvider } from '@opentelemetry/api';

/** Default `gracefulShutdownTimeoutMs`: the time runnables get to stop on shutdown (30 s, as controller-runtime). */
export const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT_MS = 30_000;
/** Default `cacheSyncTimeoutMs`: how long a controller waits for its sources before it says so (2 min, as controller-runtime). */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/**
 * How a sharded manager selects its shard's objects (docs/sharding.md): `server` (KEP-5866 shard selectors),
 * `client` (the same hash ranges, filtered by the replica), `labels` (the sharder labels objects), or `auto` (the
 * default: what the server supports, decided at start).
 */
export type ShardingMode = 'auto' | 'server' | 'client' | 'labels';

/**
 * Sharding of a manager's controller across replicas (see docs/sharding.md): every replica is a shard holding its
 * own Lease and reconciles only the objects the ring assigns to it; in `labels` mode one of them also runs the sharder. Timings
 * default to leader election's (15 s lease, 10 s renew deadline, 2 s retry).
 */
export interface ManagerShardingOptions extends ShardLeaseTimings {
  /** Default `auto` (see {@link ShardingMode}). */
  mode?: ShardingMode;
  /** Name of the ring, an RFC 1123 label (default: the sharded controller's name). */
  ringName?: string;
  /** This replica's identity, stable across restarts (default `$POD_NAME`, else the host name). */
  identity?: string;
  /** Namespace of the shard and sharder Leases (default `leaderElectionNamespace`, then `namespace`, then in-cluster). */
  leaseNamespace?: string;
  /**
   * `server` and `client` modes: how long a replica that has just acquired its shard Lease waits before it takes its
   * part of the ring, so that replicas started together see each other's Leases and none takes the whole ring for a
   * moment (default `retryPeriodMs`).
   */
  joinWindowMs?: number;
  sharder?: SharderTuning;
}

/**
 * Settings of a `Manager` (controller-runtime's `manager.Options`). Only `transport` is required; leader
 * election is off unless `leaderElection` is set, and then `leaderElectionId` is required.
 */
export interface ManagerOptions {
  transport: Transport;
  /**
   * The field manager of every write of the manager's client (`getClient()`) that names none: creates, updates,
   * patches and applies alike (controller-runtime's `client.WithFieldOwner` on the manager's client). Unset: applies
   * name the transport's or the program's name, other writes none. Events and the Lease are written as before.
   */
  fieldOwner?: string;
  /** Restrict the cache to one namespace (default all; `cache` may say otherwise per kind). */
  namespace?: string;
  /**
   * Per-kind cache settings and defaults (controller-runtime's `cache.Options`): namespaces, label and field
   * selectors, transform, and whether managedFields are dropped (by default for kinds watched only by `owns()`).
   */
  cache?: CacheOptions;
  /** Cache resync period (default none). */
  resyncPeriodMs?: number;
  /**
   * How the cache's informers get their state: WatchList streams or list + watch (`ReflectorOptions.watchList`).
   * Default `KUBEGEN_WATCH_LIST`, else `'auto'`: WatchList where the apiserver supports it (1.27+ with the feature
   * on), list + watch elsewhere.
   */
  watchList?: WatchListMode;
  /**
   * Read-your-writes (on by default): after a write through the manager's client, a cache read of that object, and a
   * reconcile of it by a controller built with `newControllerManagedBy`, waits until the cache shows the write — at
   * most `timeoutMs` (default 5 s) after it, then reads from the API (counted in
   * `kubegen_read_your_writes_fallbacks_total`). `{ enabled: false }` turns it off. See docs/informers.md for its cost.
   */
  readYourWrites?: ReadYourWritesOptions;
  /** `/metrics` address, default `:8080`; `"0"` disables. */
  metricsBindAddress?: string;
  /**
   * Serve `/metrics` over HTTPS to authenticated and authorized clients only (controller-runtime's
   * `SecureServing` with `filters.WithAuthenticationAndAuthorization`): each scrape's bearer token is checked with a
   * TokenReview and a SubjectAccessReview (`get` on the non-resource URL `/metrics`) through this manager's
   * transport, whose identity then needs `create` on `tokenreviews` and `subjectaccessreviews`. Default false (plain
   * HTTP, anyone who reaches the port), as controller-runtime's library default; the scaffold turns it on.
   */
  metricsSecureServing?: boolean;
  /**
   * With `metricsSecureServing`: folder of the metrics serving certificate (`tls.crt`, `tls.key`), reloaded when it
   * changes. Default: a self-signed certificate made at start.
   */
  metricsCertDir?: string;
  /** Cache lifetimes of the metrics authentication (`withAuthenticationAndAuthorization` options). */
  metricsAuth?: AuthFilterOptions;
  /** `/healthz` + `/readyz` address; default `""`/`"0"`: disabled. */
  healthProbeBindAddress?: string;
  readinessEndpointName?: string;
  livenessEndpointName?: string;
  leaderElection?: boolean;
  /**
   * Shard the manager's controller across replicas instead of electing one leader (excludes `leaderElection`). The
   * first controller built with `for()` is sharded; a manager shards one controller. `Manager.shard` gives the
   * replica's shard, whose `labelsFor(owner)` objects the reconciler creates must carry.
   */
  sharding?: ManagerShardingOptions;
  /** Lease name (required with leader election). */
  leaderElectionId?: string;
  /** Lease namespace: default `namespace`, else the in-cluster service-account namespace. */
  leaderElectionNamespace?: string;
  leaderElectionIdentity?: string;
  /**
   * Warm standby (controller-runtime's `Controller.EnableWarmup`), default false; the default of
   * `ControllerOptions.enableWarmup` for the controllers the builder builds (`withOptions` may override it). With
   * leader election, a replica waiting for the Lease starts those controllers' sources (informers and the handlers
   * that fill their queues) when the manager starts, and their workers once it leads: a new leader reconciles at
   * once instead of listing every object first. The cost: every standby holds the full cache and watches, as the
   * leader does. A standby is ready (`/readyz`) once those sources have synced. Without leader election, or with
   * sharding, it changes nothing.
   */
  enableWarmup?: boolean;
  /** Release the Lease on shutdown so a successor takes over at once (only safe if the process then exits). */
  leaderElectionReleaseOnCancel?: boolean;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Default 30 s; how long in-flight work may take to finish on shutdown. */
  gracefulShutdownTimeoutMs?: number;
  /**
   * Default 2 min: how long a controller waits for its sources (informers) to sync before an error line names the
   * ones that have not and why; it keeps waiting (its readiness check fails meanwhile), other controllers run.
   */
  cacheSyncTimeoutMs?: number;
  /**
   * Default true: controllers built with this manager use the priority queue (objects of the initial list and
   * unchanged resyncs wait behind new events); false: the FIFO queue. A controller's own option wins.
   */
  usePriorityQueue?: boolean;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
  /**
   * Where the runtime's spans go (docs/tracing.md); tracing turns on when the manager starts. Unset: on when an
   * OpenTelemetry SDK registered a global provider before `start` (`NodeSDK.start()`), else off and nothing loaded.
   */
  tracerProvider?: TracerProvider;
  /**
   * Admission and conversion webhooks served by this manager. It listens before the cache starts (the cache may
   * need a conversion webhook to list a multi-version kind), on every replica, and `/readyz` includes a `webhook`
   * check that passes once it serves.
   */
  webhookServer?: WebhookServer;
}
