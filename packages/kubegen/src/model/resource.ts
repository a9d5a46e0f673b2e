import type { RbacRule } from './rbac.js';
import type { AdmissionWebhookSpec } from './webhook.js';
import type { JSONSchemaProps } from './schema.js';
import type { ApiPackage, DefinitionModel } from './definitions.js';
import type { SourceLocation } from './source-location.js';

export type { SourceLocation } from './source-location.js';

/**
 * The one model both front ends produce: a list of custom resources, each the content of one CRD.
 *
 * Data flows one way: a front end (CRD YAML in `src/parse/crd`, TypeScript types in `src/parse/typescript`)
 * builds an `ApiModel`, the generators in `src/generate/*` only read it. Generators never see the input files.
 */
export interface ApiModel {
  /** Sorted by group, then kind, so output is deterministic whatever the input order. */
  resources: ResourceModel[];
  /**
   * The `+kubebuilder:rbac` rules the TypeScript front end found (apis folder first, then the extra RBAC sources),
   * in file order; the RBAC emitter reads them from here. Absent when the input has no markers (CRD YAML).
   */
  rbacRules?: RbacRule[];
  /** The `+kubebuilder:webhook` markers the TypeScript front end found, in file order (absent for CRD input). */
  webhooks?: AdmissionWebhookSpec[];
  /**
   * Names of groups' accessors given in the input (group → name; the TypeScript front end's `+groupGoName=`), used
   * instead of the default, the group's labels but the last (`groupIdentifiers`). `codegen.config.yaml`'s `groupAccessors` win.
   */
  groupAccessors?: Record<string, string>;
  /**
   * Named schemas `$ref`s point at (the built-in API front end's types), by id. Absent for CRD and TypeScript input.
   */
  definitions?: Map<string, DefinitionModel>;
  /**
   * Packages whose definitions are generated even where no kind of theirs is (`meta/v1`): the built-in API's layout.
   * With packages, every definition of a package is generated, reachable from a kind or not.
   */
  packages?: ApiPackage[];
}

/** A CRD's `spec.names`: kind, plural, singular, list kind, short names and categories. */
export interface ResourceNames {
  kind: string;
  plural: string;
  singular: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

/** One custom resource (one CRD): group, names, scope and its versions. */
export interface ResourceModel {
  group: string;
  names: ResourceNames;
  scope: 'Namespaced' | 'Cluster';
  versions: VersionModel[];
  /** `spec.conversion` carried verbatim, for CRD output. */
  conversion?: Record<string, unknown>;
  /** CRD `metadata.labels` / `metadata.annotations` carried for CRD output. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  source: SourceLocation;
}

/** One version of a custom resource (`spec.versions[]`): serving flags, schema, subresources, printer columns. */
export interface VersionModel {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  /** The full `openAPIV3Schema` of this version, every `x-kubernetes-*` extension kept. */
  schema: JSONSchemaProps;
  subresources: Subresources;
  printerColumns: PrinterColumn[];
  selectableFields: string[];
  /**
   * Set by the TypeScript front end: the user's own type for this kind, which generated modules import instead of
   * emitting `types.ts`. `module` is a path relative to the output folder's root, without extension. `folder`: every
   * exported interface and type alias of the kind's version folder, by module (the same for each kind of the version),
   * which the version's `index.ts` re-exports.
   */
  userTypes?: { module: string; kind: string; list?: string; folder?: readonly UserTypeModule[] };
  /** Set for the built-in API's kinds: what client-go's typed client of the kind knows (see `BuiltinVersion`). */
  builtin?: BuiltinVersion;
  source: SourceLocation;
}

/** The exported type names (interfaces, type aliases) of one user module, in declaration order. */
export interface UserTypeModule {
  /** Relative to the output folder's root, without extension (as `userTypes.module`). */
  module: string;
  /** Its exported interfaces and type aliases, in declaration order. */
  names: readonly string[];
}

/**
 * A built-in kind in one version, as `k8s.io/api` and client-go's typed clients describe it. The version's `schema`
 * is then `{ $ref: definition }`.
 */
export interface BuiltinVersion {
  pkg: ApiPackage;
  /** Ids of the kind's and its list's definitions. */
  definition: string;
  listDefinition?: string;
  /** client-go's accessor (`PodDisruptionBudgets`) on the group client. */
  accessor: string;
  /** The verbs of the typed client: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, `apply`. */
  verbs: string[];
  /** Subresource calls beyond status and scale (`eviction`, `log`, `token`, `binding`, `ephemeralcontainers`, …). */
  calls: SubresourceCall[];
  /** From `+k8s:prerelease-lifecycle-gen:*`: the Kubernetes release each step happened (`1.21`). */
  lifecycle?: { introduced?: string; deprecated?: string; removed?: string; replacement?: { group: string; version: string; kind: string } };
}

/**
 * One subresource call of a typed client (client-go's `+genclient:method=` and hand-written expansions):
 * `method` is the TypeScript method (`createToken`), `verb` the request's, `input`/`result` definition ids (absent:
 * the kind itself); `text` for a call answering plain text (`log`).
 */
export interface SubresourceCall {
  method: string;
  verb: 'get' | 'create' | 'update' | 'patch' | 'apply';
  subresource: string;
  input?: string;
  result?: string;
  text?: boolean;
  /**
   * The kind (definition id) whose resource the call is sent to, when not the client's own: policy's `evictions`
   * client evicts through `pods/<name>/eviction`.
   */
  target?: string;
  doc: string;
}

/** A version's `subresources`: whether it has `/status`, and its `/scale` paths if any. */
export interface Subresources {
  status: boolean;
  scale?: ScaleSubresource;
}

/** The `/scale` subresource: JSON paths of the replica counts and the label selector. */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One `additionalPrinterColumns` entry: a column `kubectl get` prints. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** A flattened view generators iterate over: one kind in one version. */
export interface KindVersion {
  resource: ResourceModel;
  version: VersionModel;
}

/** The `apiVersion` of a kind's objects: `group/version`, or the version alone for the core group (`v1`). */
export function kindApiVersion(kindVersion: KindVersion): string {
  return kindVersion.resource.group ? `${kindVersion.resource.group}/${kindVersion.version.name}` : kindVersion.version.name;
}

/** Group → version → kinds, the layout of generated code (as client-go's `<group>/<version>` packages). */
export interface GroupVersion {
  group: string;
  version: string;
  kinds: KindVersion[];
  /** For the built-in API: the package the group/version's types are declared in (its folder names the output's). */
  pkg?: ApiPackage;
}
