/**
 * `@kubegen/runtime/testing/fake`: an in-memory API for unit tests (client-go `testing`): the object tracker, a fake
 * transport with reactors and recorded actions, push-fed fake watches and lister-watchers, discovery computed
 * from the served resources (and CRDs made from CRD objects), and a fake event recorder. Loads no process, network or file-system code.
 */
export { ObjectTracker } from './object-tracker.js';
export type {
  ObjectTrackerOptions, TrackerDeleteOptions, TrackerListOptions, TrackerPatchOptions, TrackerWatchOptions,
  TrackerWriteOptions,
} from './object-tracker.js';
export { FakeTransport, newFakeTransport, newFakeTransportWithOptions } from './fake-transport.js';
export type { RawRequestRecord } from './fake-transport.js';
export { actionFor, actionMatches } from './fake-actions.js';
export type { FakeAction, Reaction, ReactionFunc, Reactor } from './fake-actions.js';
export { allBuiltinResources } from './builtin-resources.js';
export type { FakeResource, FakeScaleSpec } from './fake-resource.js';
export { fakeResourcesFromCrd, fakeResourcesFromCrds } from './fake-crd.js';
export { crdValidation, newFakeTransportFromCrds } from './fake-validation.js';
export type { FakeFromCrdsOptions } from './fake-validation.js';
export type { CommitObserver, TrackerCommit, TrackerValidation } from './tracker-hooks.js';
export type { FakeDiscoveryFormat } from './fake-discovery.js';
export { FakeWatch } from './fake-watch.js';
export { FakeListerWatcher } from './fake-lister-watcher.js';
export type { FakeListerWatcherOptions, FakeWatchListSupport } from './fake-lister-watcher.js';
export { FakeEventRecorder, type RecordedEvent } from './fake-recorder.js';
/** client-go's name for {@link FakeEventRecorder} (`record.FakeRecorder`); the same class. */
export { FakeEventRecorder as FakeRecorder } from './fake-recorder.js';
export { FakeDynamicClient, newFakeDynamicClient } from './fake-dynamic.js';
