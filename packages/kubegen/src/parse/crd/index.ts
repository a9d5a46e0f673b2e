/**
 * The CRD front end: reads apiextensions.k8s.io/v1 CustomResourceDefinition YAML/JSON files into an `ApiModel`.
 * Every problem with the input is an `InputError` naming file, line:column and JSON path.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, sortModel } from '../../model/index.js';
import type { ApiModel, ResourceModel, SourceLocation } from '../../model/index.js';
import { documentToResources, isResourceList } from './crd.js';
import { parseDocuments } from './yaml-source.js';

export { formatPath } from './yaml-source.js';
export { clusterSource, definitionOf, parseCrdObjects } from './cluster.js';

const EXTENSIONS = /\.(ya?ml|json)$/i;
/** kustomize's file names: in a folder (kubebuilder's `config/crd`) they are skipped, never read as CRDs. */
const KUSTOMIZATION = /^(kustomization\.ya?ml|Kustomization)$/;

/** An input passed over: a kustomization file in a folder, or (with `skipNonCrds`) a document that is no CRD. */
export interface SkippedInput {
  file: string;
  /** 1-based line of the document, 0 for a whole file. */
  line: number;
  reason: string;
}

export interface CrdReadOptions {
  /** Documents that are not CRDs (Deployments, Services… of an install bundle) are skipped instead of refused. */
  skipNonCrds?: boolean;
  /** Told about every input passed over. */
  onSkip?: (skipped: SkippedInput) => void;
  /** Told about YAML kubectl reads but that is dubious (an unquoted `yes`, a duplicate key: see `kubectl-yaml.ts`). */
  onWarning?: (where: SourceLocation, message: string) => void;
}

/** Parses one file's text (any number of YAML documents, or JSON) into the resources it defines. */
export function parseCrdText(text: string, file: string, opts: CrdReadOptions = {}): ResourceModel[] {
  const out: ResourceModel[] = [];
  for (const doc of parseDocuments(text, file, opts.onWarning)) {
    const kind = (doc.value as { kind?: unknown } | null)?.kind;
    if (opts.skipNonCrds && kind !== 'CustomResourceDefinition' && !isResourceList(doc.value)) {
      const name = (doc.value as { metadata?: { name?: unknown } } | null)?.metadata?.name;
      opts.onSkip?.({ file, line: doc.locate([]).line, reason: `${typeof kind === 'string' ? kind : 'a document without a kind'}${typeof name === 'string' ? ` ${name}` : ''} is not a CustomResourceDefinition` });
      continue;
    }
    out.push(...documentToResources(doc));
  }
  return out;
}

/**
 * Reads files and folders (walked recursively in sorted order for .yaml, .yml and .json; kustomization files in
 * folders are skipped) and returns the sorted model. Two CRDs with the same group and kind are an error naming both.
 */
export async function parseCrdPaths(paths: string[], opts: CrdReadOptions = {}): Promise<ApiModel> {
  const files: string[] = [];
  for (const p of paths) files.push(...(await listFiles(p, opts)));
  const resources: ResourceModel[] = [];
  const byKey = new Map<string, ResourceModel>();
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    for (const r of parseCrdText(text, file, opts)) {
      const key = `${r.group}/${r.names.kind}`;
      const prev = byKey.get(key);
      if (prev) {
        throw new InputError(r.source, `duplicate CRD for ${r.names.kind}.${r.group}: also defined in ${prev.source.file}:${prev.source.line}`);
      }
      byKey.set(key, r);
      resources.push(r);
    }
  }
  return sortModel({ resources });
}

async function listFiles(path: string, opts: CrdReadOptions): Promise<string[]> {
  let st;
  try {
    st = await stat(path);
  } catch {
    throw new InputError({ file: path, line: 0, column: 0 }, 'no such file or directory');
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = join(path, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(full, opts)));
    else if (e.isFile() && KUSTOMIZATION.test(e.name)) opts.onSkip?.({ file: full, line: 0, reason: 'a kustomization file' });
    else if (e.isFile() && EXTENSIONS.test(e.name)) out.push(full);
  }
  return out;
}
