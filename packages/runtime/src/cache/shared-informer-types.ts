/** The settings, handler registrations and errors of a `SharedIndexInformer` (shared-informer.ts). */
import type { ResourceInfo } from '../client/types.js';
import type { Registry } from '../metrics/prom.js';
import type { Indexers } from './indexer.js';
import type { ReflectorOptions } from './reflector-types.js';
import type { TransformFunc } from './transform.js';

/**
 * Settings of a `SharedIndexInformer`: its reflector's (selectors, list/watch tuning, backoff) plus the handlers'
 * default resync, extra indexers, a transform and the mutation detector.
 */
export interface SharedIndexInformerOptions<T> extends Omit<ReflectorOptions, 'onError'> {
  /** Resync period for handlers that do not set their own; 0 (default) means no resync. */
  resyncPeriodMs?: number;
  /** Index functions besides the default `namespace` index. */
  indexers?: Indexers<T>;
  /** Applied to every object before it is stored (see {@link TransformFunc}). */
  transform?: TransformFunc<T>;
  /**
   * Debug aid: deep-freeze every cached object so that a handler or lister caller that mutates one gets a
   * TypeError. Default: `KUBEGEN_CACHE_MUTATION_DETECTOR=true` in the environment.
   */
  freezeObjects?: boolean;
  /**
   * The informer's kind. Given (the informer factories give it), the informer publishes client-go 1.36's informer
   * metrics while it runs — `informer_queued_items`, `informer_processing_latency_seconds`,
   * `informer_store_resource_version`, with `kubegen_informer_watch_stalled` and `kubegen_informer_watch_stalls_total`
   * — labelled with its `name` and this `group`, `version` and `resource` (see informer-metrics.ts). Unset: none.
   */
  resource?: Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind'>;
  /** Registry of the informer's metrics (default the runtime's `metricsRegistry`). */
  registry?: Registry;
}

/** Per-handler options of `addEventHandler` (client-go's `AddEventHandlerWithResyncPeriod`). */
export interface HandlerOptions {
  /** Re-deliver every cached object as `onUpdate(obj, obj)` this often. Default: the informer's `resyncPeriodMs`. */
  resyncPeriodMs?: number;
}

/** A handler's registration on an informer. */
export interface HandlerRegistration {
  /** True once the informer has synced and this handler has been handed every object of its initial state. */
  hasSynced(): boolean;
  /** Resolves once `hasSynced()` is true (never, if the handler is removed first: race it with your own stop). */
  whenSynced(): Promise<void>;
  /** Unregisters the handler; pending notifications are dropped. */
  remove(): void;
  /** Resolves once this handler's buffer is empty (mostly for tests). */
  whenIdle(): Promise<void>;
}

/** `whenSynced()` of an informer that stopped before it synced. */
export class InformerStoppedError extends Error {
  override readonly name = 'InformerStoppedError';
  constructor(informer: string) {
    super(`informer ${informer} stopped before it synced`);
  }
}

/** Resync periods below this are raised to it (client-go `minimumResyncPeriod`). */
export const MIN_RESYNC_PERIOD_MS = 1000;
