import fs from 'node:fs';
import path from 'node:path';
import type { CrdObject } from '@kubegen/runtime/internal/testing/envtest/envtest-crds.js';
import { parseDocuments } from 'kubegen/internal/parse/crd/yaml-source.js';
import { CORPUS_DIR, fixture } from './paths.js';

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

/** fixtures/crds-wave5: the public CRDs of issue 38's shapes (its SOURCES.md says which file has which). */
export const WAVE5_DIR = fixture('crds-wave5');

/** crds-wave5 as runs: one (no group and kind is defined twice; the `.m.` twins are groups of their own). */
export function wave5Runs(): string[][] {
  return [listYaml(WAVE5_DIR)];
}

/**
 * The CRDs of a fixture file, read as kubectl reads YAML (kubegen's reader: crds-wave5 has a duplicate key and a
 * quoted scalar with under-indented continuation lines, which the envtest harness' `parseCrds` refuses).
 */
export function readFixtureCrds(file: string): CrdObject[] {
  return parseDocuments(fs.readFileSync(file, 'utf8'), file)
    .map((d) => d.value as CrdObject)
    .filter((v) => v.kind === 'CustomResourceDefinition');
}

function listYaml(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? listYaml(path.join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(dir, e.name)] : []));
}
