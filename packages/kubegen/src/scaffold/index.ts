/** Project scaffolding: `kubegen init`, `create api`, `create webhook`, `delete api` (kubebuilder's role). Generator side only. */
export { initProject, initFiles } from './init.js';
export type { InitOptions, ScaffoldResult } from './init.js';
export { createApi, findProjectRoot } from './create-api.js';
export type { CreateApiOptions } from './create-api.js';
export { deleteApi } from './delete-api.js';
export type { DeleteApiOptions, DeleteApiResult } from './delete-api.js';
export { createWebhook, WEBHOOKS_MARKER } from './create-webhook.js';
export type { CreateWebhookOptions } from './create-webhook.js';
export { ScaffoldError } from './errors.js';
export { DEFAULT_DOMAIN } from './names.js';
export { PROJECT_FILE } from './project-file.js';
export { IMPORTS_MARKER, CONTROLLERS_MARKER } from './main-markers.js';
