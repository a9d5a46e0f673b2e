/**
 * An explore scenario: the steps a user takes, in order — `apply` (server-side apply by the `scenario` field manager,
 * forced), `delete`, `patch` (JSON merge patch) — and how one step is sent to the control plane. Steps address
 * objects by `apiVersion`, `kind`, `namespace` and `name`; the kind must be served (a CRD given to explore or a
 * built-in resource passed as an extra).
 */
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';

/** A scenario that is not well formed: `step` is the 1-based step at fault (0: the scenario as a whole). */
export class ScenarioError extends TypeError {
  constructor(
    readonly step: number,
    message: string,
  ) {
    super(step > 0 ? `step ${step}: ${message}` : message);
    this.name = 'ScenarioError';
  }
}

/** Which object a `delete` or `patch` step addresses. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** One user action. Exactly one of `apply`, `delete`, `patch` is set. */
export type ScenarioStep = { apply: KubeObject & Record<string, unknown> } | { delete: ObjectRef } | { patch: ObjectRef & { patch: Record<string, unknown> } };

/** The field manager of the scenario's applies. */
export const SCENARIO_FIELD_MANAGER = 'scenario';

/** A one-line description of a step (`apply Foo ns/a`), for reports. */
export function describeStep(step: ScenarioStep): string {
  const [verb, ref] = stepParts(step);
  return `${verb} ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

function stepParts(step: ScenarioStep): ['apply' | 'delete' | 'patch', ObjectRef] {
  if ('apply' in step) {
    const o = step.apply;
    return ['apply', { apiVersion: o.apiVersion ?? '', kind: o.kind ?? '', ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata?.name ?? '' }];
  }
  if ('delete' in step) return ['delete', step.delete];
  return ['patch', step.patch];
}

/**
 * Checks the shape of `steps` (a parsed scenario) and that `served(apiVersion, kind)` for every kind; returns the
 * steps or throws a {@link ScenarioError} naming the step.
 */
export function checkScenario(steps: unknown, served: (apiVersion: string, kind: string) => boolean): ScenarioStep[] {
  if (!Array.isArray(steps) || steps.length === 0) throw new ScenarioError(0, 'a scenario is a non-empty list of steps (- apply: …, - delete: …, - patch: …)');
  steps.forEach((raw, i) => {
    const fail = (message: string): never => {
      throw new ScenarioError(i + 1, message);
    };
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail('not a mapping');
    const keys = Object.keys(raw as object);
    if (keys.length !== 1 || !['apply', 'delete', 'patch'].includes(keys[0]!)) fail(`one of apply, delete, patch (got ${keys.join(', ') || 'nothing'})`);
    const body = (raw as Record<string, unknown>)[keys[0]!];
    if (!body || typeof body !== 'object') fail(`${keys[0]} needs a mapping`);
    const [verb, ref] = stepParts(raw as ScenarioStep);
    if (!ref.apiVersion || !ref.kind || !ref.name) fail(`${verb} needs apiVersion, kind and a name`);
    if (!served(ref.apiVersion, ref.kind)) fail(`${ref.apiVersion} ${ref.kind} is not served (no CRD given for it)`);
    const patch = (body as { patch?: unknown }).patch;
    if (verb === 'patch' && (!patch || typeof patch !== 'object' || Array.isArray(patch))) fail('patch needs a patch mapping');
  });
  return steps as ScenarioStep[];
}

/**
 * Sends `step` through `transport` (the control plane's own, not a controller's; `tracker` resolves its kind). A delete of an object that is already gone
 * and a patch of a missing object are errors: the scenario is wrong.
 */
export async function runStep(transport: Transport, tracker: { resourceFor(apiVersion: string, kind: string): ResourceInfo | undefined }, step: ScenarioStep): Promise<void> {
  const [verb, ref] = stepParts(step);
  const resource = tracker.resourceFor(ref.apiVersion, ref.kind)!;
  const target = { resource, ...(ref.namespace && resource.namespaced ? { namespace: ref.namespace } : {}), name: ref.name };
  if (verb === 'apply') {
    const body = (step as { apply: KubeObject }).apply;
    await transport.request({ verb: 'patch', ...target, patchType: 'apply', body, query: { fieldManager: SCENARIO_FIELD_MANAGER, force: true } });
  } else if (verb === 'delete') {
    await transport.request({ verb: 'delete', ...target });
  } else {
    await transport.request({ verb: 'patch', ...target, patchType: 'merge', body: (step as { patch: { patch: unknown } }).patch.patch });
  }
}
