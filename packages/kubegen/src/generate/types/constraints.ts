import type { JSONSchemaProps } from '../../model/index.js';

const MAX_NOTE = 400;

/**
 * JSDoc notes for `oneOf`/`anyOf`/`allOf`/`not` used as validation constraints on a typed schema (e.g. the
 * required-only "exactly one of" selectors, Istio's protobuf "at most one of" pattern). Such constraints are
 * documented, never turned into type unions: the type stays the plain object with optional fields.
 * Branches that carry a `type` are type unions and handled by the resolver, not here.
 */
export function describeConstraint(s: JSONSchemaProps): string[] {
  const notes: string[] = [];
  const isConstraint = (list: JSONSchemaProps[] | undefined): list is JSONSchemaProps[] =>
    list !== undefined && list.length > 0 && list.every((b) => b.type === undefined && !b['x-kubernetes-int-or-string']);
  if (isConstraint(s.oneOf)) notes.push(cap(`Validation: exactly one of ${s.oneOf.map(branch).join(', ')} must hold.`));
  if (isConstraint(s.anyOf)) notes.push(cap(`Validation: at least one of ${s.anyOf.map(branch).join(', ')} must hold.`));
  if (isConstraint(s.allOf)) notes.push(cap(`Validation: all of ${s.allOf.map(branch).join(', ')} must hold.`));
  if (s.not && s.not.type === undefined) notes.push(cap(`Validation: must not match ${branch(s.not)}.`));
  return notes;
}

function branch(b: JSONSchemaProps): string {
  const parts: string[] = [];
  if (b.required && b.required.length) parts.push(`has ${b.required.map((r) => `\`${r}\``).join(' and ')}`);
  if (b.not) parts.push(`not ${branch(b.not)}`);
  if (b.anyOf) parts.push(`any of ${b.anyOf.map(branch).join(', ')}`);
  if (b.oneOf) parts.push(`one of ${b.oneOf.map(branch).join(', ')}`);
  if (b.allOf) parts.push(`all of ${b.allOf.map(branch).join(', ')}`);
  if (b.properties) parts.push(`constraints on ${Object.keys(b.properties).map((p) => `\`${p}\``).join(', ')}`);
  if (parts.length === 0) parts.push('{}');
  return `(${parts.join('; ')})`;
}

function cap(s: string): string {
  return s.length > MAX_NOTE ? `${s.slice(0, MAX_NOTE - 3)}...` : s;
}
