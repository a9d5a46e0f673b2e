/**
 * The TypeScript front end: reads an `apis/` folder of TypeScript types with controller-gen style markers into the
 * same `ApiModel` the CRD front end produces, with the rules of `+kubebuilder:rbac` markers in its `rbacRules`.
 *
 * Layout: `apis/<group-short-name>/<version>/*.ts`. The group comes from `+groupName=` in the leading JSDoc block of
 * any file of the version folder (conventionally `doc.ts`), where `+kubebuilder:validation:Optional` can also make
 * fields optional by default (see `package-markers.ts`) and `+groupGoName=` names the group's accessors as client-go's
 * does (`KnativeServing` → `knativeServingV1`; see `model/groups.ts`); a root kind is an exported interface marked
 * `+kubebuilder:object:root=true` or `+genclient` (its `<Kind>List` interface, marked or not, is the list type).
 * Types may live in any file and import each other (also across versions and from shared folders). Every problem is
 * an `InputError` with file:line:column; nothing is written by this module.
 */
import { readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { Node, Project } from 'ts-morph';
import type { InterfaceDeclaration, SourceFile } from 'ts-morph';
import { checkGroupAccessor, InputError, InputErrors, sortModel } from '../../model/index.js';
import type { AdmissionWebhookSpec, ApiModel, RbacRule, ResourceModel, SourceLocation } from '../../model/index.js';
import { checkGroup, checkVersion } from '../crd/names.js';
import { kindFacts } from './kind.js';
import type { KindFacts } from './kind.js';
import { lastMarker } from './markers.js';
import { optionalByDefault, packageMarkers } from './package-markers.js';
import type { Marker } from './markers.js';
import { listTsFiles, scanCodeMarkers, scanMarkerSources } from './code-markers.js';
import { Resolver } from './resolve.js';
import { SchemaBuilder } from './type-schema.js';

export interface ParseApisOptions {
  /**
   * Absolute output folder of the generated code: `userTypes.module` is made relative to it. Default: the current
   * working directory.
   */
  outDir?: string;
  /**
   * More folders whose `.ts` files are scanned for `+kubebuilder:rbac` markers (controller code, as controller-gen
   * reads `paths="./..."`); the apis folder itself is always scanned. The output folder is skipped.
   */
  rbacSources?: string[];
}

/**
 * Parses the apis folder `dir` (shown in messages as given) into the model. `rbacRules` is always set: the RBAC
 * markers of the apis folder, then those of `opts.rbacSources`, each in file order (empty when there are none).
 */
export async function parseApis(dir: string, opts: ParseApisOptions = {}): Promise<ApiModel> {
  const absDir = path.resolve(dir);
  try {
    if (!(await stat(absDir)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new InputError({ file: dir, line: 0, column: 0 }, 'no such folder (expected apis/<group>/<version>/*.ts)');
  }
  const files = await listTsFiles(absDir);
  const display = (abs: string): string => {
    const rel = path.relative(absDir, abs);
    return rel.startsWith('..') || path.isAbsolute(rel) ? abs : path.join(dir, rel);
  };
  const project = new Project({
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    skipLoadingLibFiles: true,
    compilerOptions: { noLib: true, allowJs: false },
  });
  const rbacRules: RbacRule[] = [];
  const webhooks: AdmissionWebhookSpec[] = [];
  const sources: SourceFile[] = [];
  for (const f of files) {
    const text = await readFile(f, 'utf8');
    const found = scanCodeMarkers(text, display(f));
    rbacRules.push(...found.rbacRules);
    webhooks.push(...found.webhooks);
    sources.push(project.createSourceFile(f, text, { overwrite: true }));
  }
  const optional = optionalByDefault(sources, display);
  const builder = new SchemaBuilder(new Resolver(project), display, (sf) => optional.get(path.dirname(sf.getFilePath())) ?? false);
  const outDir = path.resolve(opts.outDir ?? process.cwd());
  const more = await scanMarkerSources(opts.rbacSources ?? [], new Set([...files, ...(await listTsFiles(outDir).catch(() => []))]));
  rbacRules.push(...more.rbacRules);
  webhooks.push(...more.webhooks);

  const byFolder = new Map<string, SourceFile[]>();
  for (const sf of sources) {
    const folder = path.dirname(sf.getFilePath());
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), sf]);
  }
  const perKind = new Map<string, { group: string; facts: KindFacts[] }>();
  /** `+groupGoName=` per group, and the file that set it. */
  const groupGoNames = new Map<string, { name: string; where: string }>();
  // Every problem is collected (per folder, per kind) and reported together at the end, sorted, as controller-gen does.
  const errors: InputError[] = [];
  const collect = (fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      errors.push(err);
    }
  };
  for (const [folder, folderFiles] of [...byFolder].sort((a, b) => (a[0] < b[0] ? -1 : 1))) collect(() => {
    const roots = folderFiles.flatMap((sf) => rootKinds(sf, builder));
    if (roots.length === 0) return;
    const rel = path.relative(absDir, folder).split(path.sep);
    const firstRoot = roots[0]!;
    if (rel.length !== 2) {
      throw builder.error(firstRoot.decl, `root kind ${firstRoot.decl.getName()} must be in a folder apis/<group>/<version>/ (found in ${rel.join('/') || 'the apis folder itself'})`);
    }
    const pkg = packageMarkers(folderFiles, display);
    const groupMarker = lastMarker(pkg, 'groupName');
    if (!groupMarker) {
      const first = folderFiles.map((f) => f.getFilePath()).sort()[0]!;
      throw new InputError({ file: display(first), line: 1, column: 1 }, `no +groupName marker for ${rel.join('/')}: add a leading JSDoc block such as /** +groupName=example.com */ to a file of the folder (conventionally doc.ts)`);
    }
    const groups = new Set(pkg.filter((m) => m.name === 'groupName').map((m) => m.value as string));
    if (groups.size > 1) throw new InputError(groupMarker.loc, `conflicting +groupName markers in ${rel.join('/')}: ${[...groups].join(', ')}`);
    const group = groupMarker.value as string;
    const ge = checkGroup(group);
    if (ge) throw new InputError(groupMarker.loc, ge);
    const versionMarker = lastMarker(pkg, 'versionName');
    const versionName = (versionMarker?.value as string | undefined) ?? rel[1]!;
    const ve = checkVersion(versionName);
    if (ve) throw new InputError(versionMarker?.loc ?? builder.loc(firstRoot.decl), `${ve} (the folder name, or +versionName)`);
    const goName = lastMarker(pkg, 'groupGoName');
    if (goName) {
      const name = goName.value as string;
      const bad = checkGroupAccessor(name);
      if (bad) throw new InputError(goName.loc, `+groupGoName: ${bad}`);
      const prev = groupGoNames.get(group);
      if (prev && prev.name !== name) throw new InputError(goName.loc, `+groupGoName=${name} for ${group}, which ${prev.where} names ${prev.name}: give a group one name`);
      groupGoNames.set(group, { name, where: goName.loc.file });
    }

    const listNames = new Set(folderFiles.flatMap((sf) => sf.getInterfaces().filter((i) => i.isExported()).map((i) => i.getName())));
    const moduleOf = (sf: SourceFile): string => path.relative(outDir, sf.getFilePath()).split(path.sep).join('/').replace(/\.(d\.)?m?ts$/, '');
    const folderTypes = folderFiles
      .map((sf) => ({ module: moduleOf(sf), names: exportedTypeNames(sf) }))
      .filter((m) => m.names.length > 0)
      .sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
    for (const { decl, markers } of roots) collect(() => {
      const kind = decl.getName();
      const loc = builder.loc(decl);
      const schema = builder.declSchema(decl);
      const facts = kindFacts(kind, versionName, schema, markers, loc);
      if (facts.skip) return;
      if (!listNames.has(`${kind}List`)) throw new InputError(loc, `root kind ${kind} needs an exported interface ${kind}List (apiVersion, kind, metadata: ListMeta, items: ${kind}[]) in ${rel.join('/')}`);
      facts.version.userTypes = { module: moduleOf(decl.getSourceFile()), kind, list: `${kind}List`, folder: folderTypes };
      const key = `${group}/${kind}`;
      const entry = perKind.get(key) ?? { group, facts: [] };
      if (entry.facts.some((f) => f.version.name === versionName)) throw new InputError(loc, `kind ${kind} is declared twice in ${group}/${versionName}`);
      entry.facts.push(facts);
      perKind.set(key, entry);
    });
  });
  const resources: ResourceModel[] = [];
  for (const { group, facts } of perKind.values()) collect(() => void resources.push(toResource(group, facts)));
  InputErrors.throwIfAny(errors);
  const model: ApiModel = { resources, rbacRules, webhooks };
  if (groupGoNames.size > 0) model.groupAccessors = Object.fromEntries([...groupGoNames].map(([g, { name }]) => [g, name]));
  return sortModel(model);
}

