/**
 * Event filters (controller-runtime `pkg/predicate`): a predicate decides, per event kind, whether an event reaches
 * the controller's handler. A missing hook lets events of that kind through. Predicates only read objects.
 * Delete events carry the object's last known state (tombstones are unwrapped before predicates run).
 */
import type { KubeObject } from '../client/types.js';
import { selectorFromLabelSelector, type LabelSelector } from '../labels/label-selector.js';
import { parseSelector } from '../labels/parse-selector.js';
import type { Selector } from '../labels/selector.js';

/**
 * An event filter (controller-runtime's `predicate.Predicate`): one optional hook per event kind, true to let the
 * event through. A missing hook admits; hooks must only read the objects.
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
  generic?(obj: T): boolean;
}

/** The kinds of event a predicate or handler sees (controller-runtime's create, update, delete, generic events). */
export type EventKind = 'create' | 'update' | 'delete' | 'generic';

/** Runs `p`'s hook for an event; a missing hook (or a missing predicate) means "let it through". */
export function admits<T extends KubeObject>(p: Predicate<T>, kind: EventKind, obj: T, oldObj?: T): boolean {
  switch (kind) {
    case 'create':
      return p.create ? p.create(obj) : true;
    case 'update':
      return p.update ? p.update(oldObj ?? obj, obj) : true;
    case 'delete':
      return p.delete ? p.delete(obj) : true;
    case 'generic':
      return p.generic ? p.generic(obj) : true;
  }
}

/** All predicates admit the event (empty list: yes). */
export function admitsAll<T extends KubeObject>(ps: readonly Predicate<T>[], kind: EventKind, obj: T, oldObj?: T): boolean {
  return ps.every((p) => admits(p, kind, obj, oldObj));
}

/** `NewPredicateFuncs`: one filter for every event kind; updates are judged on the new object. */
export function predicateFuncs<T extends KubeObject>(filter: (obj: T) => boolean): Predicate<T> {
  return {
    create: (o) => filter(o),
    update: (_old, o) => filter(o),
    delete: (o) => filter(o),
    generic: (o) => filter(o),
  };
}

/** Updates pass only when `metadata.resourceVersion` changed (drops resync re-deliveries). */
export function resourceVersionChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => o.metadata?.resourceVersion !== n.metadata?.resourceVersion };
}

/**
 * Updates pass only when `metadata.generation` changed, i.e. the spec changed: status- and metadata-only updates are
 * dropped. Objects without a generation (most built-ins without a spec) never pass an update.
 */
export function generationChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => o.metadata?.generation !== n.metadata?.generation };
}

/** Updates pass only when the labels changed (missing and empty label maps are equal). */
export function labelChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => !stringMapsEqual(o.metadata?.labels, n.metadata?.labels) };
}

/** Updates pass only when the annotations changed (missing and empty maps are equal). */
export function annotationChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return { update: (o, n) => !stringMapsEqual(o.metadata?.annotations, n.metadata?.annotations) };
}

/**
 * Every event kind passes only for objects whose labels match `selector` (a selector string, a parsed
 * {@link Selector}, or a metav1 `LabelSelector`). Throws on an invalid selector.
 */
export function labelSelector<T extends KubeObject = KubeObject>(selector: string | Selector | LabelSelector): Predicate<T> {
  const sel = toSelector(selector);
  return predicateFuncs((o) => sel.matches(o.metadata?.labels));
}

/** Every predicate admits (short-circuits). */
export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return combine((results) => results.every((r) => r()), ps);
}

/** At least one predicate admits (short-circuits; no predicates: nothing passes). */
export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return combine((results) => results.some((r) => r()), ps);
}

/** Inverts `p` for every event kind (a missing hook inverts "true" to false). */
export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (o) => !admits(p, 'create', o),
    update: (old, o) => !admits(p, 'update', o, old),
    delete: (o) => !admits(p, 'delete', o),
    generic: (o) => !admits(p, 'generic', o),
  };
}

function combine<T extends KubeObject>(fold: (rs: (() => boolean)[]) => boolean, ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => fold(ps.map((p) => () => admits(p, 'create', o))),
    update: (old, o) => fold(ps.map((p) => () => admits(p, 'update', o, old))),
    delete: (o) => fold(ps.map((p) => () => admits(p, 'delete', o))),
    generic: (o) => fold(ps.map((p) => () => admits(p, 'generic', o))),
  };
}

function toSelector(s: string | Selector | LabelSelector): Selector {
  if (typeof s === 'string') return parseSelector(s);
  if (typeof (s as Selector).matches === 'function') return s as Selector;
  return selectorFromLabelSelector(s as LabelSelector);
}

function stringMapsEqual(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => Object.hasOwn(b ?? {}, k) && a![k] === b![k]);
}
