/**
 * A project's RBAC as `kubectl apply -k config/default` would create it, read without a kustomize binary: the
 * documents `config/rbac/kustomization.yaml` lists under `resources`, transformed by its own and by
 * `config/default/kustomization.yaml`'s `namespace`, `namePrefix`, `labels`, `commonLabels` and `commonAnnotations`
 * (inner folder first, as kustomize does), with the references kustomize rewrites: a binding's `roleRef.name` when it
 * names a Role or ClusterRole of the set, and a `ServiceAccount` subject's name and namespace when it names a
 * ServiceAccount of the set (a subject named `default` outside the set gets the namespace, kustomize's
 * `defaultOnly`).
 *
 * This is the subset kubebuilder-style layouts (and `kubegen init`) use. Anything else that could change the RBAC
 * objects (another transformer, a nested kustomization, a patch or replacement aimed at an RBAC kind, a kind other
 * than ServiceAccount, Role, ClusterRole and their bindings) is refused with an error naming the file, never
 * silently skipped: render such a project with kustomize and pass the objects to `rbacFromObjects` instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import type { KubeObject } from '../../client/types.js';

/** The kinds a project's RBAC folder may hold (installed in this order). */
export const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'Role', 'ClusterRoleBinding', 'RoleBinding'] as const;
const NAMESPACED = new Set(['ServiceAccount', 'Role', 'RoleBinding']);

/** A ServiceAccount's namespace and name. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** What {@link readProjectRbac} found: the objects to install and the ServiceAccount the manager runs as. */
export interface ProjectRbac {
  /** ServiceAccounts, ClusterRoles, Roles, ClusterRoleBindings, RoleBindings, in that order, as they would be applied. */
  objects: KubeObject[];
  /** Every namespace a namespaced object lives in (to create when missing). */
  namespaces: string[];
  /** The manager's ServiceAccount (final name and namespace). */
  serviceAccount: ServiceAccountRef;
  /** The user the apiserver sees for it: `system:serviceaccount:<namespace>:<name>`. */
  user: string;
}

/** Settings of {@link readProjectRbac}; all optional. */
export interface ProjectRbacOptions {
  /** Put namespaced objects (and ServiceAccount subjects) here instead of config/default's `namespace`, e.g. a test's namespace. */
  namespace?: string;
  /** Use this name prefix instead of config/default's `namePrefix` (cluster-scoped names must be unique per control plane). */
  namePrefix?: string;
  /** The manager's ServiceAccount by its name in config/rbac, when the folder holds more than one. */
  serviceAccountName?: string;
}

interface Kustomization {
  file: string;
  raw: Record<string, unknown>;
  namespace?: string;
  namePrefix: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  resources: string[];
}

/** Keys of a kustomization that cannot change RBAC objects, or that this reader applies or checks. */
const HARMLESS_DEFAULT_KEYS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'namePrefix', 'labels', 'commonLabels', 'commonAnnotations', 'images', 'configurations', 'sortOptions', 'buildMetadata', 'patches', 'replacements']);
const RBAC_FOLDER_KEYS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'namePrefix', 'labels', 'commonLabels', 'commonAnnotations', 'sortOptions', 'buildMetadata']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Collects every problem of one read, so that one error lists them all. */
class Problems {
  readonly lines: string[] = [];
  constructor(private readonly root: string) {}
  add(file: string, message: string): void {
    this.lines.push(`${this.show(file)}: ${message}`);
  }
  show(file: string): string {
    const rel = path.relative(this.root, file);
    return rel && !rel.startsWith('..') ? rel : file;
  }
  throwIfAny(): void {
    if (this.lines.length === 1) throw new Error(`project RBAC: ${this.lines[0]}`);
    if (this.lines.length > 1) throw new Error(`project RBAC: ${this.lines.length} problems:\n  ${this.lines.join('\n  ')}`);
  }
}

function readYamlDocs(file: string, problems: Problems): unknown[] | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    const hint = missing && path.basename(file) === 'role.yaml' ? ' (`npm run generate` writes it from the +kubebuilder:rbac markers)' : '';
    problems.add(file, missing ? `does not exist${hint}` : (err as Error).message);
    return undefined;
  }
  try {
    return loadAll(text).filter((d) => d !== null && d !== undefined);
  } catch (err) {
    problems.add(file, `not valid YAML: ${(err as Error).message}`);
    return undefined;
  }
}

