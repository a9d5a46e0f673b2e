/**
 * What CustomResourceDefinition events say discovery must show next, so that the mapper follows CRDs without ever
 * trusting a stale answer for good (controller-runtime's mapper keeps a removed version or kind mapped until
 * restart). Each CRD change marks its group dirty and records an expectation per resource:
 *
 * - `present`: the versions an Established CRD serves, with its kind and scope;
 * - `absent`: versions it no longer serves (all of them once the CRD is deleted).
 *
 * The mapper refetches a dirty group before answering for it and settles the expectations against what discovery
 * then shows. Discovery can lag a CRD by a moment (a CRD can be Established before discovery lists it): an
 * expectation not met keeps the group dirty, to be refetched again no sooner than `retryMs` later. Meanwhile a
 * resource expected absent is hidden from answers at once (a request to it would 404 anyway); one expected present
 * is not invented from the CRD: it is answered once discovery shows it.
 */
import type { KubeObject } from '../client/types.js';
import type { APIResourceInfo } from '../discovery/types.js';

/** The parts of a CRD that decide what discovery serves for it. */
export interface CrdServing {
  group: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** Served versions while the CRD is Established and not being deleted; empty otherwise. */
  served: string[];
}

interface CrdLike extends KubeObject {
  spec?: { group?: string; scope?: string; names?: { plural?: string; kind?: string }; versions?: { name?: string; served?: boolean }[] };
  status?: { acceptedNames?: { plural?: string; kind?: string }; conditions?: { type?: string; status?: string }[] };
}

/** What a CRD object serves (see {@link CrdServing}); undefined when it is not a CRD the mapper can read. */
export function crdServingOf(obj: unknown): CrdServing | undefined {
  const crd = obj as CrdLike | null;
  const spec = crd?.spec;
  if (!spec?.group || !spec.names) return undefined;
  const plural = crd!.status?.acceptedNames?.plural || spec.names.plural;
  const kind = crd!.status?.acceptedNames?.kind || spec.names.kind;
  if (!plural || !kind) return undefined;
  const established = (crd!.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  const live = established && !crd!.metadata?.deletionTimestamp;
  const served = live ? (spec.versions ?? []).filter((v) => v.served && v.name).map((v) => v.name!) : [];
  return { group: spec.group, plural, kind, namespaced: spec.scope !== 'Cluster', served };
}

interface Expectation {
  present: { versions: string[]; kind: string; namespaced: boolean } | undefined;
  absent: Set<string>;
}

/** Dirty groups and their pending expectations (see the module comment). */
export class CrdExpectations {
  private readonly pending = new Map<string, Map<string, Expectation>>();
  /** Dirty groups → the time from which they may be refetched. */
  private readonly due = new Map<string, number>();

  /**
   * Records a CRD change (`prev`/`next` undefined for an add/delete). Returns the CRD's group when what discovery
   * serves for it changes, else undefined (a status-only update, a change of a field discovery does not show).
   */
  observe(prev: CrdServing | undefined, next: CrdServing | undefined): string | undefined {
    const cur = next ?? prev;
    if (!cur) return undefined;
    if (prev && next && sameServing(prev, next)) return undefined;
    const served = next?.served ?? [];
    const byPlural = this.pending.get(cur.group) ?? new Map<string, Expectation>();
    const old = byPlural.get(cur.plural);
    const absent = new Set([...(old?.absent ?? []), ...(prev?.served ?? [])].filter((v) => !served.includes(v)));
    const present = next && served.length > 0 ? { versions: served, kind: next.kind, namespaced: next.namespaced } : undefined;
    if (!present && absent.size === 0 && !old) return undefined;
    byPlural.set(cur.plural, { present, absent });
    this.pending.set(cur.group, byPlural);
    this.due.set(cur.group, 0);
    return cur.group;
  }

  /** Groups to refetch now (dirty and due). */
  dueGroups(now: number): string[] {
    return [...this.due].filter(([, at]) => at <= now).map(([g]) => g);
  }

  /** True when `group` is dirty and due at `now`. */
  isDue(group: string, now: number): boolean {
    const at = this.due.get(group);
    return at !== undefined && at <= now;
  }

  /** True while a CRD event says this resource version is gone and discovery may not know yet. */
  hidden(group: string, version: string, plural: string): boolean {
    return this.pending.get(group)?.get(plural)?.absent.has(version) ?? false;
  }

  /**
   * Checks `group`'s expectations against freshly fetched discovery (`resourcesOf(version)`: the version's resources,
   * undefined when it is not served or did not load). Met ones are dropped; returns true when none is left (the
   * group is clean), else keeps it dirty until `now + retryMs`.
   */
  settle(group: string, resourcesOf: (version: string) => readonly APIResourceInfo[] | undefined, now: number, retryMs: number): boolean {
    const byPlural = this.pending.get(group);
    for (const [plural, e] of byPlural ?? []) {
      const shows = (v: string): APIResourceInfo | undefined => resourcesOf(v)?.find((r) => r.resource === plural);
      const presentMet = (e.present?.versions ?? []).every((v) => {
        const r = shows(v);
        return r !== undefined && r.kind === e.present!.kind && r.namespaced === e.present!.namespaced;
      });
      if (presentMet && [...e.absent].every((v) => !shows(v))) byPlural!.delete(plural);
    }
    if (!byPlural || byPlural.size === 0) {
      this.pending.delete(group);
      this.due.delete(group);
      return true;
    }
    this.due.set(group, now + retryMs);
    return false;
  }

  /** Forgets everything (the mapper's `reset()`). */
  clear(): void {
    this.pending.clear();
    this.due.clear();
  }
}

function sameServing(a: CrdServing, b: CrdServing): boolean {
  return a.plural === b.plural && a.kind === b.kind && a.namespaced === b.namespaced && a.served.length === b.served.length && a.served.every((v, i) => v === b.served[i]);
}
