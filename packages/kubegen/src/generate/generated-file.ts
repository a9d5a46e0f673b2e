/** What every generator returns: files, each for one output folder. */

/** The output folder a YAML file goes to: the CLI's `crdOut`, `rbacOut`, `webhookOut` (see `manifests.ts`). */
export type ManifestOutput = 'crds' | 'rbac' | 'webhooks';

/**
 * One file the generators produce: a path relative to its output folder (always `/`-separated) and its text. Code
 * has no `output` (it goes to the code folder); YAML says which folder it goes to.
 */
export interface GeneratedFile {
  path: string;
  content: string;
  output?: ManifestOutput;
}
