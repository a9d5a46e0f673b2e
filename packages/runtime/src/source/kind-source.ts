/**
 * `KindSource` (controller-runtime `source.Kind`, resolved lazily): the events of one kind in one cluster. Unlike an
 * {@link InformerSource} it is bound to nothing until the controller starts it: then it resolves its kind (a
 * `ResourceInfo` as given, or a `GroupVersionKind` through the cluster's RESTMapper — waiting, without failing, while
 * the kind is not served), takes a counted hold on the cluster's informers for it, and attaches its handler. When
 * the controller stops, the handler is detached and the hold given back, so a kind nobody watches any more is no
 * longer cached.
 *
 * A kind named by `GroupVersionKind` that goes away (its CRD deleted: the informer's list or watch answers 404)
 * stops its informers after one warning line, reads 0 in `kubegen_source_kind_served`, and the source waits for the kind to come back (through the
 * cluster's `waitForKind`, with a backoff between attempts, so a vanished kind never makes a retry storm of 404s);
 * when it is served again the source attaches anew and the controller sees its objects as creates. When the
 * controller stops (`Manager.remove`, shutdown), the source's `kubegen_source_kind_served` series goes with it.
 */
import { isNotFound } from '../client/errors.js';
import type { KubeObject, ResourceInfo } from '../client/types.js';
import { type Clock } from '../clock.js';
import { sleep } from '../deadline.js';
import type { GroupVersionKind } from '../discovery/types.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import type { InformerRequest } from '../cluster/cluster-cache.js';
import type { EventHandler, RequestSink } from '../handler/handler.js';
import type { Logger } from '../log.js';
import type { Gauge } from '../metrics/prom.js';
import type { Predicate } from '../predicate/predicate.js';
import { InformerSource, raceAbort, type Source } from './source.js';

/** A kind as sources and the builder name it: a `ResourceInfo`, or a `GroupVersionKind` resolved when started. */
export type KindRef = ResourceInfo | GroupVersionKind;

/** True for a `ResourceInfo` (it names its resource and scope), false for a bare `GroupVersionKind`. */
export function isResourceInfo(kind: KindRef): kind is ResourceInfo {
  return typeof (kind as Partial<ResourceInfo>).resource === 'string' && typeof (kind as Partial<ResourceInfo>).namespaced === 'boolean';
}

/** `Deployment.apps/v1`, `Foo.samplecontroller.k8s.io/v1alpha1`: a kind for log lines and metric labels. */
export function describeKind(kind: KindRef): string {
  return `${kind.kind}${kind.group ? `.${kind.group}` : ''}/${kind.version}`;
}

/** What a {@link KindSource} needs of its cluster. */
export interface KindSourceCluster {
  /** A counted hold on the informers of `info` (see `Cluster.acquireInformers`). */
  acquireInformers(info: ResourceInfo, req?: InformerRequest, metadataOnly?: boolean): { informers: SharedIndexInformer<KubeObject>[]; release: () => Promise<void> };
  /**
   * Resolves with the `ResourceInfo` of `kind` once the cluster serves it (for a CRD: Established and in
   * discovery), waiting meanwhile; undefined when `signal` aborts first. `onWaiting` gets the reason it waits (a
   * no-match error), for the source's sync reason. Without it, a `GroupVersionKind` cannot be resolved.
   */
  waitForKind?(kind: GroupVersionKind, signal: AbortSignal, onWaiting?: (reason: unknown) => void): Promise<ResourceInfo | undefined>;
  /** Resolves with the reason once `kind` is no longer served (its CRD deleted); undefined when `signal` aborts. */
  whenKindGone?(kind: GroupVersionKind, signal: AbortSignal): Promise<unknown>;
  /** Calls `listener` when the selection of `info` changes (a sharded kind); returns the remover. */
  onScopeChange?(info: ResourceInfo, listener: () => void): () => void;
}

