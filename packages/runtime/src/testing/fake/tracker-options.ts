/**
 * What the `ObjectTracker`'s calls take: its settings, and the options of its writes, lists, deletes and patches
 * (the apiserver's `dryRun`, selectors and paging, preconditions, subresources and field managers).
 */
import type { Preconditions } from '../../client/interfaces.js';
import type { Clock } from '../../clock.js';
import type { SelectionOptions } from './fake-selection.js';
import type { TrackerValidation } from './tracker-hooks.js';

/** Settings of an {@link ObjectTracker}: clock, watch history size and UID generator; all optional. */
export interface ObjectTrackerOptions {
  /** Time source for `creationTimestamp`/`deletionTimestamp` (default: wall clock). */
  clock?: Pick<Clock, 'now'>;
  /** How many change events watches can replay from (default 1000); older resourceVersions get 410 Expired. */
  watchHistorySize?: number;
  /** UID generator (default `crypto.randomUUID`). */
  newUID?: () => string;
  /** Schema validation of writes (see `crdValidation`); also settable later as `tracker.validation`. */
  validation?: TrackerValidation;
}

/** Options of the tracker's writing calls (create, update, patch, delete): `dryRun`. */
export interface TrackerWriteOptions {
  /** Validate and answer as if stored, but store nothing and notify no watcher. */
  dryRun?: boolean;
}

/** Options of `ObjectTracker.list`: label and field selectors plus paging (`limit`, `continue`). */
export interface TrackerListOptions extends SelectionOptions {
  /** Page size; `0`/absent means everything. */
  limit?: number;
  continue?: string;
}

/** Options of `ObjectTracker.delete`: `dryRun` plus meta/v1 `Preconditions` (409 Conflict when they do not hold). */
export interface TrackerDeleteOptions extends TrackerWriteOptions {
  preconditions?: Preconditions;
}

/** Options of `ObjectTracker.patch`: `dryRun`, the subresource patched, and the field manager of an apply. */
export interface TrackerPatchOptions extends TrackerWriteOptions {
  /** `status` or `scale`; absent for the main resource. */
  subresource?: string;
  /** Required for `apply` patches, as on the apiserver. */
  fieldManager?: string;
  /** `apply` only: take over fields other managers own instead of failing with an `ApplyConflictError`. */
  force?: boolean;
}