/** The exported interfaces and type aliases of `sf`, in declaration order (what the version index re-exports). */
function exportedTypeNames(sf: SourceFile): string[] {
  return sf.getStatements().flatMap((st) => (Node.isInterfaceDeclaration(st) || Node.isTypeAliasDeclaration(st)) && st.isExported() ? [st.getName()] : []);
}

interface Root {
  decl: InterfaceDeclaration;
  markers: Marker[];
}

function rootKinds(sf: SourceFile, builder: SchemaBuilder): Root[] {
  const out: Root[] = [];
  for (const decl of sf.getInterfaces()) {
    const { markers } = builder.doc(decl);
    const root = markers.some((m) => (m.name === 'kubebuilder:object:root' && m.value === true) || m.name === 'genclient');
    if (!root) continue;
    const isList = decl.getName().endsWith('List') && decl.getProperty('items') !== undefined;
    if (isList) continue;
    if (!decl.isExported()) throw builder.error(decl, `root kind ${decl.getName()} must be exported`);
    out.push({ decl, markers });
  }
  return out;
}

function toResource(group: string, facts: KindFacts[]): ResourceModel {
  facts.sort((a, b) => (a.version.name < b.version.name ? -1 : a.version.name > b.version.name ? 1 : 0));
  const marked = facts.filter((f) => f.storageMarker);
  if (marked.length > 1) {
    throw new InputError(marked[1]!.storageMarker!.loc, `kind ${facts[0]!.names.kind}.${group} has ${marked.length} storage versions (${marked.map((f) => f.version.name).join(', ')}); mark exactly one +kubebuilder:storageversion`);
  }
  if (marked.length === 0 && facts.length > 1) {
    throw new InputError(facts[0]!.version.source, `kind ${facts[0]!.names.kind}.${group} has ${facts.length} versions (${facts.map((f) => f.version.name).join(', ')}) and none is marked +kubebuilder:storageversion`);
  }
  (marked[0] ?? facts[0]!).version.storage = true;
  const lead = facts.find((f) => f.hasResourceMarker) ?? marked[0] ?? facts[0]!;
  const resource: ResourceModel = {
    group,
    names: lead.names,
    scope: lead.scope,
    versions: facts.map((f) => f.version),
    source: lead.version.source as SourceLocation,
  };
  // Conversion through a webhook (kubebuilder sets it with a kustomize patch; here a marker says where, and the CRD
  // carries it as controller-gen's output would after that patch): the Service is renamed by config/default.
  const conversions = facts.filter((f) => f.conversionMarker);
  const paths = new Set(conversions.map((f) => f.conversionMarker!.args['path'] as string));
  if (paths.size > 1) throw new InputError(conversions[1]!.conversionMarker!.loc, `kind ${facts[0]!.names.kind}.${group} names two conversion webhook paths (${[...paths].join(', ')}); use one`);
  if (conversions.length > 0) {
    if (facts.length < 2) throw new InputError(conversions[0]!.conversionMarker!.loc, `kind ${facts[0]!.names.kind}.${group} has one version: there is nothing to convert (+kubegen:conversion needs two versions or more)`);
    resource.conversion = {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: [...paths][0] } },
        conversionReviewVersions: ['v1'],
      },
    };
  }
  const labels = Object.assign({}, ...facts.map((f) => f.labels)) as Record<string, string>;
  const annotations = Object.assign({}, ...facts.map((f) => f.annotations)) as Record<string, string>;
  if (Object.keys(labels).length) resource.labels = labels;
  if (Object.keys(annotations).length) resource.annotations = annotations;
  if (PROTECTED_GROUP.test(group) && annotations[API_APPROVED] === undefined) {
    throw new InputError(
      resource.source,
      `group ${group} is protected: kube-apiserver refuses a CRD of a *.k8s.io or *.kubernetes.io group without the annotation ${API_APPROVED}; ` +
        `add +kubebuilder:metadata:annotations="${API_APPROVED}=<URL of the approved API review, or: unapproved, experimental-only>" to kind ${resource.names.kind}, or use a group of your own domain`,
    );
  }
  return resource;
}

/** Groups the Kubernetes project owns (KEP-2337): their CRDs need an API review annotation. */
const PROTECTED_GROUP = /(^|\.)(k8s\.io|kubernetes\.io)$/;
const API_APPROVED = 'api-approved.kubernetes.io';
