/**
 * The CEL environment rules run in: `@bufbuild/cel`'s standard definitions and strings extension plus the Kubernetes
 * libraries, with the checker's view of the same functions derived from their declarations.
 */
import { celEnv, type CelEnv, type CelFunc, type CelType } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { STANDARD_SIGNATURES, type Signature } from './signatures.js';
import { LIBRARY, LIBRARY_RESULT_TYPES, libraryRegistry } from './library/index.js';
import { TWO_VAR_FUNCS } from './macros.js';
import { SEMANTIC_FUNCS } from './semantic-lists.js';
import { OPTIONAL_FUNCS, OPTIONAL_RESULT_TYPES } from './optional.js';
import { type CelT, DYN, TIMESTAMP, DURATION, listOf, mapOf, opaque, optionalOf, scalar, type Scalar } from './decl.js';

/** The checker's type of a `@bufbuild/cel` declared type. */
export function fromBufType(t: CelType): CelT {
  switch (t.kind) {
    case 'scalar':
      return t.name === 'dyn' ? DYN : scalar(t.name as Scalar);
    case 'list':
      return listOf(fromBufType(t.element));
    case 'map':
      return mapOf(fromBufType(t.key), fromBufType(t.value));
    case 'object':
      return t.name === 'google.protobuf.Timestamp' ? TIMESTAMP : t.name === 'google.protobuf.Duration' ? DURATION : opaque(t.name);
  }
}

function signatureOf(f: CelFunc): Signature {
  const result = LIBRARY_RESULT_TYPES.get(f) ?? fromBufType(f.result);
  return {
    name: f.name,
    ...(f.target ? { target: fromBufType(f.target) } : {}),
    args: f.arguments.map(fromBufType),
    result,
  };
}

/** The optional functions take and give optionals, which their declarations can only call maps. */
function optionalSignatureOf(f: CelFunc): Signature {
  const asOptional = (t: CelType): CelT => (t.kind === 'map' ? optionalOf(DYN) : fromBufType(t));
  return {
    name: f.name,
    ...(f.target ? { target: asOptional(f.target) } : {}),
    args: f.arguments.map(asOptional),
    result: OPTIONAL_RESULT_TYPES.get(f.name) ?? asOptional(f.result),
  };
}

export interface RuleEnv {
  env: CelEnv;
  signatures: readonly Signature[];
}

let cached: RuleEnv | undefined;

/** The one environment all rules share (built on first use). */
export function ruleEnv(): RuleEnv {
  if (!cached) {
    const funcs = [...strings, ...LIBRARY, ...TWO_VAR_FUNCS, ...SEMANTIC_FUNCS];
    cached = {
      env: celEnv({ funcs: [...funcs, ...OPTIONAL_FUNCS], registry: libraryRegistry() }),
      signatures: [...STANDARD_SIGNATURES, ...funcs.map(signatureOf), ...OPTIONAL_FUNCS.map(optionalSignatureOf)],
    };
  }
  return cached;
}
