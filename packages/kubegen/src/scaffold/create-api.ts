/**
 * `kubegen create api`: a new kind in a project made by `kubegen init` — `apis/<group>/<version>/doc.ts` (when
 * missing), `<kind>_types.ts`, a sample object in `config/samples/` (listed in its kustomization, as the CRD is in
 * `config/crd/kustomization.yaml`) and, with a controller, `src/controllers/<kind>-controller.ts` plus its unit test
 * and an envtest test in `test/envtest/`; the controller is registered in `src/main.ts` at the
 * `// +kubegen:scaffold:*` markers. kubebuilder's `create api`.
 *
 * All checks (names, duplicates, markers) run before anything is written; `dryRun` stops there and reports what
 * would change. Existing files are never overwritten; the only files edited are `src/main.ts` (two inserted lines),
 * `kubegen.project.yaml`, the kustomizations of `config/crd` and `config/samples` (one line each), and — when a kind
 * gains a second version — the first version's types, which get `+kubebuilder:storageversion`. Everything written is
 * recorded in the kind's `scaffolded` entry of `kubegen.project.yaml` (hashes of the created files, the folders
 * made, the inserted lines), which is what `delete api` undoes.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parse } from 'yaml';
import { ScaffoldError } from './errors.js';
import { assertNoneExist, exists, writeNewFiles } from './files.js';
import type { ScaffoldFile } from './files.js';
import type { ScaffoldResult } from './init.js';
import { apiNames } from './names.js';
import type { ApiNames } from './names.js';
import { insertedLines, newFolders, sha256 } from './edits.js';
import { projectSample, sampleFile } from './sample-refresh.js';
import type { FileEdit } from './edits.js';
import { formatProjectFile, PROJECT_FILE, readProjectFile } from './project-file.js';
import type { ProjectFile, ProjectResource, ScaffoldRecord } from './project-file.js';
import { renderTemplate } from './render.js';
import { insertAbove, insertControllerSetup, MAIN_FILE } from './main-markers.js';
import { EXPLORE_SCENARIO_FILE, EXPLORE_SETUP_FILE, EXPLORE_STEPS_MARKER, exploreSteps } from './explore-files.js';

export interface CreateApiOptions {
  /** Where to start looking for the project root (the folder holding `kubegen.project.yaml`). */
  cwd: string;
  group: string;
  version: string;
  kind: string;
  /** Default true. */
  namespaced?: boolean;
  /** Default true. */
  controller?: boolean;
  /** Default: the English plural of the lower-cased kind. */
  plural?: string;
  /** Check everything and return what would be written and edited, writing nothing. */
  dryRun?: boolean;
}

const CONTROLLERS_DIR = 'src/controllers';
const ENVTEST_DIR = 'test/envtest';
const CRD_KUSTOMIZATION = 'config/crd/kustomization.yaml';
const CRD_MARKER = '# +kubegen:scaffold:crdkustomizeresource';
const SAMPLES_KUSTOMIZATION = 'config/samples/kustomization.yaml';
const SAMPLES_MARKER = '# +kubegen:scaffold:manifestskustomizesamples';
const STORAGE_MARKER = '+kubebuilder:storageversion';

