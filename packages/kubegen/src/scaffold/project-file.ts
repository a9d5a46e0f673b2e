/**
 * `kubegen.project.yaml`, kubebuilder's `PROJECT`: written by `kubegen init`, extended by every `kubegen create api`
 * and shrunk by `kubegen delete api`. It records the domain (API groups are `<group>.<domain>`) and each scaffolded
 * kind, so that `create api` can refuse duplicates and knows which kinds already have a controller, and — in each
 * kind's `scaffolded` record — exactly what `create api` wrote, so that `delete api` can undo it. Only the scaffolder
 * writes it.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { ScaffoldError } from './errors.js';

export const PROJECT_FILE = 'kubegen.project.yaml';
const LAYOUT = 'kubegen.io/v1';

export interface ProjectResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  controller: boolean;
  /** What `create api` wrote for this kind; absent in projects made by a kubegen older than `delete api`. */
  scaffolded?: ScaffoldRecord;
}

/** What one `create api` wrote, relative to the project root: enough for `delete api` to undo exactly that. */
export interface ScaffoldRecord {
  /** Files it created, with the sha256 (hex) of their content as kubegen last wrote it. */
  files: { path: string; sha256: string }[];
  /** Folders it created (they did not exist before), parents first. */
  folders: string[];
  /** Lines it inserted into files that existed, per file, each a whole line as inserted. */
  lines: { file: string; lines: string[] }[];
}

export interface ProjectFile {
  layout: string;
  projectName: string;
  domain: string;
  /** Made by `kubegen init --multicluster`: `create api` scaffolds multi-cluster controllers. Absent: single cluster. */
  multicluster?: boolean;
  resources: ProjectResource[];
}

export function newProjectFile(projectName: string, domain: string, multicluster = false): ProjectFile {
  return { layout: LAYOUT, projectName, domain, ...(multicluster ? { multicluster: true } : {}), resources: [] };
}

export function formatProjectFile(p: ProjectFile): string {
  return `# Written by kubegen init, create api and delete api; records the domain and the scaffolded kinds.\n${stringify(p, { lineWidth: 0 })}`;
}

/** Reads and checks `<root>/kubegen.project.yaml`; a missing or malformed file is a {@link ScaffoldError}. */
export async function readProjectFile(root: string): Promise<ProjectFile> {
  const file = path.join(root, PROJECT_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new ScaffoldError(`${file} not found: run "kubegen init" first (create api works in projects made by kubegen init)`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new ScaffoldError(`${file}: not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  const p = doc as Partial<ProjectFile> | null;
  if (!p || typeof p !== 'object' || typeof p.domain !== 'string' || typeof p.projectName !== 'string' || !Array.isArray(p.resources ?? [])) {
    throw new ScaffoldError(`${file}: expected keys projectName, domain and resources`);
  }
  if (p.multicluster !== undefined && typeof p.multicluster !== 'boolean') throw new ScaffoldError(`${file}: multicluster must be true or false`);
  return { layout: p.layout ?? LAYOUT, projectName: p.projectName, domain: p.domain, ...(p.multicluster ? { multicluster: true } : {}), resources: p.resources ?? [] };
}
