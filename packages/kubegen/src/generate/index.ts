import type { ApiModel, GroupVersion, UserTypeModule } from '../model/index.js';
import { groupIdentifiers, groupVersions } from '../model/index.js';
import { applyNames, emitApplyConfigurations } from './apply/index.js';
import type { ApplyNames } from './apply/index.js';
import type { GroupVersionContext } from './context.js';
import { emitClient } from './client/index.js';
import { emitClientset, emitMergeSchemaList, emitResourceList } from './client/clientset.js';
import { emitDeepCopy } from './deepcopy/index.js';
import { HEADER, literal } from './emit-util.js';
import { emitFake } from './fake/index.js';
import { emitInformerFactory, emitInformers, emitListers } from './informers/index.js';
import { groupVersionClientName, groupVersionDir, groupVersionMember, kindIdentifier } from './names.js';
import { emitMergeSchema, emitRegister } from './register/index.js';
import { CoreTypeMatcher, DefinitionGraph, emitTypes, KIND_DERIVED_SUFFIXES, TypeGraph } from './types/index.js';
import type { CoreTypeMiss, CoreTypeUse, TypeModel } from './types/index.js';
import { emitMarkedTypes } from './types/emit-marked-types.js';
import { generateManifests } from './manifests.js';
import { hasUserTypes, userModuleSpecifier, userTypeNames } from './user-types.js';

export type { GeneratedFile } from './generated-file.js';
import type { GeneratedFile } from './generated-file.js';

/** Options of {@link generate}: the runtime import, import extensions, markers, core types, progress. */
export interface GenerateOptions {
  /**
   * The module generated code imports the runtime from. Default `@kubegen/runtime`. A path starting with `./` or
   * `../` is taken relative to the output folder and written relative to each file.
   */
  runtimeImport?: string;
  /**
   * The module `types.ts` imports the runtime's types from (`IntOrString`, `Quantity`, …); default `runtimeImport`.
   * The built-in API points it at a module that imports nothing, so its types never import back into the runtime.
   */
  typesImport?: string;
  /** Extension used in relative imports between generated files: `.js` (default, for NodeNext) or `''`. */
  importExtension?: '.js' | '.ts' | '';
  /** Called once per group/version as it is generated, for progress output. */
  onProgress?: (done: number, total: number, label: string) => void;
  /**
   * Write `types.ts` with controller-gen markers in JSDoc (and kind markers on root types) so that the TypeScript
   * front end reads them back into the same schema (`--emit-markers`; the CRD → TS → CRD round trip).
   */
  emitMarkers?: boolean;
  /**
   * Type sub-schemas that are core Kubernetes types (PodTemplateSpec, Container, …) with the runtime's types instead
   * of generated copies (default true; `--no-core-types`). A CRD annotated `kubegen.io/core-types: "false"` opts out
   * on its own. See `types/core-types.ts`.
   */
  coreTypes?: boolean;
  /**
   * Called once per group/version with the sub-schemas typed as core types, and those shaped like one but different
   * (for `--explain` and the summary).
   */
  onCoreTypes?: (gv: GroupVersion, uses: readonly CoreTypeUse[], misses: readonly CoreTypeMiss[]) => void;
  /**
   * Names of groups' accessors (group → name, `codegen.config.yaml`'s `groupAccessors`) instead of the group's first
   * DNS label; they win over the model's own (`+groupGoName=`). See `groupIdentifiers`.
   */
  groupAccessors?: Readonly<Record<string, string>>;
}

export const DEFAULT_RUNTIME_IMPORT = '@kubegen/runtime';

/**
 * Runs every generator over the model and returns the files in a stable order: the code, then the YAML
 * (`generateManifests`: CRDs of `--apis` kinds, the Role of RBAC markers, webhook configurations; each with its
 * `output`). Pure: reads nothing, writes nothing. Writing (atomically) and verifying are `src/output`'s job.
 *
 * Layout: `<group>/<version>/{types,applyconfigurations,deepcopy,register,client,listers,informers,index}.ts` per
 * group/version, and at
 * the root `clientset.ts`, `informers.ts` (the group-aware informer factory), `fake.ts` (fake clientset, loads the
 * testing runtime) and `index.ts`.
 */
