/**
 * TypeScript type syntax → structural schema, controller-gen's rules transposed: a field is required unless it is
 * optional (`?`, `| undefined`, `+optional`) or its folder says fields are optional by default (package-level
 * `+kubebuilder:validation:Optional`; `+required` still makes one required); string-literal unions are enums; `number` must say its width through the
 * runtime aliases (`int32`, `int64`, `integer`, `float64`); `Record<string, T>` and index signatures are maps; JSDoc
 * text is the description and JSDoc markers add validation. Anything that cannot be a structural schema is an
 * `InputError` naming the construct and its file:line:column.
 */
import { Node, SyntaxKind } from 'ts-morph';
import type { JSDocableNode, PropertySignature, SourceFile, TypeNode } from 'ts-morph';
import { InputError } from '../../model/index.js';
import type { JSONSchemaProps, SourceLocation } from '../../model/index.js';
import { builtinDefinitionId, builtinSchema } from '../../builtin-api/schemas.js';
import { runtimeTypeSchema } from '../../model/known-types.js';
import { CORE_TYPES } from '../../model/core-types.js';
import { parseDocComment } from './markers.js';
import type { DocComment, Marker } from './markers.js';
import { Resolver } from './resolve.js';
import type { Declaration } from './resolve.js';
import { DEFAULT_MODE_MARKERS, isLeading } from './package-markers.js';
import { applySchemaMarkers, FIELD_MARKERS, SCHEMA_MARKERS, TYPE_ONLY_MARKERS } from './schema-markers.js';

/** Markers that may sit on a root kind's declaration besides schema markers (read by the kind builder). */
export const KIND_MARKERS: ReadonlySet<string> = new Set([
  'kubebuilder:object:root', 'genclient', 'genclient:nonNamespaced', 'genclient:noStatus', 'kubebuilder:resource',
  'kubebuilder:subresource:status', 'kubebuilder:subresource:scale', 'kubebuilder:printcolumn', 'kubebuilder:storageversion',
  'kubebuilder:deprecatedversion', 'kubebuilder:unservedversion', 'kubebuilder:skipversion', 'kubebuilder:selectablefield',
  'kubebuilder:metadata', 'kubebuilder:skip', 'kubegen:conversion',
]);
const TYPE_MARKERS: ReadonlySet<string> = new Set([...SCHEMA_MARKERS, ...TYPE_ONLY_MARKERS, ...KIND_MARKERS]);
/** Markers read elsewhere (package level, RBAC) and ignored on declarations. */
const ELSEWHERE = new Set(['groupName', 'groupGoName', 'versionName', 'kubebuilder:rbac', 'kubebuilder:webhook']);

export function locate(node: Node, file: string = node.getSourceFile().getFilePath()): SourceLocation {
  const sf = node.getSourceFile();
  const { line, column } = sf.getLineAndColumnAtPos(node.getStart());
  return { file, line, column };
}

export class SchemaBuilder {
  private readonly cache = new Map<Declaration, JSONSchemaProps>();
  private readonly stack: Declaration[] = [];
  private readonly docs = new Map<Node, DocComment>();

  constructor(
    readonly resolver: Resolver,
    /** Maps an absolute file path to the name used in messages. */
    readonly display: (file: string) => string,
    /** Whether fields declared in `file` are optional unless marked (package-level `+kubebuilder:validation:Optional`). */
    readonly optionalByDefault: (file: SourceFile) => boolean = () => false,
  ) {}

  loc(node: Node): SourceLocation {
    return locate(node, this.display(node.getSourceFile().getFilePath()));
  }

  error(node: Node, detail: string): InputError {
    return new InputError(this.loc(node), detail);
  }

