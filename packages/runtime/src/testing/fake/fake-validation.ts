/**
 * Schema validation of the fake's writes: a tracker given a `TrackerValidation` checks every create, update, patch
 * and apply of a custom resource against its CRD as the apiserver does (`@kubegen/runtime/validation`: pruning,
 * defaulting, OpenAPI schema, list types, metadata names, CEL rules with `oldSelf` on update), and status writes
 * against the status schema, so a unit test fails where the server would refuse. The validation code is imported
 * only when a validation is built.
 */
import type { KubeObject, ResourceInfo } from '../../client/types.js';
import type { CompileRules, ValidatedCrd, WriteOperation } from '../../validation/index.js';
import { fakeResourcesFromCrds } from './fake-crd.js';
import type { FakeResource } from './fake-resource.js';
import { FakeTransport } from './fake-transport.js';
import { ObjectTracker, type ObjectTrackerOptions } from './object-tracker.js';
import type { TrackerValidation } from './tracker-hooks.js';

export type { TrackerValidation } from './tracker-hooks.js';

/** Validation of the custom resources of these CRDs (their CEL rules through `compileRules`, or the runtime's CEL layer). */
export async function crdValidation(crds: readonly ValidatedCrd[], options: { compileRules?: CompileRules } = {}): Promise<TrackerValidation> {
  const { createValidator } = await import('../../validation/index.js');
  const validators = new Map<string, Awaited<ReturnType<typeof createValidator>>>();
  for (const crd of crds) {
    const v = await createValidator(crd, options);
    validators.set(`${v.group}/${v.kind}`, v);
  }
  return {
    validate(res, operation, obj, old, merged) {
      const v = validators.get(`${res.group}/${res.kind}`);
      if (!v) return undefined;
      const r = v.validate(obj, { operation, ...(old ? { old } : {}), ...(merged ? { merged } : {}) });
      return { object: r.object as KubeObject, causes: r.errors.map((e) => ({ type: e.reason, field: e.path, message: e.message })) };
    },
  };
}

/** Options of {@link newFakeTransportFromCrds}. */
export interface FakeFromCrdsOptions {
  /** Validate writes against the CRDs' schemas (default true). */
  validate?: boolean;
  /** The CEL layer to evaluate `x-kubernetes-validations` with (default: the runtime's). */
  compileRules?: CompileRules;
  /** More resources to serve (built-in kinds), not validated. */
  extraResources?: readonly FakeResource[];
  /** Tracker options (clock, UIDs, watch history). */
  tracker?: ObjectTrackerOptions;
}

/**
 * A fake transport serving the CRDs' versions, seeded with `objects` (seeds are stored as given, as client-go's
 * tracker does), whose writes are validated against the CRDs unless `validate: false`.
 */
export async function newFakeTransportFromCrds(crds: readonly ValidatedCrd[], objects: readonly KubeObject[] = [], options: FakeFromCrdsOptions = {}): Promise<FakeTransport> {
  const tracker = new ObjectTracker(options.tracker);
  tracker.register(...(options.extraResources ?? []), ...fakeResourcesFromCrds(crds as never));
  tracker.add(...objects);
  if (options.validate !== false) tracker.validation = await crdValidation(crds, options.compileRules ? { compileRules: options.compileRules } : {});
  return new FakeTransport(tracker);
}