export async function createApi(opts: CreateApiOptions): Promise<ScaffoldResult> {
  const root = await findProjectRoot(opts.cwd);
  const project = await readProjectFile(root);
  const n = apiNames(opts.group, project.domain, opts.version, opts.kind, opts.plural);
  const namespaced = opts.namespaced ?? true;
  const controller = opts.controller ?? true;
  const apisDir = await apisFolder(root);

  const sameKind = project.resources.filter((r) => r.group === n.group && r.kind === n.kind);
  if (sameKind.some((r) => r.version === n.version)) {
    throw new ScaffoldError(`kind ${n.kind} already exists in ${n.fullGroup}/${n.version}; refusing to overwrite it`);
  }
  const other = sameKind[0];
  if (other && other.namespaced !== namespaced) {
    throw new ScaffoldError(`kind ${n.kind} is ${other.namespaced ? 'namespaced' : 'cluster-scoped'} in ${n.fullGroup}/${other.version}; every version must have the same scope`);
  }
  if (other && other.plural !== n.plural) {
    throw new ScaffoldError(`kind ${n.kind} has plural ${other.plural} in ${n.fullGroup}/${other.version}; pass --plural ${other.plural}`);
  }
  if (controller) {
    const owner = project.resources.find((r) => r.controller && r.kind.toLowerCase() === n.fileBase);
    if (owner) {
      throw new ScaffoldError(`a controller for kind ${owner.kind} (${owner.group}.${project.domain}/${owner.version}) already exists; pass --controller=false`);
    }
  }

  const versionDir = path.join(apisDir, n.group, n.version);
  const rel = (p: string): string => path.relative(root, p).split(path.sep).join('/');
  const files: ScaffoldFile[] = [];
  if (!(await exists(path.join(versionDir, 'doc.ts')))) {
    files.push({ path: rel(path.join(versionDir, 'doc.ts')), content: renderTemplate('api/doc.ts.tmpl', { version: n.version, fullGroup: n.fullGroup, groupGoName: n.groupGoName }) });
  }
  files.push({ path: rel(path.join(versionDir, `${n.fileBase}_types.ts`)), content: typesFile(n, namespaced) });
  let main: FileEdit | undefined;
  // The sample's text is made by `kubegen sample`'s generator once the types file is written (below).
  const sample: ScaffoldFile = { path: sampleFile(n), content: renderTemplate('api/sample.yaml.tmpl', sampleValues(n, project.projectName)) };
  files.push(sample);
  if (controller) {
    files.push(...controllerFiles(n, namespaced, project.multicluster === true));
    const mainPath = path.join(root, MAIN_FILE);
    if (!(await exists(mainPath))) throw new ScaffoldError(`${mainPath} not found; cannot register the controller (pass --controller=false)`);
    const before = await fs.readFile(mainPath, 'utf8');
    main = { file: MAIN_FILE, before, content: insertControllerSetup(before, n.kind, `./controllers/${n.fileBase}-controller.js`, mainPath) };
  }
  const explore = controller ? await exploreEdits(root, n, namespaced) : [];
  await assertNoneExist(root, files);
  // config/crd lists each kind's CRD once (a second version lives in the same CRD file); config/samples every sample.
  const edits: FileEdit[] = [
    ...(other ? [] : [await kustomizationEdit(root, CRD_KUSTOMIZATION, CRD_MARKER, `bases/${n.fullGroup}_${n.plural}.yaml`)]),
    await kustomizationEdit(root, SAMPLES_KUSTOMIZATION, SAMPLES_MARKER, path.posix.basename(sampleFile(n))),
    ...(main !== undefined ? [main] : []),
    ...explore,
  ];
  if (other) {
    const storage = await storageVersionEdit(path.join(apisDir, n.group, other.version, `${n.fileBase}_types.ts`), n.kind);
    if (storage) edits.push({ ...storage, file: rel(storage.file) });
  }
  const changed = edits.filter((e) => e.content !== e.before);
  const folders = await newFolders(root, files.map((f) => f.path));
  const lines = changed.map((e) => ({ file: e.file, lines: insertedLines(e.before, e.content) }));
  const result: ScaffoldResult = { root, written: files.map((f) => f.path), edited: [...changed.map((e) => e.file), PROJECT_FILE], inserted: lines };
  if (opts.dryRun) return result;

  const written = files.filter((f) => f !== sample);
  await writeNewFiles(root, written);
  // The types file is on disk now: the sample is made from it.
  written.push({ ...sample, content: (await generatedSample(apisDir, n, project.projectName)) ?? sample.content });
  await writeNewFiles(root, written.slice(-1));
  for (const e of changed) await fs.writeFile(path.join(root, e.file), e.content);
  const record: ScaffoldRecord = { files: written.map((f) => ({ path: f.path, sha256: sha256(f.content) })), folders, lines };
  const updated: ProjectFile = {
    ...project,
    // A file another kind's create api made and this one edited (the storage version marker) keeps its record current.
    resources: [
      ...followEdits(project.resources, changed),
      { group: n.group, version: n.version, kind: n.kind, plural: n.plural, namespaced, controller, scaffolded: record },
    ],
  };
  await fs.writeFile(path.join(root, PROJECT_FILE), formatProjectFile(updated));
  return result;
}