export function generate(model: ApiModel, opts: GenerateOptions = {}): GeneratedFile[] {
  const rootRuntimeImport = opts.runtimeImport ?? DEFAULT_RUNTIME_IMPORT;
  const ext = opts.importExtension ?? '.js';
  const builtin = model.packages !== undefined;
  const gvs = builtin ? packageVersions(model) : groupVersions(model);
  const groupIds = groupIdentifiers(model, opts.groupAccessors);
  const files: GeneratedFile[] = [];
  const matcher = new CoreTypeMatcher();
  gvs.forEach((gv, i) => {
    const dir = groupVersionDir(gv);
    const runtimeImport = relativeTo(dir, rootRuntimeImport);
    const typesImport = relativeTo(dir, opts.typesImport ?? rootRuntimeImport);
    const user = hasUserTypes(gv);
    // The user's own types (TypeScript front end) spell every struct out; there is no types.ts to name enums in.
    // Marked types (`--emit-markers`) are written from an exact graph, so deepcopy and apply use their names.
    const graph: TypeModel = builtin
      ? new DefinitionGraph(gv, model.definitions!)
      : new TypeGraph(gv, { coreTypes: opts.coreTypes !== false && !user, matcher, exact: opts.emitMarkers === true && !user, enums: !user });
    opts.onCoreTypes?.(gv, graph.coreTypeUses, graph.coreTypeMisses ?? []);
    const names = new Map(graph.kinds.map((k) => [k.kindVersion.resource.names.kind, { root: k.root.name, list: k.list.name }]));
    const typeNames = user ? userTypeNames(gv) : (kind: string): { root: string; list: string } => names.get(kind)!;
    const groupId = groupIds.get(gv.group) ?? gv.group;
    if (!user) {
      const types = opts.emitMarkers && graph instanceof TypeGraph ? emitMarkedTypes(gv, { runtimeImport, graph }) : emitTypes(gv, { runtimeImport: typesImport, graph, importExtension: ext });
      files.push({ path: `${dir}/types.ts`, content: types });
    }
    const apply = applyNames(graph, versionTypeNames(gv, groupId, typeNames, user ? new Set(userFolderTypes(gv).flatMap((m) => m.names)) : graph.exportedNames()));
    if (builtin) checkBuiltinApplyNames(graph, apply);
    const ctx: GroupVersionContext = { gv, groupId, graph, typeNames, applyName: apply.root, runtimeImport, ext, ...(model.definitions ? { definitions: model.definitions } : {}) };
    // Listers and informers serve the kinds that can be listed and watched (not a built-in review kind).
    const listable: GroupVersion = { ...gv, kinds: gv.kinds.filter((k) => !k.version.builtin || (k.version.builtin.verbs.includes('list') && k.version.builtin.verbs.includes('watch'))) };
    const listableCtx: GroupVersionContext = { ...ctx, gv: listable };
    const modules = ['types', 'applyconfigurations', 'deepcopy'];
    files.push(
      { path: `${dir}/applyconfigurations.ts`, content: emitApplyConfigurations(ctx, apply) },
      { path: `${dir}/deepcopy.ts`, content: emitDeepCopy(gv, { runtimeImport, importExtension: ext, graph }) },
    );
    if (gv.kinds.length > 0) {
      modules.push('register', 'client');
      files.push(
        { path: `${dir}/register.ts`, content: emitRegister(ctx, builtin) },
        { path: `${dir}/client.ts`, content: emitClient(ctx) },
      );
      if (builtin) files.push({ path: `${dir}/merge-schema.ts`, content: emitMergeSchema(ctx) });
    }
    if (listable.kinds.length > 0) {
      modules.push('listers', 'informers');
      files.push(
        { path: `${dir}/listers.ts`, content: emitListers(listableCtx) },
        { path: `${dir}/informers.ts`, content: emitInformers(listableCtx) },
      );
    }
    const generated = user ? exportedNames(files.filter((f) => f.path.startsWith(`${dir}/`)).map((f) => f.content)) : new Set<string>();
    files.push({ path: `${dir}/index.ts`, content: user ? emitUserVersionIndex(gv, generated, ext) : emitVersionIndex(ext, modules) });
    opts.onProgress?.(i + 1, gvs.length, `${gv.group}/${gv.version}`);
  });
  const served = gvs.filter((gv) => gv.kinds.length > 0);
  const runtimeImport = rootRuntimeImport;
  if (builtin) {
    const informable = served.map((gv) => ({ ...gv, kinds: gv.kinds.filter((k) => k.version.builtin!.verbs.includes('list') && k.version.builtin!.verbs.includes('watch')) })).filter((gv) => gv.kinds.length > 0);
    files.push(
      { path: 'clientset.ts', content: emitClientset(served, groupIds, runtimeImport, ext, { name: 'KubeClientset', lazy: true }) },
      { path: 'informers.ts', content: emitInformerFactory(informable, groupIds, runtimeImport, ext, { name: 'KubeInformers', lazy: true }) },
      { path: 'resources.ts', content: emitResourceList(served, groupIds, ext) },
      { path: 'merge-schemas.ts', content: emitMergeSchemaList(served, groupIds, runtimeImport, ext) },
    );
  } else if (gvs.length > 0) {
    files.push(
      { path: 'clientset.ts', content: emitClientset(gvs, groupIds, runtimeImport, ext) },
      { path: 'fake.ts', content: emitFake(gvs, groupIds, runtimeImport, ext) },
      { path: 'informers.ts', content: emitInformerFactory(gvs, groupIds, runtimeImport, ext) },
      { path: 'index.ts', content: emitRootIndex(gvs, groupIds, ext) },
    );
  }
  files.push(...generateManifests(model));
  return files;
}

/** A relative runtime import (`./x.js`, `../x.js`: from the output root) as seen from output folder `dir`. */
function relativeTo(dir: string, spec: string): string {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return spec;
  const up = dir.split('/').map(() => '..').join('/');
  const joined = `${up}/${spec.startsWith('./') ? spec.slice(2) : spec}`;
  return joined;
}

