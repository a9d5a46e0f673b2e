import type { RbacRule } from './rbac.js';
import type { AdmissionWebhookSpec } from './webhook.js';
import type { JSONSchemaProps } from './schema.js';

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
   * instead of the group's first DNS label (`groupIdentifiers`). `codegen.config.yaml`'s `groupAccessors` win.
   */
  groupAccessors?: Record<string, string>;
}

/** Where a piece of the model came from, for error messages. */
export interface SourceLocation {
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
  column: number;
  /** JSON path inside the document, e.g. `spec.versions[0].schema.openAPIV3Schema`. */
  path?: string;
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
   * emitting `types.ts`. `module` is a path relative to the output folder's root, without extension.
   */
  userTypes?: { module: string; kind: string; list?: string };
  source: SourceLocation;
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

/** Group → version → kinds, the layout of generated code (as client-go's `<group>/<version>` packages). */
export interface GroupVersion {
  group: string;
  version: string;
  kinds: KindVersion[];
}
