import type { ApiModel } from '../model/index.js';
import type { GeneratedFile, GenerateOptions } from '../generate/index.js';

/**
 * The front ends and generators a command drives. The real ones are imported lazily, each when first needed (so
 * `--help` stays fast and bad input is reported before the generators are even loaded); tests inject stubs.
 */
export interface Pipeline {
  parseCrdPaths(paths: string[]): Promise<ApiModel>;
  generate(model: ApiModel, opts: GenerateOptions): GeneratedFile[] | Promise<GeneratedFile[]>;
}

/** The real pipeline: the CRD front end and `generate()`. */
export const defaultPipeline: Pipeline = {
  async parseCrdPaths(paths) {
    const { parseCrdPaths } = await import('../parse/crd/index.js');
    return parseCrdPaths(paths);
  },
  async generate(model, opts) {
    const { generate } = await import('../generate/index.js');
    return generate(model, opts);
  },
};
