/**
 * `@kubernetes/client-node`'s models type timestamps as `Date`, but on the wire (and in everything this runtime
 * hands out: it never runs client-node's ObjectSerializer) they are RFC 3339 strings. `Wire<T>` is the model with
 * every `Date` (and `V1MicroTime`, a Date subclass) turned into `string`, i.e. the JSON the apiserver sends.
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
