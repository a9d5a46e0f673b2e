/**
 * `kubegen delete api`: undoes what `kubegen create api` wrote for one kind version, from the record it left in
 * `kubegen.project.yaml` (`ScaffoldRecord`): the files it created are removed when their content is still what it
 * wrote (same sha256), the lines it inserted into `src/main.ts`, the kustomizations and (for a second version) the
 * first version's types are removed wherever they now are, the folders it made are removed once empty, and the kind's
 * entry leaves the project file. A file the user changed since — a created file with other content, or an edited
 * file whose inserted lines are no longer all there — is left exactly as it is and reported in `kept`.
 *
 * What other kinds still need stays and its record moves to them: `doc.ts` of a group version another kind uses, the
 * `config/crd` kustomization entry while another version of the kind remains. A kind with webhooks is refused
 * (`create webhook`'s edits are not recorded). Generated output (`src/generated`, the CRD YAML, role.yaml) is not
 * touched: `generate` prunes it. All checks run before anything changes; `dryRun` reports without changing anything.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parse } from 'yaml';
import { closest } from '../model/closest-name.js';
import { apisFolder, findProjectRoot, followEdits } from './create-api.js';
import { removeLines, sha256 } from './edits.js';
import type { FileEdit } from './edits.js';
import { ScaffoldError } from './errors.js';
import { exists } from './files.js';
import { MAIN_FILE } from './main-markers.js';
import { apiNames } from './names.js';
import type { ApiNames } from './names.js';
import { formatProjectFile, PROJECT_FILE, readProjectFile } from './project-file.js';
import type { ProjectResource, ScaffoldRecord } from './project-file.js';

export interface DeleteApiOptions {
  /** Where to start looking for the project root (the folder holding `kubegen.project.yaml`). */
  cwd: string;
  group: string;
  version: string;
  kind: string;
  /** Check everything and report what would change, changing nothing. */
  dryRun?: boolean;
}

export interface DeleteApiResult {
  root: string;
  /** The kind as the project names it: `<kind> (<group>.<domain>/<version>)`. */
  kind: string;
  /** Created files removed (all paths relative to `root`). */
  removed: string[];
  /** Folders create api made, removed once empty. */
  removedFolders: string[];
  /** Files whose inserted lines were removed, with those lines; `kubegen.project.yaml` is always updated besides. */
  reverted: { file: string; lines: string[] }[];
  /** Files left as they are because they changed since create api; `lines` are those still to remove by hand. */
  kept: { file: string; reason: string; lines?: string[] }[];
  /** Generated files of the kind still on disk (its code folder, its CRD), for `generate` to prune. */
  generated: string[];
  /** How many kinds the project still has. */
  remainingKinds: number;
}

const CRD_KUSTOMIZATION = 'config/crd/kustomization.yaml';

