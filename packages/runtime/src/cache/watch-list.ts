/**
 * WatchList (KEP-3157, streaming lists): the pieces the reflector uses to get its initial state from one watch
 * instead of a list. The request is a watch with `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and
 * `allowWatchBookmarks=true`; a server that supports it answers with an ADDED event per object, then a BOOKMARK
 * annotated `k8s.io/initial-events-end: "true"` at the resourceVersion of that state, then changes as any watch.
 *
 * What servers that do not support it do (checked against real ones):
 * - kube-apiserver 1.19–1.26, and 1.27+ with the WatchList feature off: 422 Invalid at once, naming
 *   `resourceVersionMatch` ("forbidden for watch") or `sendInitialEvents`;
 * - a server that ignores both parameters (before 1.19, or a proxy that drops them): a plain watch, so no
 *   initial-events-end bookmark, and MODIFIED/DELETED events as things change.
 */
import { ApiError, isBadRequest, isInvalid } from '../client/errors.js';
import type { KubeObject, WatchEvent } from '../client/types.js';
import type { Logger } from '../log.js';
import { metaNamespaceKey } from './keys.js';
import type { ListerWatcher, WatchListMode } from './reflector-types.js';

/** The annotation on the bookmark that ends a WatchList's initial events (apimachinery `InitialEventsAnnotationKey`). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Environment variable with the default {@link WatchListMode}: `true`, `false` or `auto` (client-go's feature gate). */
export const WATCH_LIST_ENV = 'KUBEGEN_WATCH_LIST';

/**
 * In `'auto'` mode, a WatchList stream that delivers nothing for this long before its initial-events-end bookmark
 * is taken for a server that ignored the request (one that supports it sends the bookmark right after the last
 * object; a resourceVersion it has not caught up with makes it answer an error within 3 s).
 */
export const INITIAL_EVENTS_END_WAIT_MS = 10_000;

/** The mode `KUBEGEN_WATCH_LIST` asks for; `undefined` when unset or not one of `true`, `false`, `auto`. */
export function watchListModeFromEnv(env: NodeJS.ProcessEnv = process.env): WatchListMode | undefined {
  const v = env[WATCH_LIST_ENV]?.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'auto') return 'auto';
  return undefined;
}

/**
 * True when an error answering a WatchList request says the server does not support WatchList: a 422 Invalid or
 * 400 BadRequest about `sendInitialEvents` or `resourceVersionMatch` (what kube-apiserver before 1.27 answers, and
 * later ones with the feature off). Other errors say nothing about support.
 */
export function isWatchListRejected(err: unknown): boolean {
  if (!(err instanceof ApiError) || !(isInvalid(err) || isBadRequest(err))) return false;
  const about = (text: string | undefined): boolean => /sendInitialEvents|resourceVersionMatch/.test(text ?? '');
  return about(err.status.message) || (err.status.details?.causes ?? []).some((c) => about(c.field) || about(c.message));
}

/** True for the bookmark that ends a WatchList's initial events. */
export function isInitialEventsEnd(event: WatchEvent<KubeObject>): boolean {
  return event.type === 'BOOKMARK' && event.object?.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
}

/**
 * What one event of a WatchList stream meant before the initial-events-end bookmark:
 * `collecting` (an object of the initial state, or an ordinary bookmark), `complete` (the end bookmark: the state
 * is whole), `unexpected` (a MODIFIED or DELETED: applied, but a server that supports WatchList never sends one
 * before the bookmark).
 */
export type InitialEventVerdict = 'collecting' | 'complete' | 'unexpected';

/**
 * The temporary store of a WatchList's initial state (client-go's `temporaryStore`): objects by key until the
 * initial-events-end bookmark, then handed over in one piece so the real store is replaced as after a list.
 * Discarded when the stream fails first. Objects without a name are skipped and counted.
 */
