/**
 * The CEL layer of CRD validation: compiles a schema node's `x-kubernetes-validations` and evaluates them as the
 * apiserver does. See ../types.ts for the contract with the structural-schema validator.
 */
import type { CompileRules, CompiledRules, StructuralSchema } from '../types.js';
import { compileNodeRules } from './rules.js';

/**
 * Compiles the rules of one schema node; at the root of a custom resource pass `{ resourceRoot: true }` (or use
 * {@link compileRootRules}).
 */
export const compileRules: CompileRules = (node, options) => compileNodeRules(node, options?.resourceRoot === true);

/**
 * Compiles the rules at the root of a custom resource's schema, where `apiVersion`, `kind`, `metadata.name` and
 * `metadata.generateName` are visible to rules whether or not the schema lists them.
 */
export function compileRootRules(node: StructuralSchema): CompiledRules {
  return compileNodeRules(node, true);
}
