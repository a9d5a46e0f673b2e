import type { ApiModel } from '../model/index.js';

/** One file the generators produce: a path relative to the output folder (always `/`-separated) and its text. */
export interface GeneratedFile {
  path: string;
  content: string;
}

export interface GenerateOptions {
  /** The module generated code imports the runtime from. Default `kubegen/runtime`. */
  runtimeImport?: string;
  /** Extension used in relative imports between generated files: `.js` (default, for NodeNext) or `''`. */
  importExtension?: '.js' | '.ts' | '';
  /** Called once per group/version as it is generated, for progress output. */
  onProgress?: (done: number, total: number, label: string) => void;
}

/**
 * Runs every generator over the model and returns the files in a stable order. Pure: reads nothing, writes nothing.
 * Writing (atomically) and verifying are the CLI's job (`src/cli`).
 */
export function generate(model: ApiModel, opts: GenerateOptions = {}): GeneratedFile[] {
  void model;
  void opts;
  throw new Error('not implemented yet');
}
