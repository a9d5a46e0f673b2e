/**
 * Dynamic informers (client-go's `dynamicinformer` and `dynamiclister`): shared informers of `Unstructured` objects
 * for resources named at run time, keyed by resource and cache options (namespace, selectors, metadata-only) —
 * `informerKey`, as every informer of the runtime — so that asking twice gives one informer and one watch.
 *
 * Unlike client-go's (kubernetes#79610: informers of deleted CRDs run forever), they come and go: `forResource`
 * returns a handle that holds its informer, each handler added through the handle holds it too, and when the handle
 * is released and the last handler removed, the watch stops and the store is freed. A later `forResource` starts a
 * fresh one. Lists give every item its `apiVersion` and `kind` (built-in kinds' lists leave them out).
 */
import type { SharedInformerFactoryOptions, WaitForCacheSyncOptions } from '../cache/factory.js';
import { SharedInformerFactory } from '../cache/factory.js';
import { Lister } from '../cache/lister.js';
import type { ResourceEventHandler } from '../cache/listener.js';
import type { HandlerOptions, HandlerRegistration, SharedIndexInformer } from '../cache/shared-informer.js';
import type { ListerWatcher } from '../cache/reflector-types.js';
import type { TransformFunc } from '../cache/transform.js';
import type { KubeObject, ResourceInfo, Transport } from '../client/types.js';
import type { GroupVersionResource } from '../discovery/types.js';
import { mappingOf, type RESTMapping } from '../restmapper/types.js';
import { DynamicClient } from './dynamic-client.js';
import type { Unstructured } from './unstructured.js';

/** Cache options of one dynamic informer; unset ones fall back to the factory's. */
export interface DynamicInformerOptions {
  /** One namespace (`''`/unset: all namespaces, or a cluster-scoped resource). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Metadata only (`PartialObjectMetadata`: apiVersion, kind, metadata): the smallest cache for wide watches. */
  metadataOnly?: boolean;
  /** Applied to every object before it is stored; fixed by the first caller of a key. */
  transform?: TransformFunc<Unstructured>;
  resyncPeriodMs?: number;
}

/** A hold on one dynamic informer (see the module comment). */
export interface DynamicInformer {
  readonly informer: SharedIndexInformer<Unstructured>;
  /** A lister over the informer's cache (client-go's `GenericLister`): `get`, `list(selector)`, `namespace(ns)`. */
  lister(): Lister<Unstructured>;
  /** Registers a handler that holds the informer: its registration's `remove()` gives the hold back. */
  addEventHandler(handler: ResourceEventHandler<Unstructured>, opts?: HandlerOptions): HandlerRegistration;
  /** Gives the handle's own hold back (handlers still registered keep the informer). Once; later calls do nothing. */
  release(): Promise<void>;
}

/** What a dynamic informer is for: a resource (scope from whether a namespace is given), a mapping, or a `ResourceInfo`. */
export type DynamicResourceRef = GroupVersionResource | RESTMapping | ResourceInfo;

/** One shared dynamic informer per resource and cache options (see the module comment). */
export class DynamicSharedInformerFactory {
  private readonly factory: SharedInformerFactory;

  constructor(transport: Transport, opts: Omit<SharedInformerFactoryOptions, 'listerWatcher'> = {}) {
    const dynamic = new DynamicClient(transport);
    this.factory = new SharedInformerFactory(transport, {
      ...opts,
      // Metadata-only informers keep the runtime's own path (PartialObjectMetadata, the kind's apiVersion and kind).
      listerWatcher: (info, namespace, metadataOnly) => {
        if (metadataOnly) return undefined;
        const client = info.kind ? dynamic.forMapping(mappingOf(info)) : dynamic.resource(info);
        return (namespace ? client.namespace(namespace) : client) as unknown as ListerWatcher<KubeObject>;
      },
    });
  }

  /** A hold on the shared informer of `resource` with these options; started at once if the factory has started. */
  forResource(resource: DynamicResourceRef, opts: DynamicInformerOptions = {}): DynamicInformer {
    const info = infoOf(resource, opts.namespace);
    const informerOpts = {
      ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
      ...(opts.labelSelector !== undefined ? { labelSelector: opts.labelSelector } : {}),
      ...(opts.fieldSelector !== undefined ? { fieldSelector: opts.fieldSelector } : {}),
      ...(opts.transform ? { transform: opts.transform } : {}),
      ...(opts.resyncPeriodMs !== undefined ? { resyncPeriodMs: opts.resyncPeriodMs } : {}),
    };
    const acquire = () => this.factory.acquire<Unstructured>(info, informerOpts, opts.metadataOnly ?? false);
    const own = acquire();
    return {
      informer: own.informer,
      lister: () => own.informer.lister(),
      addEventHandler: (handler, hopts) => {
        const hold = acquire();
        const registration = hold.informer.addEventHandler(handler, hopts);
        return {
          ...registration,
          remove: () => {
            registration.remove();
            void hold.release();
          },
        };
      },
      release: () => own.release(),
    };
  }

  /** Starts the informers held so far; later ones start as they are asked for. */
  start(): void {
    this.factory.start();
  }

  /** Resolves once every started informer has synced (see `SharedInformerFactory.waitForCacheSync`). */
  waitForCacheSync(opts: WaitForCacheSyncOptions = {}): Promise<void> {
    return this.factory.waitForCacheSync(opts);
  }

  /** The keys of the informers held now (`informerKey`). */
  keys(): string[] {
    return this.factory.keys();
  }

  /** Stops every informer; no informer can be asked for afterwards. */
  shutdown(): Promise<void> {
    return this.factory.shutdown();
  }
}

function isMapping(r: DynamicResourceRef): r is RESTMapping {
  return (r as Partial<RESTMapping>).info !== undefined;
}

function infoOf(r: DynamicResourceRef, namespace: string | undefined): ResourceInfo {
  if (isMapping(r)) return r.info;
  if ('kind' in r && 'namespaced' in r) return r as ResourceInfo;
  // Keyed by resource only: the scope is the caller's, as the dynamic client's.
  return { ...r, kind: '', listKind: '', namespaced: Boolean(namespace) };
}

