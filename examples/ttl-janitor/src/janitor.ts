/**
 * `Janitor`: a manager runnable that keeps one metadata-only controller per resource the janitor handles, following
 * what the cluster serves while it runs.
 *
 * - Which resources: every one discovery lists with `list`, `watch` and `delete`, in its preferred version, that the
 *   flags admit (resources.ts), read from the manager's RESTMapper.
 * - When it looks: at start; after every CustomResourceDefinition change the mapper's CRD watch sees (a quarter of a
 *   second later, and again after 2 s and 6 s, because discovery can lag a CRD; a burst of changes shares its looks);
 *   and every `discoveryIntervalMs`,
 *   when the API groups (`/api`, `/apis`: two requests) changed since the last look (an aggregated API added or
 *   removed), after the mapper is told to forget what it knew.
 * - A new resource gets a controller — once a SelfSubjectAccessReview says the janitor may list, watch and delete it
 *   (access.ts); one it may not use is reported once (a warning naming the verbs) and skipped, and asked about again
 *   at the next look. A resource no longer served (its CRD deleted) loses its controller: `Manager.remove` stops it
 *   and frees its informer. (The controller's own source usually lets go of a deleted CRD's kind first, with the
 *   runtime's one warning; the janitor then removes the controller and says so at info level.) A resource whose preferred
 *   version changed gets a new controller for the new version.
 * - A failed look (discovery unreachable) changes nothing and is retried after 5 s, doubling to the interval.
 */
import { controllerFor, type Controller, type Logger, type Manager, type Runnable } from '@kubegen/runtime';
import type { Clock } from '@kubegen/runtime/clock';
import { isNoMatchError, resourceInfoOf, type APIResourceInfo } from '@kubegen/runtime/discovery';
import type { AccessReviewer } from './access.js';
import { janitorPredicate } from './cache.js';
import type { JanitorMetrics } from './metrics.js';
import { ttlReconciler } from './reconciler.js';
import { resourceName, selectResources, type ResourceFilter } from './resources.js';

/** After a CRD change: look again after these delays (discovery may lag the CRD). */
const AFTER_CRD_CHANGE_MS = [250, 2_000, 6_000] as const;
/** First retry of a failed look; doubles up to the discovery interval. */
const RETRY_MS = 5_000;

/** Settings of a {@link Janitor}. */
export interface JanitorOptions {
  manager: Manager;
  filter: ResourceFilter;
  /** Log and count expired objects instead of deleting them. */
  dryRun: boolean;
  /** Namespaces the cache holds (the manager's `cache.defaultNamespaces`); empty: all. For the access reviews. */
  namespaces: readonly string[];
  /** Objects in these namespaces are never deleted. */
  excludedNamespaces: readonly string[];
  /** Reconciles at once per resource. */
  workers: number;
  /** How often the API groups are compared with the last look; 0: never. */
  discoveryIntervalMs: number;
  access: AccessReviewer;
  metrics: JanitorMetrics;
  logger: Logger;
  clock: Clock;
}

interface Watched {
  resource: APIResourceInfo;
  controller: Controller;
}

/** The runnable that follows the served resources (see the module comment). */
export class Janitor implements Runnable {
  readonly name = 'ttl-janitor';
  /** Deletes happen only where this replica leads (with --leader-elect). */
  readonly needLeaderElection = true;
  private readonly watched = new Map<string, Watched>();
  /** Resources skipped as forbidden, with what was refused (warned once each). */
  private readonly forbidden = new Map<string, string>();
  private readonly timers = new Set<ReturnType<Clock['setTimeout']>>();
  private looking: Promise<void> | undefined;
  private again = false;
  private lastGroups: string | undefined;
  private failures = 0;
  private stopped = false;
  /** True once a look has succeeded (the janitor's readiness). */
  discovered = false;

  constructor(private readonly o: JanitorOptions) {}

  /** The resources watched now, as kubectl names them (`configmaps`, `deployments.apps`), sorted. */
  watchedResources(): string[] {
    return [...this.watched.keys()].sort();
  }

  async start(signal: AbortSignal): Promise<void> {
    const cluster = this.o.manager.cluster;
    const mapper = cluster.getRESTMapper();
    // A burst of CRD changes (an operator's install) makes a few looks, not three per change: a look already due
    // at least half its delay from now covers a change.
    const due = new Map<number, number>();
    const off = mapper.onCrdChange(() => {
      const now = this.o.clock.now();
      for (const ms of AFTER_CRD_CHANGE_MS) {
        if ((due.get(ms) ?? -Infinity) >= now + ms / 2) continue;
        due.set(ms, now + ms);
        this.lookAfter(ms);
      }
    });
    cluster.watchCrds();
    let interval: ReturnType<Clock['setTimeout']> | undefined;
    const tick = (): void => {
      interval = this.o.clock.setTimeout(() => {
        void this.groupsChanged().then((changed) => (changed ? this.look() : undefined));
        tick();
      }, this.o.discoveryIntervalMs);
    };
    if (this.o.discoveryIntervalMs > 0) tick();
    try {
      await this.look();
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    } finally {
      this.stopped = true;
      off();
      if (interval !== undefined) this.o.clock.clearTimeout(interval);
      for (const t of this.timers) this.o.clock.clearTimeout(t);
      await this.looking;
    }
  }

  /** Looks after `ms` (one timer per delay; a look already due covers a later request). */
  private lookAfter(ms: number): void {
    if (this.stopped) return;
    const t = this.o.clock.setTimeout(() => {
      this.timers.delete(t);
      void this.look();
    }, ms);
    this.timers.add(t);
  }