/** `resources` with the recorded hash of every created file in `edits` set to its new content's. */
export function followEdits(resources: readonly ProjectResource[], edits: readonly FileEdit[]): ProjectResource[] {
  const byFile = new Map(edits.map((e) => [e.file, sha256(e.content)]));
  return resources.map((r) =>
    r.scaffolded && r.scaffolded.files.some((f) => byFile.has(f.path))
      ? { ...r, scaffolded: { ...r.scaffolded, files: r.scaffolded.files.map((f) => ({ ...f, sha256: byFile.get(f.path) ?? f.sha256 })) } }
      : r,
  );
}

function typesFile(n: ApiNames, namespaced: boolean): string {
  const resourceArgs = [...(n.customPlural ? [`path=${n.plural}`] : []), ...(namespaced ? [] : ['scope=Cluster'])];
  return renderTemplate('api/types.ts.tmpl', {
    kind: n.kind,
    plural: n.plural,
    resourceMarker: resourceArgs.length > 0 ? `\n * +kubebuilder:resource:${resourceArgs.join(',')}` : '',
  });
}

/**
 * `kubegen explore`'s files (explore-files.ts), where the project has them: the controller registered in
 * `src/explore-setup.ts`, the sample's steps added to `test/explore/scenario.yaml`.
 */
async function exploreEdits(root: string, n: ApiNames, namespaced: boolean): Promise<FileEdit[]> {
  const edits: FileEdit[] = [];
  const setupPath = path.join(root, EXPLORE_SETUP_FILE);
  if (await exists(setupPath)) {
    const before = await fs.readFile(setupPath, 'utf8');
    edits.push({ file: EXPLORE_SETUP_FILE, before, content: insertControllerSetup(before, n.kind, `./controllers/${n.fileBase}-controller.js`, setupPath) });
  }
  const scenarioPath = path.join(root, EXPLORE_SCENARIO_FILE);
  if (await exists(scenarioPath)) {
    const before = await fs.readFile(scenarioPath, 'utf8');
    const steps = exploreSteps(n, `${n.fileBase}-sample`, namespaced, {});
    edits.push({ file: EXPLORE_SCENARIO_FILE, before, content: insertAbove(before, EXPLORE_STEPS_MARKER, steps, scenarioPath, 'explore scenario') });
  }
  return edits;
}

/**
 * The kind's minimal valid object from its types as they now are on disk (`kubegen sample`'s generator over the
 * TypeScript front end's model), with kubebuilder's sample labels. Undefined when the apis folder does not parse
 * (another kind's types broken, say): the caller then writes the template's sample.
 */
async function generatedSample(apisDir: string, n: ApiNames, projectName: string): Promise<string | undefined> {
  try {
    const { parseApis } = await import('../parse/typescript/index.js');
    return await projectSample(await parseApis(apisDir, {}), n, projectName, apisDir);
  } catch {
    return undefined;
  }
}


function sampleValues(n: ApiNames, projectName: string): Record<string, string> {
  return { fullGroup: n.fullGroup, version: n.version, kind: n.kind, group: n.group, fileBase: n.fileBase, projectName, sampleName: `${n.fileBase}-sample` };
}