/** `labels` (`[{pairs}]`) and `commonLabels` of a kustomization, merged. */
function labelsOf(k: Record<string, unknown>, file: string, problems: Problems): Record<string, string> {
  const out: Record<string, string> = {};
  if (k['labels'] !== undefined) {
    if (!Array.isArray(k['labels'])) problems.add(file, '`labels` is not a list');
    else
      k['labels'].forEach((entry: unknown, i) => {
        if (!isRecord(entry) || !isRecord(entry['pairs'])) problems.add(file, `labels[${i}] has no \`pairs\` map`);
        else Object.assign(out, entry['pairs']);
      });
  }
  if (k['commonLabels'] !== undefined) {
    if (!isRecord(k['commonLabels'])) problems.add(file, '`commonLabels` is not a map');
    else Object.assign(out, k['commonLabels']);
  }
  return out;
}

function readKustomization(dir: string, allowed: ReadonlySet<string>, problems: Problems): Kustomization | undefined {
  const file = path.join(dir, 'kustomization.yaml');
  const docs = readYamlDocs(file, problems);
  if (!docs) return undefined;
  const k = docs[0];
  if (docs.length !== 1 || !isRecord(k)) {
    problems.add(file, 'is not one YAML map');
    return undefined;
  }
  for (const key of Object.keys(k)) {
    if (!allowed.has(key)) problems.add(file, `\`${key}\` is not supported by kubegen's RBAC reader (it applies resources, namespace, namePrefix, labels, commonLabels and commonAnnotations); render the RBAC with kustomize and use rbacFromObjects()`);
  }
  const str = (key: string): string | undefined => {
    const v = k[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') problems.add(file, `\`${key}\` is not a string`);
    return typeof v === 'string' ? v : undefined;
  };
  const resources = k['resources'] ?? [];
  if (!Array.isArray(resources) || resources.some((r) => typeof r !== 'string')) problems.add(file, '`resources` is not a list of paths');
  const annotations = k['commonAnnotations'];
  if (annotations !== undefined && !isRecord(annotations)) problems.add(file, '`commonAnnotations` is not a map');
  const namespace = str('namespace');
  return {
    file,
    raw: k,
    ...(namespace !== undefined ? { namespace } : {}),
    namePrefix: str('namePrefix') ?? '',
    labels: labelsOf(k, file, problems),
    annotations: isRecord(annotations) ? (annotations as Record<string, string>) : {},
    resources: Array.isArray(resources) ? resources.filter((r): r is string => typeof r === 'string') : [],
  };
}

/** Refuses patches and replacements of config/default that may aim at an RBAC kind (they are not applied here). */
function checkDefaultEdits(dir: string, k: Record<string, unknown>, file: string, problems: Problems): void {
  const rbacKind = (kind: unknown): boolean => kind === undefined || (RBAC_KINDS as readonly unknown[]).includes(kind);
  const patches = Array.isArray(k['patches']) ? k['patches'] : [];
  patches.forEach((p: unknown, i) => {
    if (!isRecord(p)) return;
    const target = isRecord(p['target']) ? p['target'] : undefined;
    let kinds: unknown[] = target ? [target['kind']] : [];
    if (!target) {
      const docs = typeof p['path'] === 'string' ? (readYamlDocs(path.join(dir, p['path']), problems) ?? []) : typeof p['patch'] === 'string' ? safeLoad(p['patch']) : [];
      kinds = docs.map((d) => (isRecord(d) ? d['kind'] : undefined));
    }
    if (kinds.some(rbacKind)) problems.add(file, `patches[${i}] may change RBAC objects, which kubegen's RBAC reader does not apply; render with kustomize and use rbacFromObjects()`);
  });
  const replacements = Array.isArray(k['replacements']) ? k['replacements'] : [];
  replacements.forEach((r: unknown, i) => {
    const targets = isRecord(r) && Array.isArray(r['targets']) ? r['targets'] : [undefined];
    if (targets.some((t: unknown) => !isRecord(t) || !isRecord(t['select']) || rbacKind(t['select']['kind']))) {
      problems.add(file, `replacements[${i}] may change RBAC objects, which kubegen's RBAC reader does not apply; render with kustomize and use rbacFromObjects()`);
    }
  });
}

function safeLoad(text: string): unknown[] {
  try {
    return loadAll(text);
  } catch {
    return [undefined];
  }
}

interface Loaded {
  obj: KubeObject & Record<string, unknown>;
  file: string;
  /** The name in its file. */
  sourceName: string;
  /** Name and namespace before the current level's transformation (what its references use). */
  origName: string;
  origNamespace: string | undefined;
}

function loadResources(k: Kustomization, problems: Problems): Loaded[] {
  const out: Loaded[] = [];
  const dir = path.dirname(k.file);
  k.resources.forEach((entry, i) => {
    if (/^[a-z]+:\/\//i.test(entry)) return problems.add(k.file, `resources[${i}] ${entry}: remote resources are not supported`);
    const file = path.resolve(dir, entry);
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) return problems.add(k.file, `resources[${i}] ${entry} is a folder (a nested kustomization), which kubegen's RBAC reader does not follow`);
    const docs = readYamlDocs(file, problems);
    docs?.forEach((doc, d) => {
      const where = docs.length > 1 ? ` (document ${d + 1})` : '';
      if (!isRecord(doc)) return problems.add(file, `${where.trim() || 'the document'} is not a YAML map`);
      const kind = doc['kind'];
      if (!(RBAC_KINDS as readonly unknown[]).includes(kind)) {
        return problems.add(file, `kind ${JSON.stringify(kind)}${where} is not installed by kubegen's RBAC reader (ServiceAccount, Role, ClusterRole, RoleBinding, ClusterRoleBinding only)`);
      }
      const meta = isRecord(doc['metadata']) ? doc['metadata'] : undefined;
      if (!meta || typeof meta['name'] !== 'string' || meta['name'] === '') return problems.add(file, `${String(kind)}${where} has no metadata.name`);
      const obj = structuredClone(doc) as KubeObject & Record<string, unknown>;
      out.push({ obj, file, sourceName: meta['name'], origName: meta['name'], origNamespace: typeof meta['namespace'] === 'string' ? meta['namespace'] : undefined });
    });
  });
  return out;
}

/** One kustomization level: names, namespaces, labels, annotations, then the references into the set. */
function transform(items: Loaded[], level: { namePrefix: string; namespace: string | undefined; labels: Record<string, string>; annotations: Record<string, string> }): void {
  const byOrig = new Map<string, Loaded>();
  for (const it of items) byOrig.set(`${it.obj.kind}/${it.origName}`, it);
  for (const it of items) {
    const meta = it.obj.metadata!;
    meta.name = level.namePrefix + meta.name!;
    if (NAMESPACED.has(it.obj.kind!) && level.namespace !== undefined) meta.namespace = level.namespace;
    if (Object.keys(level.labels).length > 0) meta.labels = { ...meta.labels, ...level.labels };
    if (Object.keys(level.annotations).length > 0) meta.annotations = { ...meta.annotations, ...level.annotations };
  }
  for (const it of items) {
    if (it.obj.kind !== 'RoleBinding' && it.obj.kind !== 'ClusterRoleBinding') continue;
    const roleRef = it.obj['roleRef'];
    if (isRecord(roleRef) && typeof roleRef['name'] === 'string') {
      const target = byOrig.get(`${String(roleRef['kind'])}/${roleRef['name']}`);
      if (target) roleRef['name'] = target.obj.metadata!.name;
    }
    const subjects = Array.isArray(it.obj['subjects']) ? (it.obj['subjects'] as unknown[]) : [];
    for (const s of subjects) {
      if (!isRecord(s) || s['kind'] !== 'ServiceAccount' || typeof s['name'] !== 'string') continue;
      const target = byOrig.get(`ServiceAccount/${s['name']}`);
      if (target && (s['namespace'] === undefined || s['namespace'] === target.origNamespace)) {
        s['name'] = target.obj.metadata!.name;
        if (target.obj.metadata!.namespace !== undefined) s['namespace'] = target.obj.metadata!.namespace;
      } else if (!target && s['name'] === 'default' && level.namespace !== undefined) {
        s['namespace'] = level.namespace;
      }
    }
  }
  // References are matched by the original names of this level's input: the next level sees today's names.
  for (const it of items) {
    it.origName = it.obj.metadata!.name!;
    it.origNamespace = it.obj.metadata!.namespace;
  }
}

/**
 * Reads `<projectDir>/config/rbac` as `kubectl apply -k <projectDir>/config/default` would apply it (see the module
 * comment). Throws one error listing every problem, each naming its file; nothing is installed here.
 */
export function readProjectRbac(projectDir: string, opts: ProjectRbacOptions = {}): ProjectRbac {
  const root = path.resolve(projectDir);
  const problems = new Problems(root);
  const defaultDir = path.join(root, 'config/default');
  const rbacDir = path.join(root, 'config/rbac');
  const outer = readKustomization(defaultDir, HARMLESS_DEFAULT_KEYS, problems);
  const inner = readKustomization(rbacDir, RBAC_FOLDER_KEYS, problems);
  if (outer) {
    checkDefaultEdits(defaultDir, outer.raw, outer.file, problems);
    if (!outer.resources.some((r) => path.resolve(defaultDir, r) === rbacDir)) problems.add(outer.file, '`resources` does not include ../rbac, so the project deploys none of config/rbac');
  }
  const items = inner ? loadResources(inner, problems) : [];
  problems.throwIfAny();
  transform(items, { namePrefix: inner!.namePrefix, namespace: inner!.namespace, labels: inner!.labels, annotations: inner!.annotations });
  transform(items, {
    namePrefix: opts.namePrefix ?? outer!.namePrefix,
    namespace: opts.namespace ?? outer!.namespace,
    labels: outer!.labels,
    annotations: outer!.annotations,
  });
  for (const it of items) {
    if (NAMESPACED.has(it.obj.kind!) && !it.obj.metadata!.namespace) problems.add(it.file, `${it.obj.kind} ${it.obj.metadata!.name} has no namespace, and config/default/kustomization.yaml sets none`);
  }
  const accounts = items.filter((it) => it.obj.kind === 'ServiceAccount');
  const chosen = opts.serviceAccountName !== undefined ? accounts.filter((it) => it.sourceName === opts.serviceAccountName) : accounts;
  if (chosen.length !== 1) {
    const names = accounts.map((a) => a.sourceName).join(', ') || 'none';
    problems.add(inner!.file, opts.serviceAccountName !== undefined ? `no ServiceAccount ${opts.serviceAccountName} among its resources (found: ${names})` : `needs exactly one ServiceAccount among its resources to run the manager as (found: ${names}); pass serviceAccountName`);
  }
  problems.throwIfAny();
  const sa = chosen[0]!.obj.metadata!;
  return rbacFromObjects(items.map((it) => it.obj), { namespace: sa.namespace!, name: sa.name! });
}

/**
 * A {@link ProjectRbac} from objects rendered elsewhere (e.g. `kubectl kustomize config/default`, filtered to the RBAC
 * kinds): sorted into apply order, with the namespaces they need and the ServiceAccount the manager runs as.
 * Objects of other kinds are refused.
 */
export function rbacFromObjects(objects: readonly KubeObject[], serviceAccount: ServiceAccountRef): ProjectRbac {
  const order = (o: KubeObject): number => {
    const i = (RBAC_KINDS as readonly (string | undefined)[]).indexOf(o.kind);
    if (i < 0) throw new Error(`project RBAC: ${o.kind} ${o.metadata?.name ?? ''} is not one of ${RBAC_KINDS.join(', ')}`);
    return i;
  };
  const sorted = [...objects].sort((a, b) => order(a) - order(b));
  if (!sorted.some((o) => o.kind === 'ServiceAccount' && o.metadata?.name === serviceAccount.name && o.metadata?.namespace === serviceAccount.namespace)) {
    throw new Error(`project RBAC: the ServiceAccount ${serviceAccount.namespace}/${serviceAccount.name} is not among the objects`);
  }
  const namespaces = [...new Set(sorted.filter((o) => NAMESPACED.has(o.kind!)).map((o) => o.metadata!.namespace!))].sort();
  return { objects: sorted, namespaces, serviceAccount, user: `system:serviceaccount:${serviceAccount.namespace}:${serviceAccount.name}` };
}
