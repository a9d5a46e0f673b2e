import type { DefinitionModel, GroupVersion } from '../model/index.js';
import type { KindTypeNames } from './names.js';
import type { TypeModel } from './types/type-model.js';

/**
 * What every per-group/version emitter is given: the group/version, its type graph and names, and how the output
 * imports the runtime and its own files.
 */
export interface GroupVersionContext {
  gv: GroupVersion;
  /** The group's accessor identifier (`samplecontroller`, `core`): names the client and informer classes. */
  groupId: string;
  graph: TypeModel;
  /** The root and list type names of each kind. */
  typeNames: KindTypeNames;
  /** Each kind's root apply configuration type name. */
  applyName: (kind: string) => string;
  /** The module generated code imports the runtime from. */
  runtimeImport: string;
  /** Extension of relative imports between generated files (`.js`, `.ts` or ''). */
  ext: string;
  /** The model's named schemas (built-in API), for types a client's subresource calls take and return. */
  definitions?: ReadonlyMap<string, DefinitionModel>;
}