/** The controller, its envtest test and its unit test; a multi-cluster project's (`multicluster`) have a lane per member. */
function controllerFiles(n: ApiNames, namespaced: boolean, multicluster: boolean): ScaffoldFile[] {
  const variant = multicluster ? '-multicluster' : '';
  const access = (ns: string): string => `${n.groupVersionMember}.${n.pluralMember}(${namespaced ? ns : ''})`;
  const common = { kind: n.kind, fullGroup: n.fullGroup, version: n.version };
  return [
    {
      path: `${CONTROLLERS_DIR}/${n.fileBase}-controller.ts`,
      content: renderTemplate(`api/controller${variant}.ts.tmpl`, {
        ...common,
        plural: n.plural,
        resourceConst: n.resourceConst,
        pluralMember: n.pluralMember,
        namespaceArg: namespaced ? (multicluster ? ', req.namespace' : ', obj.metadata?.namespace') : '',
        controllerName: n.fileBase,
      }),
    },
    {
      path: `${ENVTEST_DIR}/${n.fileBase}-controller.test.ts`,
      content: renderTemplate(`api/controller${variant}.envtest.ts.tmpl`, {
        ...common,
        fileBase: n.fileBase,
        sampleFile: sampleFile(n),
        clientAccess: access('namespace'),
        testNamespaceImports: namespaced ? 'createTestNamespace, deleteTestNamespace, ' : '',
        namespaceSetup: namespaced ? `  const namespace = await createTestNamespace(transport, '${n.fileBase}');\n` : '',
        namespaceTeardown: namespaced ? '    await deleteTestNamespace(transport, namespace);\n' : '',
      }),
    },
    {
      path: `${CONTROLLERS_DIR}/${n.fileBase}-controller.test.ts`,
      content: renderTemplate(`api/controller${variant}.test.ts.tmpl`, {
        ...common,
        fileBase: n.fileBase,
        testNamespace: namespaced ? 'default' : '',
        namespaceField: namespaced ? 'namespace: NAMESPACE, ' : '',
        clientAccessNs: access('NAMESPACE'),
        sampleFile: sampleFile(n),
        sampleNamespaceDoc: namespaced ? ' in NAMESPACE' : '',
      }),
    },
  ];
}

/**
 * When a kind gets a second version, exactly one version must be the storage version: mark the first one (if the
 * user has not marked any). Returns the new content of its types file, or undefined when nothing changes.
 */
async function storageVersionEdit(file: string, kind: string): Promise<FileEdit | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  if (text.includes(STORAGE_MARKER)) return undefined;
  const root = new RegExp(`( \\* \\+kubebuilder:object:root=true\\n)((?: \\*.*\\n)*? \\*/\\nexport interface ${kind} \\{)`);
  if (!root.test(text)) return undefined;
  return { file, before: text, content: text.replace(root, `$1 * ${STORAGE_MARKER}\n$2`) };
}

/**
 * Adds `  - <entry>` above `marker` in a kustomization of the project (kubebuilder's `+kubebuilder:scaffold:*`
 * markers); an entry already listed is left alone. A missing file or marker is a {@link ScaffoldError}.
 */
async function kustomizationEdit(root: string, file: string, marker: string, entry: string): Promise<FileEdit> {
  let text: string;
  try {
    text = await fs.readFile(path.join(root, file), 'utf8');
  } catch {
    throw new ScaffoldError(`${path.join(root, file)} not found (projects made by an older kubegen init lack it: add it with a "${marker}" line)`);
  }
  const lines = text.split('\n');
  if (lines.some((l) => l.trim() === `- ${entry}`)) return { file, before: text, content: text };
  const i = lines.findIndex((l) => l.trim() === marker);
  if (i < 0) throw new ScaffoldError(`${path.join(root, file)} has no "${marker}" line; add it where kubegen should list new files`);
  lines.splice(i, 0, `  - ${entry}`);
  return { file, before: text, content: lines.join('\n') };
}

/** The nearest folder at or above `cwd` holding `kubegen.project.yaml`. */
export async function findProjectRoot(cwd: string): Promise<string> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (await exists(path.join(dir, PROJECT_FILE))) return dir;
    if (path.dirname(dir) === dir) break;
  }
  throw new ScaffoldError(`no ${PROJECT_FILE} in ${path.resolve(cwd)} or above: run "kubegen init" first`);
}

/** The `apis` folder named by the project's `codegen.config.yaml` (default `apis`). */
export async function apisFolder(root: string): Promise<string> {
  try {
    const cfg = parse(await fs.readFile(path.join(root, 'codegen.config.yaml'), 'utf8')) as { apis?: unknown } | null;
    if (cfg && typeof cfg.apis === 'string' && cfg.apis !== '') return path.resolve(root, cfg.apis);
  } catch {
    // no or unreadable config: the default layout
  }
  return path.join(root, 'apis');
}
