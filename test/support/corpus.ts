import fs from 'node:fs';
import path from 'node:path';
import { CORPUS_DIR } from './paths.js';

/**
 * The corpus split into runs that can each be generated together: two pairs of files define the same kind
 * (sample-controller's Foo with and without the status subresource; Argo's Workflow, stripped and full), and one
 * `codegen` run refuses two CRDs for one group+kind, as the apiserver would. The second run takes the duplicates.
 */
export const CORPUS_DUPLICATES = [
  path.join(CORPUS_DIR, 'sample-controller', 'crd.yaml'),
  path.join(CORPUS_DIR, 'argo-workflows', 'argoproj.io_workflows.yaml'),
];

export function corpusRuns(): string[][] {
  const all = listYaml(CORPUS_DIR);
  return [all.filter((f) => !CORPUS_DUPLICATES.includes(f)), CORPUS_DUPLICATES];
}

function listYaml(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? listYaml(path.join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(dir, e.name)] : []));
}
