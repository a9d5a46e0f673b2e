/**
 * The coordination.k8s.io/v1 Lease lock behind leader election (client-go `resourcelock.LeaseLock`).
 *
 * The lock remembers the Lease it last read or wrote and updates exactly that version: every `update` carries the
 * remembered `resourceVersion`, so a concurrent writer makes it fail with a Conflict instead of silently winning
 * (optimistic concurrency). It never retries by itself; the elector decides when to try again.
 */
import type { ResourceInterface } from '../client/interfaces.js';
import type { Transport } from '../client/types.js';
import { CoordinationV1Client } from '../api/coordination/v1/client.js';
import type { Lease, LeaseList } from '../builtin/types.js';

/** What the elector reads and writes in the Lease's spec (client-go `LeaderElectionRecord`). Times are epoch ms. */
export interface LeaderElectionRecord {
  /** '' when nobody holds the lease (e.g. after a release). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number | undefined;
  renewTime: number | undefined;
  leaderTransitions: number;
}

/** Which Lease a {@link LeaseLock} uses, the transport it goes through, and the labels it creates the Lease with. */
export interface LeaseLockOptions {
  namespace: string;
  name: string;
  /** Leases are read and written through this transport (real or fake). */
  transport: Transport;
  /** Labels put on the Lease when this lock creates it (controller-runtime's `LeaderElectionLabels`). */
  labels?: Record<string, string>;
}

/** A read of the lock: the decoded record plus the raw spec JSON, used to notice any change at all. */
export interface ObservedLease {
  record: LeaderElectionRecord;
  raw: string;
}

/**
 * Reads, creates and updates one Lease as a leader-election lock (client-go's `resourcelock.LeaseLock`), with
 * optimistic concurrency (see the module comment). Used by {@link LeaderElector}; it never retries on its own.
 */
export class LeaseLock {
  readonly namespace: string;
  readonly name: string;
  private readonly leases: ResourceInterface<Lease, LeaseList>;
  private readonly labels: Record<string, string> | undefined;
  /** The Lease as last read or written; `update` writes on top of its resourceVersion. */
  private lease: Lease | undefined;

  constructor(opts: LeaseLockOptions) {
    this.namespace = opts.namespace;
    this.name = opts.name;
    this.labels = opts.labels;
    this.leases = new CoordinationV1Client(opts.transport).leases(opts.namespace);
  }

  /** `namespace/name`, for logs. */
  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** Reads the Lease; rejects with the API error (NotFound when it does not exist). */
  async get(signal?: AbortSignal): Promise<ObservedLease> {
    this.lease = await this.leases.get(this.name, signal ? { signal } : {});
    return { record: leaseSpecToRecord(this.lease.spec), raw: JSON.stringify(this.lease.spec ?? {}) };
  }

  /** Creates the Lease holding `record`; rejects with AlreadyExists when someone created it first. */
  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedLease> {
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace, ...(this.labels ? { labels: { ...this.labels } } : {}) },
      spec: recordToLeaseSpec(record),
    };
    this.lease = await this.leases.create(body, signal ? { signal } : {});
    return { record: leaseSpecToRecord(this.lease.spec), raw: JSON.stringify(this.lease.spec ?? {}) };
  }

  /**
   * Writes `record` over the Lease last seen by `get`/`create`/`update`, at that resourceVersion (Conflict if the
   * Lease changed since). Fails if the lock has never read the Lease.
   */
  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedLease> {
    if (this.lease === undefined) throw new Error('lease not initialized, call get or create first');
    const body: Lease = { ...this.lease, spec: recordToLeaseSpec(record) };
    this.lease = await this.leases.update(body, signal ? { signal } : {});
    return { record: leaseSpecToRecord(this.lease.spec), raw: JSON.stringify(this.lease.spec ?? {}) };
  }
}

/** Lease `spec` → record. Missing fields read as '' / 0 / undefined, as client-go does. */
export function leaseSpecToRecord(spec: Lease['spec']): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(spec?.acquireTime),
    renewTime: parseTime(spec?.renewTime),
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
}

/** Record → Lease `spec`, times as MicroTime (RFC 3339 with microseconds). */
export function recordToLeaseSpec(record: LeaderElectionRecord): NonNullable<Lease['spec']> {
  const spec: NonNullable<Lease['spec']> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = formatMicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = formatMicroTime(record.renewTime);
  return spec;
}

/** `2006-01-02T15:04:05.000000Z`: metav1.MicroTime's wire format. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function parseTime(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}