/** Settings of a {@link KindSource}. */
export interface KindSourceOptions<T extends KubeObject> {
  cluster: KindSourceCluster;
  kind: KindRef;
  handler: EventHandler<T>;
  predicates?: readonly Predicate<T>[];
  /** Watch metadata only (the cluster's metadata informers). */
  metadataOnly?: boolean;
  /** What the hold asks of the kind's cache (e.g. `dependentOnly` for `owns`). */
  request?: InformerRequest;
  clock: Clock;
  log: Logger;
  /** `kubegen_source_kind_served{controller, source}` and the controller's name, when the caller exports it. */
  served?: { gauge: Gauge<'controller' | 'source'>; controller: string };
}

/** Backoff between attempts to re-resolve a kind that went away: 1 s, doubling, at most 30 s. */
const GONE_BACKOFF_MS = [1_000, 30_000] as const;

interface Attachment {
  info: ResourceInfo;
  sources: InformerSource<KubeObject>[];
  stop: AbortController;
  release: () => Promise<void>;
}

/** One kind's events into a controller, resolved when started (see the module comment). */
export class KindSource<T extends KubeObject = KubeObject> implements Source {
  readonly description: string;
  private current: Attachment | undefined;
  private waiting: unknown;
  private synced = false;
  private changed: (() => void)[] = [];

  constructor(private readonly opts: KindSourceOptions<T>) {
    this.description = isResourceInfo(opts.kind) ? resourceDescription(opts.kind, opts.metadataOnly ?? false) : describeKind(opts.kind);
  }

  /** The kind, resolved (undefined until it is). */
  get info(): ResourceInfo | undefined {
    return this.current?.info ?? (isResourceInfo(this.opts.kind) ? this.opts.kind : undefined);
  }

  /** The informers the source is attached to now (none while it waits for its kind). */
  informers(): SharedIndexInformer<KubeObject>[] {
    return this.current?.sources.map((s) => s.informer) ?? [];
  }

  start(sink: RequestSink, signal: AbortSignal): void {
    this.setServed(false);
    void this.run(sink, signal);
  }

  hasSynced(): boolean {
    if (this.synced) return true;
    const c = this.current;
    if (c && c.sources.every((s) => s.hasSynced())) this.synced = true;
    return this.synced;
  }

  async whenSynced(signal: AbortSignal): Promise<boolean> {
    while (!this.hasSynced()) {
      if (signal.aborted) return false;
      const c = this.current;
      const change = new Promise<void>((resolve) => this.changed.push(resolve));
      const waits = c ? Promise.all(c.sources.map((s) => s.whenSynced(c.stop.signal))).then(() => undefined) : change;
      if (!(await raceAbort(Promise.race([waits, change]), signal))) return false;
    }
    return true;
  }

  syncError(): unknown {
    if (this.hasSynced()) return undefined;
    if (!this.current) return this.waiting;
    for (const s of this.current.sources) {
      const err = s.syncError();
      if (err !== undefined) return err;
    }
    return undefined;
  }

  /** Follows the kind until `signal` aborts; then the source's served series goes (its controller stopped). */
  private async run(sink: RequestSink, signal: AbortSignal): Promise<void> {
    try {
      await this.follow(sink, signal);
    } finally {
      const s = this.opts.served;
      if (s) s.gauge.remove({ controller: s.controller, source: this.description });
    }
  }

  private async follow(sink: RequestSink, signal: AbortSignal): Promise<void> {
    let backoff: number = GONE_BACKOFF_MS[0];
    while (!signal.aborted) {
      const info = await this.resolve(signal);
      if (!info || signal.aborted) return;
      const attached = this.attach(info, sink, signal);
      // A sharded kind's selection moves with the shard's part of the ring: take new informers, then let the old go.
      const offScope = this.opts.cluster.onScopeChange?.(info, () => this.reattach(sink, signal)) ?? (() => undefined);
      const gone = await this.untilGone(attached, signal);
      offScope();
      const last = this.current ?? attached;
      this.current = undefined;
      last.stop.abort();
      await last.release();
      this.notify();
      if (!gone || signal.aborted) return;
      this.setServed(false);
      this.opts.log.warn('the kind is no longer served (its CRD was deleted?); its informers stopped, waiting for it to come back', { source: this.description, error: gone });
      this.waiting = gone;
      // Never hammer a vanished kind: wait before asking again, longer each time it vanishes right after returning.
      try {
        await sleep(this.opts.clock, backoff, signal);
      } catch {
        return;
      }
      backoff = Math.min(backoff * 2, GONE_BACKOFF_MS[1]);
    }
  }