  /** Runs a look, or asks for one more after the running one: looks never overlap. */
  private look(): Promise<void> {
    if (this.looking) {
      this.again = true;
      return this.looking;
    }
    this.looking = (async () => {
      do {
        this.again = false;
        if (this.stopped) break;
        await this.lookOnce();
      } while (this.again);
      this.looking = undefined;
    })();
    return this.looking;
  }

  /** True when the API groups and versions differ from the last look's (the mapper then forgets what it knew). */
  private async groupsChanged(): Promise<boolean> {
    try {
      const groups = await this.o.manager.cluster.getRESTMapper().discovery.serverGroups();
      const now = JSON.stringify(groups.map((g) => [g.name, g.versions, g.preferredVersion]));
      if (now === this.lastGroups) return false;
      this.lastGroups = now;
      this.o.manager.cluster.getRESTMapper().reset();
      return true;
    } catch (err) {
      this.o.logger.info('could not list the API groups; will try at the next interval', { error: err });
      return false;
    }
  }

  private async lookOnce(): Promise<void> {
    const mapper = this.o.manager.cluster.getRESTMapper();
    let wanted: APIResourceInfo[];
    try {
      if (this.lastGroups === undefined) await this.groupsChanged();
      wanted = await selectResources(await mapper.resources(), this.o.filter, async (versions) => {
        const first = versions[0]!;
        const m = await mapper.restMapping({ group: first.group, kind: first.kind });
        return versions.find((r) => r.version === m.resource.version) ?? first;
      });
    } catch (err) {
      const delay = Math.min(RETRY_MS * 2 ** this.failures++, Math.max(RETRY_MS, this.o.discoveryIntervalMs || RETRY_MS));
      this.o.logger.error('discovery failed; the resources watched are unchanged, trying again', { error: err, retryInMs: delay });
      this.lookAfter(delay);
      return;
    }
    this.failures = 0;
    const byName = new Map(wanted.map((r) => [resourceName(r), r]));
    for (const [name, w] of this.watched) {
      const next = byName.get(name);
      if (next && next.version === w.resource.version) continue;
      if (!next && !(await this.noLongerServed(w.resource))) continue;
      await this.unwatch(name, next ? `its preferred version is now ${next.version}` : 'no longer served');
    }
    for (const [name] of this.forbidden) if (!byName.has(name)) this.forget(name);
    const added: string[] = [];
    await Promise.all(
      [...byName].filter(([name]) => !this.watched.has(name)).map(async ([name, r]) => {
        if (await this.mayUse(name, r)) {
          this.watch(name, r);
          added.push(name);
        }
      }),
    );
    this.o.metrics.kindsWatched.set(this.watched.size);
    if (!this.discovered) {
      this.discovered = true;
      this.o.logger.info('watching resources', { count: this.watched.size, resources: this.watchedResources(), dryRun: this.o.dryRun });
    } else if (added.length > 0) {
      this.o.logger.info('watching more resources', { added: added.sort(), count: this.watched.size });
    }
  }

  /** Confirms a resource missing from the list is gone (a no-match), not in a group that failed to load. */
  private async noLongerServed(r: APIResourceInfo): Promise<boolean> {
    try {
      await this.o.manager.cluster.getRESTMapper().restMapping({ group: r.group, kind: r.kind }, r.version);
      return false;
    } catch (err) {
      return isNoMatchError(err);
    }
  }

  /** Asks whether the janitor may list, watch (and delete) `r`; warns once about a refusal. */
  private async mayUse(name: string, r: APIResourceInfo): Promise<boolean> {
    const answer = await this.o.access({
      group: r.group,
      resource: r.resource,
      verbs: this.o.dryRun ? ['list', 'watch'] : ['list', 'watch', 'delete'],
      namespaces: r.namespaced && this.o.namespaces.length > 0 ? this.o.namespaces : [''],
    });
    if (answer.allowed === false) {
      const refused = answer.refused.join(', ');
      if (this.forbidden.get(name) !== refused) this.o.logger.warn('skipping a resource the janitor may not use', { resource: name, refused });
      this.forbidden.set(name, refused);
      this.o.metrics.kindWatched.set({ resource: name }, 0);
      return false;
    }
    if (answer.allowed === 'unknown' && !this.forbidden.has(name)) {
      this.o.logger.debug('could not review access; watching anyway', { resource: name, error: answer.error });
    }
    this.forbidden.delete(name);
    return true;
  }

  /** Builds and adds the resource's controller (started at once: the manager runs). */
  private watch(name: string, r: APIResourceInfo): void {
    const { manager } = this.o;
    const log = this.o.logger.child({ resource: name });
    const controller = controllerFor(manager, { group: r.group, version: r.version, kind: r.kind }, { metadataOnly: true })
      .named(`janitor-${name}`)
      .withEventFilter(janitorPredicate(this.o.excludedNamespaces))
      .withOptions({ maxConcurrentReconciles: this.o.workers, logger: log })
      .complete(
        ttlReconciler({
          client: manager.getClient(),
          info: resourceInfoOf(r),
          resource: name,
          dryRun: this.o.dryRun,
          recorder: manager.getEventRecorderFor('ttl-janitor'),
          metrics: this.o.metrics,
          clock: this.o.clock,
          log,
        }),
      );
    this.watched.set(name, { resource: r, controller });
    this.o.metrics.kindWatched.set({ resource: name }, 1);
  }

  private async unwatch(name: string, why: string): Promise<void> {
    const w = this.watched.get(name)!;
    this.watched.delete(name);
    this.o.metrics.kindWatched.remove({ resource: name });
    await this.o.manager.remove(w.controller);
    this.o.logger.info('stopped watching a resource', { resource: name, version: w.resource.version, reason: why });
  }

  private forget(name: string): void {
    this.forbidden.delete(name);
    this.o.metrics.kindWatched.remove({ resource: name });
  }
}
