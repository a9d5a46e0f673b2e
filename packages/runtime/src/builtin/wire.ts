/**
 * `T` with every `Date` turned into `string`: the JSON form of a model that types timestamps as `Date` (as
 * `@kubernetes/client-node`'s do). The runtime's own built-in types (`@kubegen/runtime/api/*`) are already
 * wire-true; this remains for code that still types objects with such models.
 * @deprecated Use the generated types of `@kubegen/runtime/api/<folder>/<version>` (`Wire<V1Pod>` → `Pod`).
 */
export type Wire<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends Record<string, unknown> | object
      ? T extends (...args: never[]) => unknown
        ? T
        : { [K in keyof T]: Wire<T[K]> }
      : T;