export class InitialEvents<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private endRV: string | undefined;
  /** Objects skipped for want of a key. */
  skipped = 0;

  /** True once the end bookmark has arrived. */
  get complete(): boolean {
    return this.endRV !== undefined;
  }

  /** The end bookmark's resourceVersion (`''` before it). */
  get resourceVersion(): string {
    return this.endRV ?? '';
  }

  get size(): number {
    return this.items.size;
  }

  /** Takes one event of the stream (not an ERROR: the caller handles those). Only call it while not complete. */
  accept(event: WatchEvent<T>): InitialEventVerdict {
    if (event.type === 'BOOKMARK') {
      if (!isInitialEventsEnd(event)) return 'collecting';
      this.endRV = event.object?.metadata?.resourceVersion ?? '';
      return 'complete';
    }
    let key: string;
    try {
      key = metaNamespaceKey(event.object);
    } catch {
      this.skipped++;
      return 'collecting';
    }
    switch (event.type) {
      case 'ADDED':
        this.items.set(key, event.object);
        return 'collecting';
      case 'MODIFIED':
        this.items.set(key, event.object);
        return 'unexpected';
      case 'DELETED':
        this.items.delete(key);
        return 'unexpected';
      default:
        return 'collecting';
    }
  }

  /** The collected objects in arrival order; the collector is empty afterwards. */
  take(): T[] {
    const out = [...this.items.values()];
    this.items.clear();
    return out;
  }
}

/** The modes this process has announced at info level (see `WatchListChoice.say`). */
const modesSaid = new Set<'watch-list' | 'list-watch'>();

/** Forgets which modes were announced, so the next reflector announces again (tests). */
export function forgetAnnouncedWatchListModes(): void {
  modesSaid.clear();
}

/**
 * A reflector's choice between WatchList and list + watch (see `ReflectorOptions.watchList`): the mode, what the
 * server has shown (remembered for the reflector's life), and the info line saying which is used.
 */
export class WatchListChoice {
  readonly mode: WatchListMode;
  private support: 'unknown' | 'supported' | 'unsupported' = 'unknown';
  private loggedMode: 'watch-list' | 'list-watch' | undefined;

  /** `option` unset: `KUBEGEN_WATCH_LIST`, else `'auto'`. */
  constructor(
    private readonly option: WatchListMode | undefined,
    private readonly lw: Pick<ListerWatcher<unknown>, 'isWatchListSemanticsUnsupported'>,
    private readonly log: Logger,
  ) {
    this.mode = option ?? watchListModeFromEnv() ?? 'auto';
  }

  /** True in `'auto'` mode: WatchList failures may fall back to a list. */
  get auto(): boolean {
    return this.mode === 'auto';
  }

  /** How the next sync should get the state. */
  get next(): 'watch-list' | 'list' {
    if (this.mode !== 'auto') return this.mode ? 'watch-list' : 'list';
    return this.support === 'unsupported' || this.lw.isWatchListSemanticsUnsupported?.() ? 'list' : 'watch-list';
  }

  /** A WatchList stream delivered its whole initial state. */
  synced(objects: number, resourceVersion: string): void {
    this.support = 'supported';
    this.say('watch-list', { objects, resourceVersion });
  }

  /** The server showed it does not support WatchList (`why`): list + watch from now on. */
  unsupported(why: string): void {
    this.support = 'unsupported';
    this.say('list-watch', { reason: `the server does not support WatchList: ${why}` });
  }

  /** A sync is about to list; says why (a one-off fallback after a WatchList failure only at debug level). */
  listing(): void {
    if (this.mode === false) return this.say('list-watch', { reason: this.option === false ? 'watchList is false' : `${WATCH_LIST_ENV}=false` });
    if (this.support === 'unsupported') return this.say('list-watch', { reason: 'the server does not support WatchList' });
    if (this.mode === 'auto' && this.lw.isWatchListSemanticsUnsupported?.()) {
      return this.say('list-watch', { reason: 'the lister-watcher does not support WatchList' });
    }
    this.log.debug('using list+watch', { mode: 'list-watch', reason: 'WatchList failed; listing for this sync' });
  }

  /**
   * Info the first time the process uses a mode (so a process with 56 informers on a server without WatchList says
   * it once, not 56 times), debug afterwards and when this reflector repeats itself.
   */
  private say(mode: 'watch-list' | 'list-watch', fields: Record<string, unknown>): void {
    const msg = mode === 'watch-list' ? 'using WatchList (streaming the initial state)' : 'using list+watch';
    if (this.loggedMode === mode || modesSaid.has(mode)) {
      this.loggedMode = mode;
      return this.log.debug(msg, { mode, ...fields });
    }
    this.loggedMode = mode;
    modesSaid.add(mode);
    this.log.info(msg, { mode, ...fields, ...(mode === 'list-watch' ? { note: 'said once per process; other informers say it at debug level' } : {}) });
  }
}
