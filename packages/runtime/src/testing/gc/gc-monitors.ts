/**
 * The garbage collector's watches (kube-controller-manager's `GraphBuilder` monitors): one metadata-only informer
 * per deletable resource — every resource discovery lists, in its preferred version, with the verbs `delete`,
 * `list` and `watch`, except core `events` — whose events go to the dependency graph.
 *
 * Which resources: discovery (`serverPreferredResources`), asked again every `resyncPeriodMs`, united with what the
 * Established CustomResourceDefinitions serve (a watch of CRDs, so that a kind whose CRD is installed after the
 * collector started is watched at once, without waiting for discovery to catch up). A resource of a group version
 * discovery failed to load keeps its informer; one no longer served loses it. Informers come from a
 * `SharedInformerFactory` (`acquire(..., metadataOnly)`), so a released one stops its watch and frees its cache.
 */
import { builtinResources } from '../../builtin/resources.js';
import type { ResourceEventHandler } from '../../cache/listener.js';
import { DeletedFinalStateUnknown } from '../../cache/keys.js';
import { SharedInformerFactory, type InformerLease } from '../../cache/factory.js';
import type { HandlerRegistration, SharedIndexInformer } from '../../cache/shared-informer.js';
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';
import { DiscoveryClient } from '../../discovery/discovery-client.js';
import { groupVersionString, resourceInfoOf, type APIResourceInfo } from '../../discovery/types.js';
import { sortByVersionPriority } from '../../discovery/version-priority.js';
import type { Logger } from '../../log.js';
import { crdServingOf } from '../../restmapper/crd-expectations.js';
import type { GraphEvent } from './gc-graph.js';
import type { ObjectMetadata } from './gc-node.js';

/** Resources never watched (Go's `DefaultIgnoredResources`): `group/resource`. */
export const DEFAULT_IGNORED_RESOURCES: readonly string[] = ['/events'];

const DELETABLE_VERBS = ['delete', 'list', 'watch'];

interface Monitor {
  info: ResourceInfo;
  lease: InformerLease<KubeObject>;
  registration: HandlerRegistration;
}

/** What changed in one {@link ResourceMonitors.sync}: `group/version/resource` of the informers started and stopped. */
export interface MonitorChanges {
  started: string[];
  stopped: string[];
}

/** The informers of every deletable resource (see the module comment). */
export class ResourceMonitors {
  private readonly monitors = new Map<string, Monitor>();
  private readonly factory: SharedInformerFactory;
  private readonly discovery: DiscoveryClient;
  private crds: SharedIndexInformer<KubeObject> | undefined;
  private stopped = false;

  constructor(
    transport: Transport,
    private readonly onEvent: (ev: GraphEvent) => void,
    private readonly log: Logger,
    private readonly ignored: ReadonlySet<string> = new Set(DEFAULT_IGNORED_RESOURCES),
  ) {
    this.factory = new SharedInformerFactory(transport, { informerName: 'envtest-gc', logger: informerLogger(log) });
    this.discovery = new DiscoveryClient(transport);
    this.factory.start();
  }

  /** Watches CRDs and calls `changed` after each add, update or delete (the caller then syncs). */
  watchCrds(changed: () => void): SharedIndexInformer<KubeObject> {
    this.crds = this.factory.informerFor<KubeObject>(builtinResources.customResourceDefinitions);
    this.crds.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
    this.factory.start();
    return this.crds;
  }

  /** The resources watched now (`ResourceInfo`s), in no particular order. */
  resources(): ResourceInfo[] {
    return [...this.monitors.values()].map((m) => m.info);
  }

  /** The informer of `info`'s resource (any version of its group and resource), if it is watched. */
  informerOf(info: Pick<ResourceInfo, 'group' | 'resource'>): SharedIndexInformer<KubeObject> | undefined {
    for (const m of this.monitors.values()) if (m.info.group === info.group && m.info.resource === info.resource) return m.lease.informer;
    return undefined;
  }

