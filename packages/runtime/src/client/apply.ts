/**
 * Typed server-side apply (client-go's `applyconfigurations`, in TypeScript's idiom): the types an apply
 * configuration is made of, and the field manager an apply uses when the caller names none.
 *
 * An apply configuration is the part of an object one field manager means to own: every field optional, at every
 * depth, except what the apiserver needs to place it — `apiVersion`, `kind`, `metadata.name`, and the keys of each
 * entry of an associative list (`x-kubernetes-list-type: map`). Generated `applyconfigurations.ts` modules spell a
 * kind's configuration out (`FooApply`, with its list-map keys required) and give a constructor (`fooApply(name,
 * namespace?)`); the generic types here are what they are built from.
 */
import * as path from 'node:path';
import type { OwnerReference } from './types.js';

/**
 * The deep-partial form of `T` a field manager applies: every property optional, recursively through objects,
 * arrays and maps; primitives as they are. For types the generator does not spell out (the runtime's core types
 * such as `Container`) list-map keys are optional here too: the apiserver answers an entry without its key with a
 * 422, it is not caught at compile time.
 */
export type ApplyConfiguration<T> = T extends readonly (infer E)[]
  ? ApplyConfiguration<E>[]
  : T extends object
    ? { [K in keyof T]?: ApplyConfiguration<T[K]> }
    : T;

/**
 * An entry of an associative list (`x-kubernetes-list-type: map`) in an apply configuration: `T` with the list's
 * keys `K` required (a key the apiserver defaults is left optional by the generator). Entries are merged by key: two
 * managers applying entries with different keys each own theirs.
 */
export type ListMapEntry<T, K extends string> = T & { [P in K]-?: P extends keyof T ? Exclude<T[P], undefined> : unknown };

/**
 * The metadata of an apply configuration: `name` required, and what a field manager may own besides — labels,
 * annotations, owner references, finalizers. `namespace` may be left out when the client is bound to one.
 * `resourceVersion`, when given, is a precondition (409 Conflict if the object changed since).
 */
export interface ApplyObjectMeta {
  name: string;
  namespace?: string;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  resourceVersion?: string;
}

/** What a typed client's `apply` needs of any apply configuration: where the object is (`metadata.name`). */
export interface ApplyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}

/** The field manager when the program's name cannot be told (a REPL, `node -e`). */
export const FALLBACK_FIELD_MANAGER = 'kubegen';

/** The apiserver refuses field managers longer than this. */
const MAX_FIELD_MANAGER = 128;

/**
 * The field manager server-side apply uses when neither the call (`ApplyOptions.fieldManager`) nor the transport
 * (`TransportOptions.fieldManager`, `FakeTransport.fieldManager`) names one: the program's name, as
 * controller-runtime and client-go take it from `os.Args[0]` — the basename of the main script without its
 * extension (`node dist/main.js` → `main`, `/usr/bin/foo-controller` → `foo-controller`), cut to 128 characters;
 * {@link FALLBACK_FIELD_MANAGER} when there is no script. This is the one place the default is decided.
 */
export function defaultFieldManager(mainScript: string | undefined = process.argv[1]): string {
  if (!mainScript) return FALLBACK_FIELD_MANAGER;
  const base = path.basename(mainScript);
  const ext = path.extname(base);
  // Printable ASCII only, as the apiserver's validation wants.
  const name = (ext && ext !== base ? base.slice(0, -ext.length) : base).replace(/[^\x20-\x7e]/g, '');
  return name.slice(0, MAX_FIELD_MANAGER) || FALLBACK_FIELD_MANAGER;
}