export async function deleteApi(opts: DeleteApiOptions): Promise<DeleteApiResult> {
  const root = await findProjectRoot(opts.cwd);
  const project = await readProjectFile(root);
  const n = apiNames(opts.group, project.domain, opts.version, opts.kind);
  const resource = project.resources.find((r) => r.group === n.group && r.version === n.version && r.kind === n.kind);
  if (!resource) throw new ScaffoldError(notFound(n, project.resources));
  const record = resource.scaffolded;
  if (!record) {
    throw new ScaffoldError(
      `${PROJECT_FILE} has no record of what create api wrote for ${n.kind} (made by an older kubegen); ` +
        `remove its files and its lines in ${MAIN_FILE} and config/*/kustomization.yaml by hand, then its entry in ${PROJECT_FILE}`,
    );
  }
  checkRecord(record, `${PROJECT_FILE} (resources[${project.resources.indexOf(resource)}].scaffolded)`);
  await refuseWebhooks(root, n);

  const remaining = project.resources.filter((r) => r !== resource);
  const sameVersion = remaining.find((r) => r.group === n.group && r.version === n.version);
  const sameKind = remaining.find((r) => r.group === n.group && r.kind === n.kind);
  const apis = path.relative(root, await apisFolder(root)).split(path.sep).join('/');
  const docFile = `${apis}/${n.group}/${n.version}/doc.ts`;
  const crdEntry = `  - bases/${n.fullGroup}_${n.plural}.yaml`;
  /** What other kinds inherit (their records grow by it). */
  const inherited = new Map<ProjectResource, ScaffoldRecord>();
  const inherit = (heir: ProjectResource | undefined, add: Partial<ScaffoldRecord>): void => {
    if (!heir?.scaffolded) return;
    const r = inherited.get(heir) ?? { files: [], folders: [], lines: [] };
    r.files.push(...(add.files ?? []));
    r.folders.push(...(add.folders ?? []));
    r.lines.push(...(add.lines ?? []));
    inherited.set(heir, r);
  };

  const result: DeleteApiResult = { root, kind: `${n.kind} (${n.fullGroup}/${n.version})`, removed: [], removedFolders: [], reverted: [], kept: [], generated: [], remainingKinds: remaining.length };
  for (const f of record.files) {
    if (f.path === docFile && sameVersion) {
      inherit(sameVersion, { files: [f] });
      continue;
    }
    const abs = path.join(root, ...f.path.split('/'));
    const st = await fs.lstat(abs).catch(() => undefined);
    if (st === undefined) continue; // already gone
    if (!st.isFile() || sha256(await fs.readFile(abs)) !== f.sha256) result.kept.push({ file: f.path, reason: 'changed since create api' });
    else result.removed.push(f.path);
  }
  const edits: FileEdit[] = [];
  for (const { file, lines } of record.lines) {
    const keep = file === CRD_KUSTOMIZATION && sameKind ? lines.filter((l) => l === crdEntry) : [];
    if (keep.length > 0) inherit(sameKind, { lines: [{ file, lines: keep }] });
    const drop = lines.filter((l) => !keep.includes(l));
    const abs = path.join(root, ...file.split('/'));
    if (drop.length === 0 || !(await exists(abs)) || result.removed.includes(file)) continue;
    const before = await fs.readFile(abs, 'utf8');
    const content = removeLines(before, drop);
    if (content === undefined) result.kept.push({ file, reason: 'the lines create api inserted are no longer all there', lines: drop });
    else {
      edits.push({ file, before, content });
      result.reverted.push({ file, lines: drop });
    }
  }
  const gone = new Set(result.removed);
  for (const folder of [...record.folders].reverse()) {
    if (await emptyOnceRemoved(root, folder, gone)) {
      result.removedFolders.push(folder);
      gone.add(folder);
    } else {
      // Another kind's files keep it: that kind removes it later. The user's files keep it for good.
      const heir = remaining.find((r) => r.scaffolded?.files.some((f) => f.path.startsWith(`${folder}/`)));
      inherit(heir, { folders: [folder] });
    }
  }
  result.generated = await generatedLeftovers(root, n);

  if (opts.dryRun) return result;
  for (const f of result.removed) await fs.rm(path.join(root, ...f.split('/')));
  for (const e of edits) await fs.writeFile(path.join(root, ...e.file.split('/')), e.content);
  for (const d of result.removedFolders) await fs.rmdir(path.join(root, ...d.split('/')));
  const resources = followEdits(remaining, edits).map((r, i) => {
    const add = inherited.get(remaining[i]!);
    if (!add || !r.scaffolded) return r;
    const depth = (d: string): number => d.split('/').length;
    const folders = [...new Set([...r.scaffolded.folders, ...add.folders])].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    const merged = { files: [...r.scaffolded.files, ...add.files], folders, lines: [...r.scaffolded.lines] };
    for (const l of add.lines) {
      const same = merged.lines.find((x) => x.file === l.file);
      if (same) same.lines = [...l.lines, ...same.lines];
      else merged.lines.push(l);
    }
    return { ...r, scaffolded: merged };
  });
  await fs.writeFile(path.join(root, PROJECT_FILE), formatProjectFile({ ...project, resources }));
  return result;
}

function notFound(n: ApiNames, resources: readonly ProjectResource[]): string {
  const here = `kind ${n.kind} does not exist in ${n.fullGroup}/${n.version}`;
  const sameVersion = resources.filter((r) => r.group === n.group && r.version === n.version).map((r) => r.kind);
  const near = closest(n.kind, sameVersion);
  if (near !== undefined) return `${here} (did you mean ${near}?)`;
  if (resources.length === 0) return `${here}: the project has no kinds`;
  return `${here}; the project's kinds: ${resources.map((r) => `${r.kind} (--group ${r.group} --version ${r.version})`).join(', ')}`;
}

