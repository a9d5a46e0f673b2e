/**
 * Keeping a scaffolded kind's sample (`config/samples/<group>_<version>_<kind>.yaml`) valid as its types change:
 * `kubegen generate` in a scaffolded project rewrites each sample `create api` wrote from the types as they now are
 * (`kubegen sample`'s generator: the smallest object the apiserver accepts, required fields filled in) — unless the
 * user edited it since kubegen last wrote it (its sha256 no longer the one `kubegen.project.yaml` records), which is
 * then left alone. The record follows each rewrite, so `delete api` still knows the file as kubegen's.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ApiModel } from '../model/index.js';
import { sha256 } from './edits.js';
import { formatProjectFile, PROJECT_FILE, readProjectFile } from './project-file.js';

/** `config/samples/<group>_<version>_<kind>.yaml`, as kubebuilder names them. */
export function sampleFile(n: Pick<SampleSubject, 'group' | 'version' | 'fileBase'>): string {
  return `config/samples/${n.group}_${n.version}_${n.fileBase}.yaml`;
}

/** What a project's sample is made of: the kind, its project's name, and where its types live. */
export interface SampleSubject {
  fullGroup: string;
  group: string;
  version: string;
  kind: string;
  fileBase: string;
}

/**
 * A kind's sample from `model` (the TypeScript front end's, over `apisDir`), with kubebuilder's sample labels;
 * undefined when the model has no such kind.
 */
export async function projectSample(model: ApiModel, n: SampleSubject, projectName: string, apisDir: string): Promise<string | undefined> {
  const resource = model.resources.find((r) => r.group === n.fullGroup && r.names.kind === n.kind);
  const version = resource?.versions.find((v) => v.name === n.version);
  if (!resource || !version) return undefined;
  const { sampleYaml } = await import('../generate/sample/index.js');
  const apis = path.basename(apisDir);
  return sampleYaml(
    { resource, version },
    {
      name: `${n.fileBase}-sample`,
      labels: { 'app.kubernetes.io/name': projectName, 'app.kubernetes.io/managed-by': 'kustomize' },
      specComment: `The smallest valid ${n.kind}, made by \`npx kubegen sample --apis ${apis} --kind ${n.kind}\` from\n${apis}/${n.group}/${n.version}/${n.fileBase}_types.ts; \`npm run generate\` remakes it until you edit it.`,
    },
  );
}

/**
 * Rewrites the samples of `root` (a scaffolded project) that changed and that the user has not edited; returns the
 * paths rewritten and those left because they were edited, relative to `root`. Does nothing without a project file.
 */
export async function refreshSamples(root: string, model: ApiModel, apisDir: string): Promise<{ refreshed: string[]; edited: string[] }> {
  const out = { refreshed: [] as string[], edited: [] as string[] };
  try {
    await fs.access(path.join(root, PROJECT_FILE));
  } catch {
    return out;
  }
  const project = await readProjectFile(root);
  let changed = false;
  for (const r of project.resources) {
    const entry = r.scaffolded?.files.find((f) => f.path.startsWith('config/samples/') && f.path.endsWith('.yaml'));
    if (!entry) continue;
    let current: string;
    try {
      current = await fs.readFile(path.join(root, entry.path), 'utf8');
    } catch {
      continue; // deleted by the user: theirs to bring back
    }
    if (sha256(current) !== entry.sha256) {
      out.edited.push(entry.path);
      continue;
    }
    const fileBase = path.posix.basename(entry.path, '.yaml').slice(`${r.group}_${r.version}_`.length);
    const fresh = await projectSample(model, { fullGroup: `${r.group}.${project.domain}`, group: r.group, version: r.version, kind: r.kind, fileBase }, project.projectName, apisDir);
    if (fresh === undefined || fresh === current) continue;
    await fs.writeFile(path.join(root, entry.path), fresh);
    entry.sha256 = sha256(fresh);
    changed = true;
    out.refreshed.push(entry.path);
  }
  if (changed) await fs.writeFile(path.join(root, PROJECT_FILE), formatProjectFile(project));
  return out;
}
