import type { ApiModel } from '../model/index.js';
import type { GeneratedFile, GenerateOptions } from '../generate/index.js';
import type { ParseApisOptions } from '../parse/typescript/index.js';
import type { CrdReadOptions } from '../parse/crd/index.js';
import type { ClusterConnection, ClusterInput } from './cluster-crds.js';

/**
 * The front ends and generators a command drives. The real ones are imported lazily, each when first needed (so
 * `--help` stays fast and bad input is reported before the generators are even loaded); tests inject stubs.
 */
export interface Pipeline {
  parseCrdPaths(paths: string[], opts?: CrdReadOptions): Promise<ApiModel>;
  /**
   * The TypeScript front end (`--apis`); the real one when a stub leaves it out. Its model carries the RBAC rules
   * (`rbacRules`) that `role.yaml` is emitted from.
   */
  parseApis?(dir: string, opts: ParseApisOptions): Promise<ApiModel>;
  generate(model: ApiModel, opts: GenerateOptions): GeneratedFile[] | Promise<GeneratedFile[]>;
  /** `--from-cluster`: the connection CRDs are read through (the real one when left out; tests give a fake transport). */
  connectCluster?(input: Pick<ClusterInput, 'kubeconfig' | 'context'>): Promise<ClusterConnection>;
  /** `--from-cluster`: CRD objects read from a cluster into the model (the real CRD front end when left out). */
  parseCrdObjects?(crds: readonly Record<string, unknown>[]): ApiModel | Promise<ApiModel>;
}

/** The real pipeline: the CRD front end and `generate()`. */
export const defaultPipeline: Pipeline = {
  async parseCrdPaths(paths, opts) {
    const { parseCrdPaths } = await import('../parse/crd/index.js');
    return parseCrdPaths(paths, opts);
  },
  async parseApis(dir, opts) {
    const { parseApis } = await import('../parse/typescript/index.js');
    return parseApis(dir, opts);
  },
  async generate(model, opts) {
    const { generate } = await import('../generate/index.js');
    return generate(model, opts);
  },
  async connectCluster(input) {
    const { connectCluster } = await import('./cluster-crds.js');
    return connectCluster(input);
  },
  async parseCrdObjects(crds) {
    const { parseCrdObjects } = await import('../parse/crd/cluster.js');
    return parseCrdObjects(crds);
  },
};
