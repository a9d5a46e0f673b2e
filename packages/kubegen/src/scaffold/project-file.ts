/**
 * `kubegen.project.yaml`, kubebuilder's `PROJECT`: written by `codegen init`, extended by every `codegen create api`.
 * It records the domain (API groups are `<group>.<domain>`) and each scaffolded kind, so that `create api` can refuse
 * duplicates and knows which kinds already have a controller. Only the scaffolder writes it.
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
}

export interface ProjectFile {
  layout: string;
  projectName: string;
  domain: string;
  resources: ProjectResource[];
}

export function newProjectFile(projectName: string, domain: string): ProjectFile {
  return { layout: LAYOUT, projectName, domain, resources: [] };
}

export function formatProjectFile(p: ProjectFile): string {
  return `# Written by codegen init and codegen create api; records the domain and the scaffolded kinds.\n${stringify(p)}`;
}

/** Reads and checks `<root>/kubegen.project.yaml`; a missing or malformed file is a {@link ScaffoldError}. */
export async function readProjectFile(root: string): Promise<ProjectFile> {
  const file = path.join(root, PROJECT_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new ScaffoldError(`${file} not found: run "codegen init" first (create api works in projects made by codegen init)`);
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
  return { layout: p.layout ?? LAYOUT, projectName: p.projectName, domain: p.domain, resources: p.resources ?? [] };
}