  private async resolve(signal: AbortSignal): Promise<ResourceInfo | undefined> {
    const { kind, cluster } = this.opts;
    if (isResourceInfo(kind)) return kind;
    if (!cluster.waitForKind) throw new Error(`source ${this.description}: this cluster has no RESTMapper to resolve a GroupVersionKind`);
    const info = await cluster.waitForKind({ group: kind.group, version: kind.version, kind: kind.kind }, signal, (reason) => {
      this.waiting = reason;
      this.notify();
    });
    this.waiting = undefined;
    return info;
  }

  /**
   * Moves to the informers of the kind's new selection: attaches to them first (the objects they list arrive as
   * creates, duplicates the queue collapses), then detaches from the old ones and gives them back.
   */
  private reattach(sink: RequestSink, signal: AbortSignal): void {
    const old = this.current;
    if (!old || signal.aborted) return;
    this.attach(old.info, sink, signal);
    old.stop.abort();
    void old.release();
  }

  private attach(info: ResourceInfo, sink: RequestSink, signal: AbortSignal): Attachment {
    const { informers, release } = this.opts.cluster.acquireInformers(info, this.opts.request ?? {}, this.opts.metadataOnly ?? false);
    const stop = new AbortController();
    signal.addEventListener('abort', () => stop.abort(), { once: true });
    const sources = informers.map((i) => new InformerSource<KubeObject>(i, this.opts.handler as EventHandler<KubeObject>, this.opts.predicates as Predicate<KubeObject>[] ?? [], this.opts.log));
    for (const s of sources) s.start(sink, stop.signal);
    const attachment = { info, sources, stop, release };
    this.current = attachment;
    this.setServed(true);
    this.notify();
    return attachment;
  }

  /**
   * Resolves when `signal` aborts (undefined) or, for a kind resolved through the mapper, when an informer's list or
   * watch answers 404: the error. (A `ResourceInfo` kind keeps its informers, which retry with backoff and say why.)
   */
  private untilGone(a: Attachment, signal: AbortSignal): Promise<unknown> {
    if (isResourceInfo(this.opts.kind)) return new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', () => resolve(undefined), { once: true })));
    return new Promise((resolve) => {
      const removers: (() => void)[] = [];
      const done = (value: unknown): void => {
        for (const r of removers) r();
        resolve(value);
      };
      if (signal.aborted) return done(undefined);
      signal.addEventListener('abort', () => done(undefined), { once: true });
      // A list or watch of a collection answers 404 only when the resource itself is not served.
      for (const s of a.sources) removers.push(s.informer.addErrorListener((err) => isNotFound(err) && done(err)));
      // The mapper's CRD watch says so first, as a rule: a deleted CRD's watches may end only later.
      const kind = this.opts.kind;
      if (this.opts.cluster.whenKindGone && !isResourceInfo(kind)) {
        const stop = new AbortController();
        removers.push(() => stop.abort());
        void this.opts.cluster.whenKindGone(kind, stop.signal).then((reason) => reason !== undefined && done(reason));
      }
    });
  }

  private setServed(served: boolean): void {
    const s = this.opts.served;
    if (s) s.gauge.set({ controller: s.controller, source: this.description }, served ? 1 : 0);
  }

  private notify(): void {
    const waiters = this.changed;
    this.changed = [];
    for (const w of waiters) w();
  }
}

function resourceDescription(info: ResourceInfo, metadataOnly: boolean): string {
  return `${metadataOnly ? 'metadata:' : ''}${info.resource}.${info.group || 'core'}/${info.version}`;
}
