/**
 * What the fake transport records for each request (client-go's `testing.Action`) and the reactors that can answer
 * a request instead of the tracker (client-go's `testing.Reactor`), for asserting "expected a create of
 * deployments" and for injecting errors.
 */
import type { PatchType, QueryValue, ResourceRequest, Verb } from '../../client/types.js';

/**
 * One request as the fake transport recorded it (client-go's `testing.Action`): verb, resource, namespace, name,
 * subresource, the body sent and the query parameters that were set.
 */
export interface FakeAction {
  verb: Verb;
  /** The plural resource, e.g. `deployments`. */
  resource: string;
  group: string;
  version: string;
  /** `''` for cluster-scoped resources and all-namespace requests. */
  namespace: string;
  /** `''` for list, watch, deletecollection and create. */
  name: string;
  /** `status`, `scale`, or `''`. */
  subresource: string;
  /** `'metadata'` for a metadata-only read (`ResourceRequest.as`). */
  as?: 'metadata';
  /** The object sent by create and update (and apply, whose `patchType` is `apply`). */
  object?: unknown;
  /** The patch document of a patch (for `apply`, also in `object`). */
  patch?: unknown;
  patchType?: PatchType;
  /** The DeleteOptions body of delete and deletecollection. */
  deleteOptions?: Record<string, unknown>;
  /** Query parameters that were set (label/field selectors, dryRun, resourceVersion, ...). */
  query: Record<string, Exclude<QueryValue, undefined>>;
}

/** A reactor's answer: `handled: false` (or `undefined`) passes the request on to the next reactor / the tracker. */
export interface Reaction {
  handled: boolean;
  /** The response body (for a watch: a `Watch`). */
  result?: unknown;
  /** Thrown to the caller when set (use an `ApiError` to look like the apiserver). */
  error?: unknown;
}

/** Answers a matching request (it gets a copy of the action), or returns `undefined`/`handled: false` to pass. */
export type ReactionFunc = (action: FakeAction) => Reaction | undefined | Promise<Reaction | undefined>;

/** A registered reaction (client-go's `testing.Reactor`): the verb and resource it matches, and what it does. */
export interface Reactor {
  verb: Verb | '*';
  /** `*`, a plural (`foos`, matching the resource and all its subresources) or `foos/status`. */
  resource: string;
  react: ReactionFunc;
}

/** Whether an action is for this verb (or `*`) and resource (`*`, `foos`, or `foos/status`). */
export function actionMatches(action: FakeAction, verb: Verb | '*', resource: string): boolean {
  if (verb !== '*' && verb !== action.verb) return false;
  if (resource === '*') return true;
  const slash = resource.indexOf('/');
  if (slash < 0) return resource === action.resource;
  return resource.slice(0, slash) === action.resource && resource.slice(slash + 1) === action.subresource;
}

/** The action a request records; bodies are deep-copied so later mutation by the caller does not change it. */
export function actionFor(req: ResourceRequest): FakeAction {
  const query: FakeAction['query'] = {};
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) query[k] = v;
  const action: FakeAction = {
    verb: req.verb,
    resource: req.resource.resource,
    group: req.resource.group,
    version: req.resource.version,
    namespace: req.namespace ?? '',
    name: req.name ?? '',
    subresource: req.subresource ?? '',
    query,
  };
  if (req.as) action.as = req.as;
  const body = req.body === undefined ? undefined : structuredClone(req.body);
  if (req.verb === 'create' || req.verb === 'update') action.object = body;
  if (req.verb === 'patch') {
    action.patch = body;
    action.patchType = req.patchType ?? 'merge';
    if (action.patchType === 'apply') action.object = structuredClone(body);
  }
  if (req.verb === 'delete' || req.verb === 'deletecollection') action.deleteOptions = body as Record<string, unknown> | undefined;
  return action;
}