/** The built-in API's layout: one group/version per package (`model.packages`), with the kinds declared there. */
function packageVersions(model: ApiModel): GroupVersion[] {
  return model.packages!.map((pkg) => ({
    group: pkg.group,
    version: pkg.version,
    pkg,
    kinds: model.resources.flatMap((resource) => resource.versions.filter((v) => v.builtin?.pkg.dir === pkg.dir).map((version) => ({ resource, version }))),
  }));
}

/** Other packages spell a built-in interface's apply configuration `<name>Apply` (`DefinitionGraph`'s `ext`): it must be so. */
function checkBuiltinApplyNames(graph: TypeModel, apply: ApplyNames): void {
  for (const def of graph.orderedDefs()) {
    const name = apply.types.get(def);
    if (name !== undefined && name !== `${def.name}Apply`) throw new Error(`${graph.gv.pkg!.dir}: the apply configuration of ${def.name} is named ${name}, not ${def.name}Apply`);
  }
}

/**
 * The type names a group/version's modules export besides its apply configurations (which the version index
 * re-exports beside them): `types.ts`'s (as emitted, plain or with markers) or the user's root and list types, and
 * the client, lister and informer names derived from each kind.
 */
function versionTypeNames(gv: GroupVersion, groupId: string, typeNames: (kind: string) => { root: string; list: string }, typesExports: ReadonlySet<string>): Set<string> {
  const names = new Set(typesExports);
  names.add(groupVersionClientName(groupId, gv.version));
  names.add(`${groupVersionMember(groupId, gv.version).replace(/^./, (c) => c.toUpperCase())}Informers`);
  for (const kindVersion of gv.kinds) {
    const { root, list } = typeNames(kindVersion.resource.names.kind);
    names.add(root).add(list);
    for (const suffix of KIND_DERIVED_SUFFIXES) names.add(kindIdentifier(kindVersion) + suffix);
  }
  return names;
}

function emitVersionIndex(ext: string, mods: readonly string[]): string {
  return [HEADER, '', ...mods.map((m) => `export * from ${literal(`./${m}${ext}`)};`), ''].join('\n');
}

/**
 * The version index when the types are the user's: re-exports every exported type of the version folder (spec,
 * status, … as a kubebuilder user imports the whole API package) by name instead of `./types`. A user type named as
 * a generated export (`<Kind>Lister`, …) is left to the generated one and listed in a comment; import it from its file.
 */
function emitUserVersionIndex(gv: GroupVersion, generated: ReadonlySet<string>, ext: string): string {
  const reexports: string[] = [];
  const shadowed: string[] = [];
  for (const m of userFolderTypes(gv)) {
    const names = m.names.filter((n) => !generated.has(n));
    shadowed.push(...m.names.filter((n) => generated.has(n)).map((n) => `${n} (${m.module})`));
    if (names.length > 0) reexports.push(`export type { ${names.join(', ')} } from ${literal(userModuleSpecifier(m.module, ext))};`);
  }
  const note = shadowed.length > 0 ? [`// Not re-exported, a generated export has the name: ${shadowed.join(', ')}.`] : [];
  const mods = ['applyconfigurations', 'deepcopy', 'register', 'client', 'listers', 'informers'];
  return [HEADER, '', ...note, ...reexports, ...mods.map((m) => `export * from ${literal(`./${m}${ext}`)};`), ''].join('\n');
}

/** The user modules of `gv`'s folder and their exported types (the roots' modules alone for a model without `folder`). */
function userFolderTypes(gv: GroupVersion): readonly UserTypeModule[] {
  const folder = gv.kinds.find((k) => k.version.userTypes?.folder)?.version.userTypes?.folder;
  if (folder) return folder;
  const byModule = new Map<string, string[]>();
  for (const k of gv.kinds) {
    const u = k.version.userTypes!;
    const names = byModule.get(u.module) ?? [];
    names.push(u.kind, u.list ?? `${u.kind}List`);
    byModule.set(u.module, names);
  }
  return [...byModule].map(([module, names]) => ({ module, names }));
}

/** The names generated modules export (declarations at the start of a line; they use no export lists). */
function exportedNames(contents: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const c of contents) {
    for (const m of c.matchAll(/^export (?:declare )?(?:abstract )?(?:async )?(?:interface|type|class|function\*?|const|let|enum) ([A-Za-z_$][\w$]*)/gm)) names.add(m[1]!);
  }
  return names;
}

function emitRootIndex(gvs: GroupVersion[], groupIds: Map<string, string>, ext: string): string {
  const lines = gvs.map(
    (gv) => `export * as ${groupVersionMember(groupIds.get(gv.group)!, gv.version)} from ${literal(`./${groupVersionDir(gv)}/index${ext}`)};`,
  );
  return [
    HEADER,
    '',
    `export { Clientset } from ${literal(`./clientset${ext}`)};`,
    `export { InformerFactory } from ${literal(`./informers${ext}`)};`,
    ...lines,
    '',
  ].join('\n');
}
