/**
 * How the tracker opens a watch, following the apiserver's resourceVersion rules:
 * - absent, `''` or `'0'`: synthetic ADDED events for every current matching object, then live changes;
 * - `'N'`: every change after N that is still in the history, then live changes; if changes after N were already
 *   dropped from the history, one ERROR event with a 410 `Expired` Status and the stream ends;
 * - `sendInitialEvents: true` (watch-list): the current objects first whatever N is, then, with
 *   `allowWatchBookmarks`, a BOOKMARK annotated `k8s.io/initial-events-end: "true"`.
 * Selector transitions follow the watch cache: an object that starts matching arrives as ADDED, one that stops
 * matching as DELETED. Only the initial-events-end bookmark is ever sent.
 */
import { apiVersionOf, type KubeObject, type Watch } from '../../client/types.js';
import { badRequest, expiredStatus } from './fake-errors.js';
import type { FakeResource } from './fake-resource.js';
import type { SelectionOptions } from './fake-selection.js';
import { FakeWatch } from './fake-watch.js';
import type { ChangeEvent, ChangeHub } from './fake-watch.js';

/** Options of `ObjectTracker.watch`: selectors, start resourceVersion (rules: module comment), bookmarks, a signal. */
export interface TrackerWatchOptions extends SelectionOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /** Aborting stops the watch. */
  signal?: AbortSignal;
}

export interface OpenWatchParams {
  hub: ChangeHub;
  resourceKey: string;
  predicate: (obj: KubeObject) => boolean;
  /** Current matching objects, in key order. */
  current: KubeObject[];
  currentRv: number;
  res: FakeResource;
  opts: TrackerWatchOptions;
}

function parseRv(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  if (!/^\d+$/.test(rv)) throw badRequest(`invalid resource version "${rv}"`);
  return Number(rv);
}

export function openTrackerWatch(p: OpenWatchParams): Watch<KubeObject> {
  const { hub, predicate, opts } = p;
  const from = parseRv(opts.resourceVersion);
  let unsubscribe: () => void = () => {};
  const w = new FakeWatch<KubeObject>(() => unsubscribe());

  const deliver = (ev: ChangeEvent): void => {
    if (ev.resourceKey !== p.resourceKey) return;
    const cur = predicate(ev.object);
    const prev = ev.prev !== undefined && predicate(ev.prev);
    if (ev.type === 'ADDED' || ev.type === 'DELETED') {
      if (cur) w.push(ev.type, structuredClone(ev.object));
    } else if (cur) {
      w.push(prev ? 'MODIFIED' : 'ADDED', structuredClone(ev.object));
    } else if (prev) {
      const last = structuredClone(ev.prev!);
      last.metadata = { ...last.metadata, resourceVersion: String(ev.rv) };
      w.push('DELETED', last);
    }
  };

  if (from === undefined || opts.sendInitialEvents) {
    for (const obj of p.current) w.push('ADDED', structuredClone(obj));
    if (opts.sendInitialEvents && opts.allowWatchBookmarks) {
      w.push('BOOKMARK', {
        apiVersion: apiVersionOf(p.res),
        kind: p.res.kind,
        metadata: { resourceVersion: String(p.currentRv), annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
    }
  }
  if (from !== undefined && !opts.sendInitialEvents) {
    const replay = hub.since(from);
    if ('expired' in replay) {
      w.pushError(expiredStatus(from, replay.oldest));
      w.end();
      return w;
    }
    for (const ev of replay.events) deliver(ev);
  }
  unsubscribe = hub.subscribe(deliver);
  if (opts.signal) {
    if (opts.signal.aborted) w.stop();
    else opts.signal.addEventListener('abort', () => w.stop(), { once: true });
  }
  return w;
}