  /** The JSDoc of a node: description and markers (all JSDoc blocks attached to it). */
  doc(node: Node & JSDocableNode): DocComment {
    let d = this.docs.get(node);
    if (!d) {
      // TypeScript attaches a JSDoc only when it starts a line; `{ /** doc */ a: T }` is read from the comment ranges.
      let blocks = node.getJsDocs().map((j) => ({ text: j.getText(), pos: j.getStart() }));
      if (blocks.length === 0) {
        const trivia = node.getSourceFile().getFullText().slice(node.getPos(), node.getStart());
        for (const m of trivia.matchAll(/\/\*\*[\s\S]*?\*\//g)) blocks.push({ text: m[0], pos: node.getPos() + m.index });
      }
      const parts = blocks.map((b) => {
        const { line, column } = node.getSourceFile().getLineAndColumnAtPos(b.pos);
        return parseDocComment(b.text, this.display(node.getSourceFile().getFilePath()), line, column);
      });
      d = { description: parts.map((p) => p.description).filter(Boolean).join('\n\n'), markers: parts.flatMap((p) => p.markers) };
      this.docs.set(node, d);
    }
    return d;
  }

  /** Checks every marker on `node` is allowed there. */
  checkPlacement(markers: readonly Marker[], allowed: ReadonlySet<string>, where: string): void {
    for (const m of markers) {
      if (!allowed.has(m.name) && !ELSEWHERE.has(m.name)) throw new InputError(m.loc, `marker +${m.name} is not allowed on ${where}`);
    }
  }

  /** The schema of a named declaration (interface, type alias, enum) with its type-level markers applied. */
  declSchema(decl: Declaration): JSONSchemaProps {
    const cached = this.cache.get(decl);
    if (cached) return structuredClone(cached);
    if (this.stack.includes(decl)) throw this.error(decl, `recursive type ${decl.getName()} cannot be a structural schema (mark the field +kubebuilder:pruning:PreserveUnknownFields and type it unknown)`);
    this.stack.push(decl);
    try {
      const tp = Node.isEnumDeclaration(decl) ? [] : decl.getTypeParameters();
      if (tp.length > 0) throw this.error(decl, `generic type ${decl.getName()}<${tp.map((t) => t.getName()).join(', ')}> cannot be a schema (use a concrete type)`);
      const doc = this.doc(decl);
      // A leading JSDoc block is package level even when TypeScript attaches it to the file's first declaration.
      const sf = decl.getSourceFile();
      const misplaced = doc.markers.find((m) => DEFAULT_MODE_MARKERS.has(m.name) && !isLeading(sf, m.loc));
      if (misplaced) throw new InputError(misplaced.loc, `marker +${misplaced.name} is not allowed on type ${decl.getName()} (put it on a field, or in the leading JSDoc block of a file to set the folder's default)`);
      this.checkPlacement(doc.markers.filter((m) => !DEFAULT_MODE_MARKERS.has(m.name)), TYPE_MARKERS, `type ${decl.getName()}`);
      let schema: JSONSchemaProps;
      if (Node.isInterfaceDeclaration(decl)) schema = this.objectSchema(decl, decl.getSourceFile());
      else if (Node.isTypeAliasDeclaration(decl)) schema = this.typeSchema(decl.getTypeNodeOrThrow(), decl.getSourceFile());
      else schema = this.enumSchema(decl);
      if (doc.description) schema.description = doc.description;
      applySchemaMarkers(schema, doc.markers);
      this.cache.set(decl, schema);
      return structuredClone(schema);
    } finally {
      this.stack.pop();
    }
  }

  private enumSchema(decl: Declaration & Node): JSONSchemaProps {
    if (!Node.isEnumDeclaration(decl)) throw this.error(decl, 'expected an enum');
    const values = decl.getMembers().map((m) => {
      const v = m.getValue();
      if (typeof v !== 'string') throw this.error(m, `enum member ${m.getName()} must have a string value`);
      return v;
    });
    return { type: 'string', enum: values };
  }

  /** Interface or type literal: properties, required list, index signature. */
  objectSchema(node: Node, file: SourceFile): JSONSchemaProps {
    if (Node.isInterfaceDeclaration(node)) {
      let schema = this.membersSchema(node.getMembers(), file);
      for (const h of node.getExtends()) {
        const base = this.resolver.resolve(file, h.getExpression().getText());
        let s: JSONSchemaProps;
        // A core type of the runtime (`interface ScriptTemplate extends Container { source: string }`), imported from
        // the root or from its group version's entry point (`@kubegen/runtime/api/core/v1`).
        const core = base.k === 'runtime' || base.k === 'builtin'
          ? CORE_TYPES.find((c) => c.name === base.name && (base.k === 'runtime' || c.definition === `io.k8s.api.${base.dir.replace('/', '.')}.${base.name}`))
          : undefined;
        if (core) s = this.runtimeSchema(core.name, h);
        else if (base.k === 'decl' && Node.isInterfaceDeclaration(base.decl)) s = this.declSchema(base.decl);
        else throw this.error(h, `cannot extend ${h.getText()}: only interfaces declared in the apis folder and the core types of @kubegen/runtime can be extended`);
        delete s.description;
        schema = this.mergeObject(s, schema, h);
      }
      return schema;
    }
    if (Node.isTypeLiteral(node)) return this.membersSchema(node.getMembers(), file);
    throw this.error(node, `unsupported object type ${node.getKindName()}`);
  }

  private runtimeSchema(name: string, node: Node): JSONSchemaProps {
    const s = runtimeSchemaOf(name);
    if (!s) throw this.error(node, `${name} from @kubegen/runtime cannot be used in a schema`);
    return s;
  }

  private mergeObject(base: JSONSchemaProps, own: JSONSchemaProps, at: Node): JSONSchemaProps {
    if (base.type !== 'object' || base.additionalProperties !== undefined) throw this.error(at, 'only object interfaces can be extended');
    const props: Record<string, JSONSchemaProps> = {};
    for (const [k, v] of [...Object.entries(base.properties ?? {}), ...Object.entries(own.properties ?? {})]) {
      Object.defineProperty(props, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    const required = [...new Set([...(base.required ?? []), ...(own.required ?? [])])].filter((r) => !(own.properties?.[r] && !(own.required ?? []).includes(r)));
    const out: JSONSchemaProps = { type: 'object', properties: props };
    if (required.length) out.required = required;
    if (own['x-kubernetes-preserve-unknown-fields'] || base['x-kubernetes-preserve-unknown-fields']) out['x-kubernetes-preserve-unknown-fields'] = true;
    return out;
  }

  private membersSchema(members: Node[], file: SourceFile): JSONSchemaProps {
    const properties: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    let index: JSONSchemaProps | undefined;
    let indexNode: Node | undefined;
    for (const m of members) {
      if (Node.isPropertySignature(m)) {
        const { name, schema, isRequired } = this.property(m, file);
        // An own property even for `__proto__` (a plain assignment would set the prototype and lose the field).
        Object.defineProperty(properties, name, { value: schema, enumerable: true, writable: true, configurable: true });
        if (isRequired) required.push(name);
      } else if (Node.isIndexSignatureDeclaration(m)) {
        const keyType = m.getKeyTypeNode();
        if (keyType.getKind() !== SyntaxKind.StringKeyword) throw this.error(m, 'index signatures must have string keys');
        index = this.typeSchema(m.getReturnTypeNodeOrThrow(), file);
        indexNode = m;
      } else if (Node.isMethodSignature(m) || Node.isCallSignatureDeclaration(m) || Node.isConstructSignatureDeclaration(m)) {
        throw this.error(m, `method ${m.getText().split(/[(<]/)[0]!.trim() || '()'} cannot be part of a schema (only data fields are allowed)`);
      } else {
        throw this.error(m, `unsupported member ${m.getKindName()} in a schema type`);
      }
    }
    const schema: JSONSchemaProps = { type: 'object' };
    const hasProps = Object.keys(properties).length > 0;
    if (index !== undefined) {
      if (hasProps) {
        if (Object.keys(index).length === 1 && index['x-kubernetes-preserve-unknown-fields']) schema['x-kubernetes-preserve-unknown-fields'] = true;
        else throw this.error(indexNode!, 'an object with named properties can only have an index signature of type unknown (kept fields); use a separate map field');
      } else schema.additionalProperties = index;
    }
    if (hasProps) schema.properties = properties;
    if (required.length) schema.required = required;
    return schema;
  }

  property(p: PropertySignature, file: SourceFile): { name: string; schema: JSONSchemaProps; isRequired: boolean } {
    const nameNode = p.getNameNode();
    let name: string;
    if (Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode)) name = nameNode.getLiteralValue();
    else if (Node.isComputedPropertyName(nameNode)) {
      // `["x"]` is the field x; any other computed key has no name a schema could use.
      const expr = nameNode.getExpression();
      if (!Node.isStringLiteral(expr) && !Node.isNoSubstitutionTemplateLiteral(expr)) {
        throw this.error(p, `computed field name ${nameNode.getText()} cannot be a schema field (use a plain or quoted name)`);
      }
      name = expr.getLiteralValue();
    } else name = nameNode.getText();
    const typeNode = p.getTypeNode();
    if (!typeNode) throw this.error(p, `field ${name} needs a type annotation`);
    const doc = this.doc(p);
    this.checkPlacement(doc.markers, FIELD_MARKERS, `a field (${name})`);
    let optional = p.hasQuestionToken();
    const { node: inner, undef } = stripUndefined(typeNode);
    if (undef) optional = true;
    const schema = this.typeSchema(inner, file);
    if (doc.description) schema.description = doc.description;
    applySchemaMarkers(schema, doc.markers);
    let explicit = optional;
    for (const m of doc.markers) {
      if (m.name === 'optional' || m.name === 'k8s:optional' || m.name === 'kubebuilder:validation:Optional') [optional, explicit] = [true, true];
      if (m.name === 'required' || m.name === 'k8s:required' || m.name === 'kubebuilder:validation:Required') [optional, explicit] = [false, true];
    }
    if (!explicit) optional = this.optionalByDefault(p.getSourceFile());
    return { name, schema, isRequired: !optional };
  }

  /** The schema of a type expression (before field markers). */
  typeSchema(node: TypeNode, file: SourceFile): JSONSchemaProps {
    switch (node.getKind()) {
      case SyntaxKind.StringKeyword:
        return { type: 'string' };
      case SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case SyntaxKind.NumberKeyword:
        throw this.error(node, 'number needs a numeric format: use int32, int64, integer or float64 from @kubegen/runtime');
      case SyntaxKind.UnknownKeyword:
        return { 'x-kubernetes-preserve-unknown-fields': true };
      case SyntaxKind.AnyKeyword:
        throw this.error(node, 'any cannot be a schema: use unknown (any JSON, kept as is) or a concrete type');
      case SyntaxKind.ObjectKeyword:
        return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    }
    if (Node.isParenthesizedTypeNode(node)) return this.typeSchema(node.getTypeNode(), file);
    if (Node.isArrayTypeNode(node)) return { type: 'array', items: this.typeSchema(node.getElementTypeNode(), file) };
    if (Node.isTypeOperatorTypeNode(node) && node.getOperator() === SyntaxKind.ReadonlyKeyword) return this.typeSchema(node.getTypeNode(), file);
    if (Node.isTypeLiteral(node)) return this.objectSchema(node, file);
    if (Node.isLiteralTypeNode(node) || Node.isUnionTypeNode(node)) return this.unionSchema(node, file);
    if (Node.isTypeReference(node)) return this.referenceSchema(node, file);
    if (Node.isFunctionTypeNode(node) || Node.isConstructorTypeNode(node)) throw this.error(node, `function type ${node.getText()} cannot be a schema`);
    if (Node.isTupleTypeNode(node)) throw this.error(node, `tuple type ${node.getText()} cannot be a structural schema (use an array)`);
    if (Node.isIntersectionTypeNode(node)) throw this.error(node, `intersection type ${node.getText()} is not supported (declare an interface that extends the parts)`);
    throw this.error(node, `unsupported type ${node.getText()} (${node.getKindName()})`);
  }

  private unionSchema(node: TypeNode, file: SourceFile): JSONSchemaProps {
    const members = Node.isUnionTypeNode(node) ? node.getTypeNodes() : [node];
    let nullable = false;
    const rest: TypeNode[] = [];
    const literals: unknown[] = [];
    for (const m of members) {
      if (Node.isLiteralTypeNode(m)) {
        const lit = m.getLiteral();
        if (lit.getKind() === SyntaxKind.NullKeyword) nullable = true;
        else if (Node.isStringLiteral(lit) || Node.isNoSubstitutionTemplateLiteral(lit)) literals.push(lit.getLiteralValue());
        else if (Node.isNumericLiteral(lit)) literals.push(lit.getLiteralValue());
        else if (Node.isPrefixUnaryExpression(lit)) literals.push(Number(lit.getText()));
        else if (lit.getKind() === SyntaxKind.TrueKeyword) literals.push(true);
        else if (lit.getKind() === SyntaxKind.FalseKeyword) literals.push(false);
        else throw this.error(m, `unsupported literal type ${m.getText()}`);
      } else if (m.getKind() === SyntaxKind.UndefinedKeyword) {
        continue;
      } else rest.push(m);
    }
    let schema: JSONSchemaProps;
    if (literals.length > 0 && rest.length === 0) {
      const kinds = new Set(literals.map((l) => typeof l));
      if (kinds.size > 1) throw this.error(node, `literal union ${node.getText()} mixes types; an enum needs values of one type`);
      const t = typeof literals[0];
      schema = t === 'string' ? { type: 'string' } : t === 'boolean' ? { type: 'boolean' } : literals.every((l) => Number.isInteger(l)) ? { type: 'integer' } : { type: 'number' };
      schema.enum = literals;
    } else if (literals.length === 0 && rest.length === 1) {
      schema = this.typeSchema(rest[0]!, file);
    } else {
      throw this.error(node, `union ${node.getText()} cannot be a structural schema (unions of objects need a marker saying how; use one type, a string-literal union, or IntOrString)`);
    }
    if (nullable) schema.nullable = true;
    return schema;
  }

  private referenceSchema(node: TypeNode & Node, file: SourceFile): JSONSchemaProps {
    if (!Node.isTypeReference(node)) throw this.error(node, 'expected a type reference');
    const name = node.getTypeName().getText();
    const args = node.getTypeArguments();
    const r = this.resolver.resolve(file, name);
    switch (r.k) {
      case 'runtime':
        return this.runtimeSchema(r.name, node);
      case 'builtin': {
        const id = builtinDefinitionId(r.dir, r.name);
        const s = id === undefined ? undefined : builtinSchema(id);
        if (!s) throw this.error(node, `@kubegen/runtime/api/${r.dir} has no type ${r.name}`);
        return s;
      }
      case 'global':
        if ((r.name === 'Array' || r.name === 'ReadonlyArray') && args.length === 1) return { type: 'array', items: this.typeSchema(args[0]!, file) };
        if (r.name === 'Record' && args.length === 2) {
          if (args[0]!.getKind() !== SyntaxKind.StringKeyword) throw this.error(args[0]!, 'Record keys must be string');
          return { type: 'object', additionalProperties: this.typeSchema(args[1]!, file) };
        }
        if (r.name === 'Date') {
          // Objects arrive as JSON: a timestamp is an RFC 3339 string, which the runtime's Time (format date-time) types.
          throw this.error(node, "Date cannot be a schema: timestamps are RFC 3339 strings on the wire; use Time (or MicroTime) from '@kubegen/runtime'");
        }
        throw this.error(node, `${node.getText()} cannot be a schema (use interfaces, arrays, Record<string, T> and the @kubegen/runtime types)`);
      case 'class':
        throw this.error(node, `class ${name} cannot be a schema (declare an interface with data fields only)`);
      case 'unresolved':
        throw this.error(node, r.why);
      case 'decl':
        if (args.length > 0) throw this.error(node, `generic type ${node.getText()} is not supported`);
        return this.declSchema(r.decl);
    }
  }
}

/**
 * The schema of runtime export `name` at `node`: controller-gen's schemas for the apimachinery types it knows; the
 * core structs (PodTemplateSpec, Container, …) as controller-gen writes the Go types they are generated from.
 */
export function runtimeSchemaOf(name: string): JSONSchemaProps | undefined {
  const core = CORE_TYPES.find((c) => c.name === name);
  return (core ? builtinSchema(core.definition) : undefined) ?? runtimeTypeSchema(name);
}

/** `T | undefined` → T (and says so). */
function stripUndefined(node: TypeNode): { node: TypeNode; undef: boolean } {
  if (!Node.isUnionTypeNode(node)) return { node, undef: false };
  const members = node.getTypeNodes();
  const kept = members.filter((m) => m.getKind() !== SyntaxKind.UndefinedKeyword);
  if (kept.length === members.length) return { node, undef: false };
  if (kept.length === 1) return { node: kept[0]!, undef: true };
  return { node, undef: true };
}
