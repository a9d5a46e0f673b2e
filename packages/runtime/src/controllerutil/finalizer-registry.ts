/**
 * `FinalizerRegistry` (controller-runtime `pkg/finalizer`): named cleanup functions and the bookkeeping around them.
 *
 * `finalize(obj)` mutates `obj` in place and reports what it did; the caller writes the object when `updated`:
 * - object not being deleted: every registered finalizer missing from it is added;
 * - object being deleted: each registered finalizer present on it runs (in registration order); when it succeeds its
 *   name is removed from the object, when it throws the name stays (so the apiserver keeps the object) and the error
 *   is collected in `error` (an AggregateError), to be retried by the caller's next reconcile.
 */
import type { KubeObject } from '../client/types.js';
import { addFinalizer, containsFinalizer, isBeingDeleted, removeFinalizer } from './finalizers.js';

/** What a finalizer function may report: it changed the object (`updated`) or its status (`statusUpdated`). */
export interface FinalizerResult {
  updated?: boolean;
  statusUpdated?: boolean;
}

/** A cleanup step run while the object is being deleted. Throw (or reject) to keep the finalizer and retry later. */
export type FinalizerFn<T extends KubeObject = KubeObject> = (obj: T) => FinalizerResult | void | Promise<FinalizerResult | void>;

/** What `FinalizerRegistry.finalize` did to the object, and so what the caller must write (object and/or status). */
export interface FinalizeResult {
  /** The object's metadata (finalizers) or spec changed: write it. */
  updated: boolean;
  /** A finalizer changed the status: write the status. */
  statusUpdated: boolean;
  /** Finalizers added to an object not being deleted. */
  added: string[];
  /** Finalizers whose cleanup succeeded and that were removed from the object. */
  removed: string[];
  /** The failures, one per finalizer that threw; undefined when all succeeded. */
  error: AggregateError | undefined;
}

/**
 * Named finalizers and their cleanup functions (controller-runtime's `finalizer.Finalizers`): `register` them once,
 * then call `finalize(obj)` in every reconcile and write the object when the result says so.
 */
export class FinalizerRegistry<T extends KubeObject = KubeObject> {
  private readonly finalizers = new Map<string, FinalizerFn<T>>();

  /** Registers `fn` under the finalizer `name` (e.g. `example.com/cleanup`); a name can be registered once. */
  register(name: string, fn: FinalizerFn<T>): this {
    if (this.finalizers.has(name)) throw new Error(`finalizer for key "${name}" already registered`);
    this.finalizers.set(name, fn);
    return this;
  }

  names(): string[] {
    return [...this.finalizers.keys()];
  }

  async finalize(obj: T): Promise<FinalizeResult> {
    const result: FinalizeResult = { updated: false, statusUpdated: false, added: [], removed: [], error: undefined };
    const errors: Error[] = [];
    const deleting = isBeingDeleted(obj);
    for (const [name, fn] of this.finalizers) {
      if (!deleting) {
        if (addFinalizer(obj, name)) {
          result.added.push(name);
          result.updated = true;
        }
        continue;
      }
      if (!containsFinalizer(obj, name)) continue;
      let out: FinalizerResult | void;
      try {
        out = await fn(obj);
      } catch (err) {
        // A failing finalizer may still have changed the object (e.g. set a condition), as in controller-runtime.
        const partial = (err as { result?: FinalizerResult } | undefined)?.result;
        result.updated ||= partial?.updated ?? false;
        result.statusUpdated ||= partial?.statusUpdated ?? false;
        const cause = err instanceof Error ? err : new Error(String(err));
        errors.push(new Error(`finalizer "${name}" failed: ${cause.message}`, { cause }));
        continue;
      }
      removeFinalizer(obj, name);
      result.removed.push(name);
      result.updated = true;
      result.statusUpdated ||= out?.statusUpdated ?? false;
    }
    if (errors.length > 0) result.error = new AggregateError(errors, errors.map((e) => e.message).join('; '));
    return result;
  }
}