/**
 * Throws unless `record` has the shape create api writes and names only files inside the project (relative paths
 * without `.`/`..` segments): the project file is the user's to edit, and delete api removes what it names.
 */
function checkRecord(record: ScaffoldRecord, where: string): void {
  const safe = (p: unknown): p is string =>
    typeof p === 'string' && p !== '' && !p.startsWith('/') && !p.includes('\\') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
  const bad = (what: string): never => {
    throw new ScaffoldError(`${where}: ${what}; restore it from version control, or remove the kind's files by hand`);
  };
  const r = record as Partial<Record<keyof ScaffoldRecord, unknown>>;
  if (!Array.isArray(r.files) || !Array.isArray(r.folders) || !Array.isArray(r.lines)) bad('expected files, folders and lines lists');
  (r.files as unknown[]).forEach((f, i) => {
    const e = f as { path?: unknown; sha256?: unknown } | null;
    if (!safe(e?.path) || typeof e?.sha256 !== 'string') bad(`files[${i}] is not a path inside the project with its sha256`);
  });
  (r.folders as unknown[]).forEach((d, i) => safe(d) || bad(`folders[${i}] is not a folder inside the project`));
  (r.lines as unknown[]).forEach((l, i) => {
    const e = l as { file?: unknown; lines?: unknown } | null;
    if (!safe(e?.file) || !Array.isArray(e?.lines) || !e.lines.every((x) => typeof x === 'string' && x !== '')) bad(`lines[${i}] is not a file inside the project with its lines`);
  });
}

/** create webhook's edits are not recorded: a kind with webhooks is refused, naming what it has. */
async function refuseWebhooks(root: string, n: ApiNames): Promise<void> {
  const found: string[] = [];
  for (const f of [`src/webhooks/${n.fileBase}-webhook.ts`, `src/webhooks/${n.fileBase}-conversion.ts`]) {
    if (await exists(path.join(root, f))) found.push(f);
  }
  const main = await fs.readFile(path.join(root, MAIN_FILE), 'utf8').catch(() => '');
  for (const setup of [`setup${n.kind}Webhook`, `setup${n.kind}Conversion`]) {
    if (new RegExp(`\\b${setup}\\(`).test(main)) found.push(`${setup}(…) in ${MAIN_FILE}`);
  }
  if (found.length > 0) {
    throw new ScaffoldError(
      `kind ${n.kind} has webhooks (${found.join(', ')}); delete api does not undo create webhook: remove the webhooks by hand first`,
    );
  }
}

/** Whether the folder `rel` holds nothing once the files and folders in `gone` are removed. */
async function emptyOnceRemoved(root: string, rel: string, gone: ReadonlySet<string>): Promise<boolean> {
  let entries;
  try {
    entries = await fs.readdir(path.join(root, ...rel.split('/')), { withFileTypes: true });
  } catch {
    return false; // already gone, or not a folder: nothing to remove
  }
  for (const e of entries) {
    const child = `${rel}/${e.name}`;
    if (gone.has(child)) continue;
    if (!e.isDirectory() || !(await emptyOnceRemoved(root, child, gone))) return false;
  }
  return true;
}

/** The kind's generated code folder and CRD file, when they exist (the project's `out`, `crdOut` or the defaults). */
async function generatedLeftovers(root: string, n: ApiNames): Promise<string[]> {
  let cfg: { out?: unknown; crdOut?: unknown } = {};
  try {
    cfg = (parse(await fs.readFile(path.join(root, 'codegen.config.yaml'), 'utf8')) as typeof cfg | null) ?? {};
  } catch {
    // the default layout
  }
  const dir = (v: unknown, dflt: string): string => (typeof v === 'string' && v !== '' ? v.replace(/\/+$/, '') : dflt);
  const candidates = [`${dir(cfg.out, 'src/generated')}/${n.fullGroup}/${n.version}`, `${dir(cfg.crdOut, 'config/crd/bases')}/${n.fullGroup}_${n.plural}.yaml`];
  const found: string[] = [];
  for (const c of candidates) if (await exists(path.join(root, c))) found.push(c);
  return found;
}
