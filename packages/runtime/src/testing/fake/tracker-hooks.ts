/**
 * What an `ObjectTracker` asks and tells, apart from the tracker so that the code it asks (schema validation,
 * `fake-validation.ts`) and the code it tells (serving CRDs, `fake-crd.ts`) need not import it:
 * - a {@link TrackerValidation} is asked before a write is stored;
 * - a {@link CommitObserver} is told after an object was stored or deleted, in the order observers were added, after
 *   the watchers were notified. An observer may write to the tracker (its writes are commits of their own).
 */
import type { KubeObject, ResourceInfo } from '../../client/types.js';
import type { WriteOperation } from '../../validation/index.js';
import type { FieldCause } from './fake-errors.js';
import type { FakeResource } from './fake-resource.js';

/** What the tracker asks before storing a write (undefined: the resource has no schema here, store as is). */
export interface TrackerValidation {
  /** `merged`: `obj` is a server-side apply's result (see `ValidateOptions.merged`), not a request body. */
  validate(res: ResourceInfo, operation: WriteOperation, obj: KubeObject, old: KubeObject | undefined, merged?: boolean): { object: KubeObject; causes: FieldCause[] } | undefined;
}

/** One stored (`obj` set) or deleted (`obj` undefined) object of `res`; `prev` is its state before, if any. */
export interface TrackerCommit {
  res: FakeResource;
  obj: KubeObject | undefined;
  prev: KubeObject | undefined;
}

/** Told of every commit of the tracker it was added to ({@link ObjectTracker.onCommit}). */
export type CommitObserver = (commit: TrackerCommit) => void;
