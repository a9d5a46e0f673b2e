/**
 * The control plane a run talks to. In-process (the default), each run gets a fresh fake control plane built from the
 * CRDs (`fakePlane`); on envtest (envtest-plane.ts), each run gets a fresh namespace of one real apiserver. The runner
 * sees only this interface: where the managers send their requests, how a scenario step is sent, how garbage is
 * collected, what the state is, and how a stale view of it is made.
 */
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';
import { newFakeTransportFromCrds } from '../fake/fake-validation.js';
import type { FakeResource } from '../fake/fake-resource.js';
import type { ValidatedCrd } from '../../validation/index.js';
import { collectGarbage } from './gc.js';
import { runStep, type ScenarioStep } from './scenario.js';
import { staleView } from './stale.js';
import { trackedObjects } from './tracked-objects.js';
import type { FakeTransport } from '../fake/fake-transport.js';

/** One run's control plane (see the module comment). */
export interface RunPlane {
  /** What a manager's fault transport forwards to. */
  readonly transport: Transport;
  /** Wraps the transport a manager is given (envtest: confines its lists and watches to the run's namespace). */
  scope(t: Transport): Transport;
  /** The newest resourceVersion, when it is cheap to read (in-process); crash points are then deduplicated. */
  readonly revision?: () => string;
  /** Sends a scenario step (as the user, not through a manager). */
  runStep(step: ScenarioStep): Promise<void>;
  /** Deletes every object all of whose owners are gone (gc.ts); returns how many. */
  collectGarbage(): Promise<number>;
  /** Every object of the run now (Events excluded), in the scenario's namespaces. */
  state(): Promise<KubeObject[]>;
  /** A frozen view of `objects` (taken with `rawState`), for the `stale` fault. */
  staleView(objects: readonly KubeObject[]): Promise<Transport>;
  /** Every object of the run now, as the control plane names them (for `staleView`). */
  rawState(): Promise<KubeObject[]>;
  /** Ends the run (envtest: starts deleting its namespace). */
  dispose(): Promise<void>;
}

/** What a plane needs to know of the run. */
export interface PlaneInput {
  crds: readonly ValidatedCrd[];
  builtins: readonly FakeResource[];
}

/** A fresh in-process fake control plane serving `crds` and `builtins`. */
export async function fakePlane(input: PlaneInput): Promise<RunPlane> {
  const fake = await newFakeTransportFromCrds(input.crds, [], { extraResources: input.builtins });
  const state = async (): Promise<KubeObject[]> => endState(fake);
  return {
    transport: fake,
    scope: (t) => t,
    revision: () => fake.tracker.resourceVersion,
    runStep: (step) => runStep(fake, fake.tracker, step),
    collectGarbage: async () => collectGarbage(fake.tracker),
    state,
    rawState: state,
    staleView: (objects) => staleView(input.crds, input.builtins, objects),
    dispose: async () => undefined,
  };
}

/** The resources of `crds` (every served version), as a run addresses them. */
export function crdResources(crds: readonly ValidatedCrd[]): ResourceInfo[] {
  return crds.flatMap((c) =>
    c.spec.versions
      .filter((v) => v.served !== false)
      .map((v) => ({
        group: c.spec.group,
        version: v.name,
        resource: c.spec.names.plural ?? `${c.spec.names.kind.toLowerCase()}s`,
        kind: c.spec.names.kind,
        listKind: `${c.spec.names.kind}List`,
        namespaced: c.spec.scope !== 'Cluster',
      })),
  );
}

/** Every object of every served kind (Events and CRDs excluded: tracked-objects.ts), from the tracker. */
export function endState(fake: FakeTransport): KubeObject[] {
  return trackedObjects(fake.tracker).map((e) => e.object);
}
