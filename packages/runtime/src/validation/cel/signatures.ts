/**
 * Function signatures for the checker: every function a rule may call (CEL's standard definitions that
 * `@bufbuild/cel` evaluates, and the Kubernetes libraries in `library/`) with its argument and result types, so that
 * a rule calling an unknown function or passing the wrong types fails to compile, as on the apiserver.
 */
import { type CelT, DYN, BOOL, INT, UINT, DOUBLE, STRING, BYTES, TIMESTAMP, DURATION, TYPE, listOf, mapOf } from './decl.js';

export interface Signature {
  name: string;
  /** The receiver type of a method (`x.f()`); absent for a global function. */
  target?: CelT;
  args: CelT[];
  /** The result type, or a function of the actual target and argument types (type-parameterised overloads). */
  result: CelT | ((target: CelT | undefined, args: CelT[]) => CelT);
}

const LIST_DYN = listOf(DYN);
const MAP_DYN = mapOf(DYN, DYN);

const fn = (name: string, args: CelT[], result: Signature['result']): Signature => ({ name, args, result });
const method = (target: CelT, name: string, args: CelT[], result: Signature['result']): Signature => ({ name, target, args, result });

const TIME_GETTERS = ['getFullYear', 'getMonth', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
const DURATION_GETTERS = ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];

/** CEL's standard definitions (the part not written as operators; the checker types operators itself). */
export const STANDARD_SIGNATURES: Signature[] = [
  ...[STRING, BYTES, LIST_DYN, MAP_DYN].flatMap((t) => [fn('size', [t], INT), method(t, 'size', [], INT)]),
  method(STRING, 'contains', [STRING], BOOL),
  method(STRING, 'startsWith', [STRING], BOOL),
  method(STRING, 'endsWith', [STRING], BOOL),
  method(STRING, 'matches', [STRING], BOOL),
  fn('matches', [STRING, STRING], BOOL),
  ...[INT, UINT, DOUBLE, STRING, TIMESTAMP, DURATION].map((t) => fn('int', [t], INT)),
  ...[INT, UINT, DOUBLE, STRING].map((t) => fn('uint', [t], UINT)),
  ...[INT, UINT, DOUBLE, STRING].map((t) => fn('double', [t], DOUBLE)),
  ...[INT, UINT, DOUBLE, STRING, BYTES, BOOL, TIMESTAMP, DURATION].map((t) => fn('string', [t], STRING)),
  ...[STRING, BYTES].map((t) => fn('bytes', [t], BYTES)),
  ...[BOOL, STRING].map((t) => fn('bool', [t], BOOL)),
  ...[STRING, DURATION].map((t) => fn('duration', [t], DURATION)),
  ...[STRING, TIMESTAMP, INT].map((t) => fn('timestamp', [t], TIMESTAMP)),
  fn('dyn', [DYN], DYN),
  fn('type', [DYN], TYPE),
  ...TIME_GETTERS.flatMap((g) => [method(TIMESTAMP, g, [], INT), method(TIMESTAMP, g, [STRING], INT)]),
  ...DURATION_GETTERS.map((g) => method(DURATION, g, [], INT)),
];
