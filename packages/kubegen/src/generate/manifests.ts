/**
 * The YAML a model yields beside its code: CRDs of the kinds declared as TypeScript types (`--apis`; a CRD read from
 * YAML is its own output), the Role of the model's `+kubebuilder:rbac` markers (when the front end read markers:
 * `rbacRules` is set, even empty), and the webhook configurations of its `+kubebuilder:webhook` markers (when it has
 * any). Each file says which output folder it belongs in (`output`); paths are file names in that folder.
 */
import type { ApiModel } from '../model/index.js';
import { emitCrds } from './crd/index.js';
import type { GeneratedFile } from './generated-file.js';
import { emitRbac, ROLE_FILE } from './rbac/index.js';
import { emitWebhookManifests, WEBHOOK_MANIFESTS_FILE } from './webhook/index.js';

/** The model's YAML outputs (see the module comment), CRDs sorted by file name, then the Role, then the webhooks. */
export function generateManifests(model: ApiModel): GeneratedFile[] {
  const declared = model.resources.some((r) => r.versions.some((v) => v.userTypes !== undefined));
  const files: GeneratedFile[] = declared ? emitCrds(model).map((f) => ({ ...f, output: 'crds' as const })) : [];
  if (model.rbacRules !== undefined) files.push({ path: ROLE_FILE, content: emitRbac(model), output: 'rbac' });
  const webhooks = emitWebhookManifests(model);
  if (webhooks !== undefined) files.push({ path: WEBHOOK_MANIFESTS_FILE, content: webhooks, output: 'webhooks' });
  return files;
}