  /**
   * Brings the informers in line with what is served now (see the module comment). Rejects when discovery cannot
   * be asked at all (`/api`, `/apis` failed); partial discovery is logged and the failed group versions kept.
   */
  async sync(): Promise<MonitorChanges> {
    const { resources, failed } = await this.discovery.serverPreferredResources();
    if (failed.size > 0) this.log.warn('discovery failed for some group versions; their informers are kept', { verb: 'discover', groupVersions: [...failed.keys()].sort() });
    const wanted = new Map<string, ResourceInfo>();
    for (const r of resources) if (this.deletable(r)) wanted.set(`${r.group}/${r.resource}`, resourceInfoOf(r));
    for (const info of this.fromCrds()) if (!wanted.has(`${info.group}/${info.resource}`)) wanted.set(`${info.group}/${info.resource}`, info);
    const changes: MonitorChanges = { started: [], stopped: [] };
    for (const [key, m] of this.monitors) {
      const want = wanted.get(key);
      if (want && want.version === m.info.version) continue;
      if (!want && failed.has(groupVersionString(m.info))) continue;
      this.monitors.delete(key);
      m.registration.remove();
      await m.lease.release();
      changes.stopped.push(`${key}/${m.info.version}`);
    }
    for (const [key, info] of wanted) {
      if (this.monitors.has(key) || this.stopped) continue;
      const lease = this.factory.acquire<KubeObject>(info, {}, true);
      const registration = lease.informer.addEventHandler(this.handlerFor(info));
      this.monitors.set(key, { info, lease, registration });
      changes.started.push(`${key}/${info.version}`);
    }
    return changes;
  }

  /**
   * Resolves true once every informer's handler has had its initial list; false after `timeoutMs`, or at once when
   * `signal` aborts (the collector stops, or wants another sync).
   */
  async waitForSync(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
      onAbort = () => resolve(false);
      if (signal?.aborted) resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const synced = Promise.all([...this.monitors.values()].map((m) => m.registration.whenSynced())).then(() => true as const);
      return await Promise.race([synced, cut]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The resources whose informers have not had their initial list yet (`group/resource`). */
  unsynced(): string[] {
    return [...this.monitors].filter(([, m]) => !m.registration.hasSynced()).map(([key]) => key);
  }

  /** Whether every informer's handler has had its initial list. */
  hasSynced(): boolean {
    return [...this.monitors.values()].every((m) => m.registration.hasSynced());
  }

  /** Stops every informer (and the CRD watch). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const m of this.monitors.values()) m.registration.remove();
    this.monitors.clear();
    await this.factory.shutdown();
  }

  private deletable(r: APIResourceInfo): boolean {
    return !this.ignored.has(`${r.group}/${r.resource}`) && DELETABLE_VERBS.every((v) => r.verbs.includes(v));
  }

  /** What the Established CRDs serve, each in its highest-priority served version. */
  private fromCrds(): ResourceInfo[] {
    const out: ResourceInfo[] = [];
    for (const crd of this.crds?.lister().list() ?? []) {
      const s = crdServingOf(crd);
      const version = s && sortByVersionPriority(s.served)[0];
      if (!s || !version) continue;
      out.push(resourceInfoOf({ group: s.group, version, resource: s.plural, kind: s.kind, namespaced: s.namespaced }));
    }
    return out;
  }

  private handlerFor(info: ResourceInfo): ResourceEventHandler<KubeObject> {
    const apiVersion = groupVersionString(info);
    const meta = (o: KubeObject): ObjectMetadata => (o.metadata ?? {}) as ObjectMetadata;
    const emit = (ev: GraphEvent): void => {
      try {
        this.onEvent(ev);
      } catch (err) {
        this.log.error('garbage collector: applying an event to the graph failed', { kind: info.kind, verb: 'watch', namespace: ev.meta.namespace, name: ev.meta.name, uid: ev.meta.uid, error: err });
      }
    };
    return {
      onAdd: (o) => emit({ type: 'add', apiVersion, kind: info.kind, meta: meta(o) }),
      onUpdate: (old, o) => emit({ type: 'update', apiVersion, kind: info.kind, meta: meta(o), oldMeta: meta(old) }),
      onDelete: (o) => emit({ type: 'delete', apiVersion, kind: info.kind, meta: meta(o instanceof DeletedFinalStateUnknown ? o.obj : o) }),
    };
  }
}

/**
 * The informers' logger: their info lines (which mode each list used) go to debug, and so do the refusals of a CRD
 * apiserver whose storage for a just-Established CRD is still starting ("storage is (re)initializing"): the
 * reflector retries them, and a collector that follows every CRD at once would otherwise log one per new kind.
 * Their other errors (a watch dropped while the apiserver restarts) are warnings: the reflector retries them and
 * nothing is lost; the collector's own failed calls stay errors.
 */
function informerLogger(log: Logger): Logger {
  const transient = (fields: Record<string, unknown> | undefined): boolean => /storage is \(re\)initializing/.test(String(fields?.['error'] ?? ''));
  return {
    debug: (msg, fields) => log.debug(msg, fields),
    info: (msg, fields) => log.debug(msg, fields),
    warn: (msg, fields) => (transient(fields) ? log.debug(msg, fields) : log.warn(msg, fields)),
    error: (msg, fields) => (transient(fields) ? log.debug(msg, fields) : log.warn(msg, fields)),
    child: (fields) => informerLogger(log.child(fields)),
  };
}
