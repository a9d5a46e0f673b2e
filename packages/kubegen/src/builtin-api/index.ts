/**
 * The built-in Kubernetes API as kubegen ships it: the model the built-in API front end reads from the Kubernetes Go
 * sources (`parse/kube-api`), written once by `hack/builtin-api/generate` into `builtin-api/kubernetes-api.json`
 * beside this package, and read back here. The CRD side uses it where a custom resource embeds a built-in type (the
 * schemas controller-gen writes for a `PodTemplateSpec`, and recognising one in a CRD); the runtime's
 * `@kubegen/runtime/api/*` are generated from the same model.
 *
 * The file holds one JSON document: the Kubernetes release, where it came from, and the model (definitions as a list,
 * one per line, so a regeneration diffs by type).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiModel, DefinitionModel } from '../model/index.js';

/** Where the shipped model lives, relative to this module (`dist/builtin-api/` or `src/builtin-api/`). */
export const BUILTIN_API_FILE = fileURLToPath(new URL('../../builtin-api/kubernetes-api.json', import.meta.url));

export interface BuiltinApi {
  /** The Kubernetes release the sources are (`1.36.4`). */
  kubernetesVersion: string;
  model: ApiModel;
}

interface BuiltinApiDocument {
  kubernetesVersion: string;
  source: string;
  packages: NonNullable<ApiModel['packages']>;
  groupAccessors: Record<string, string>;
  resources: ApiModel['resources'];
  definitions: DefinitionModel[];
}

/** The JSON text of a built-in API model (deterministic: the model's own order, one definition per line). */
export function serializeBuiltinApi(api: BuiltinApi, source: string): string {
  const { model } = api;
  const head = {
    kubernetesVersion: api.kubernetesVersion,
    source,
    packages: model.packages ?? [],
    groupAccessors: model.groupAccessors ?? {},
    resources: model.resources,
  };
  const lines = [...(model.definitions?.values() ?? [])].map((d) => JSON.stringify(d));
  const headText = JSON.stringify(head, null, 1);
  return `${headText.slice(0, -2)},\n "definitions": [\n${lines.join(',\n')}\n ]\n}\n`;
}

let cached: BuiltinApi | undefined;

/** The shipped built-in API (read once). Throws when the file is missing or malformed, naming it. */
export function loadBuiltinApi(): BuiltinApi {
  if (cached) return cached;
  let doc: BuiltinApiDocument;
  try {
    doc = JSON.parse(fs.readFileSync(BUILTIN_API_FILE, 'utf8')) as BuiltinApiDocument;
  } catch (e) {
    throw new Error(`cannot read kubegen's built-in API model ${BUILTIN_API_FILE}: ${(e as Error).message}`);
  }
  cached = {
    kubernetesVersion: doc.kubernetesVersion,
    model: {
      resources: doc.resources,
      definitions: new Map(doc.definitions.map((d) => [d.id, d])),
      packages: doc.packages,
      groupAccessors: doc.groupAccessors,
    },
  };
  return cached;
}
