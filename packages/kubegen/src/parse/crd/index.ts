/**
 * The CRD front end: reads apiextensions.k8s.io/v1 CustomResourceDefinition YAML/JSON files into an `ApiModel`.
 * Every problem with the input is an `InputError` naming file, line:column and JSON path.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, sortModel } from '../../model/index.js';
import type { ApiModel, ResourceModel } from '../../model/index.js';
import { documentToResources } from './crd.js';
import { parseDocuments } from './yaml-source.js';

export { formatPath } from './yaml-source.js';

const EXTENSIONS = /\.(ya?ml|json)$/i;

/** Parses one file's text (any number of YAML documents, or JSON) into the resources it defines. */
export function parseCrdText(text: string, file: string): ResourceModel[] {
  const out: ResourceModel[] = [];
  for (const doc of parseDocuments(text, file)) out.push(...documentToResources(doc));
  return out;
}

/**
 * Reads files and folders (walked recursively in sorted order for .yaml, .yml and .json) and returns the sorted
 * model. Two CRDs with the same group and kind are an error naming both files.
 */
export async function parseCrdPaths(paths: string[]): Promise<ApiModel> {
  const files: string[] = [];
  for (const p of paths) files.push(...(await listFiles(p)));
  const resources: ResourceModel[] = [];
  const byKey = new Map<string, ResourceModel>();
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    for (const r of parseCrdText(text, file)) {
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

async function listFiles(path: string): Promise<string[]> {
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
    if (e.isDirectory()) out.push(...(await listFiles(full)));
    else if (e.isFile() && EXTENSIONS.test(e.name)) out.push(full);
  }
  return out;
}
