/**
 * Webhooks in envtest (controller-runtime envtest's `WebhookInstallOptions`): the webhook configurations and CRD
 * conversion settings a project deploys point at a Service in the cluster; in a test the webhook server runs in the
 * test process. `installWebhooks` rewrites every webhook's `clientConfig` to `url + path` with the test CA as
 * `caBundle` and creates the configurations; `setConversionWebhook` does the same for a CRD's
 * `spec.conversion`. `waitForWebhook` then makes sure the apiserver is really calling the server before a test
 * relies on it (the apiserver picks new configurations up asynchronously).
 */
import fs from 'node:fs';
import { explainNotServed } from './envtest-profiles.js';
import { loadAll } from 'js-yaml';
import { isNotFound } from '../../client/errors.js';
import { ResourceClient } from '../../client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '../../client/types.js';
import type { WebhookServer } from '../../webhook/server.js';
import { CRD_RESOURCE, type CrdObject } from './envtest-crds.js';

const admission = (resource: string, kind: string): ResourceInfo => ({
  group: 'admissionregistration.k8s.io', version: 'v1', resource, kind, listKind: `${kind}List`, namespaced: false,
});
/** `admissionregistration.k8s.io/v1` MutatingWebhookConfigurations (cluster-scoped). */
export const MUTATING_WEBHOOK_RESOURCE = admission('mutatingwebhookconfigurations', 'MutatingWebhookConfiguration');
/** `admissionregistration.k8s.io/v1` ValidatingWebhookConfigurations (cluster-scoped). */
export const VALIDATING_WEBHOOK_RESOURCE = admission('validatingwebhookconfigurations', 'ValidatingWebhookConfiguration');

/** Where the apiserver reaches the test's webhook server. */
export interface WebhookEndpoint {
  /** Base URL of the webhook server, e.g. `https://127.0.0.1:9443` (`'https://' + server.address`). */
  url: string;
  /** PEM of the CA that signed the server's certificate (`ServingCertificate.caCert`). */
  caCert: string;
}

/** What `installWebhooks` installs (configurations, as objects or YAML files) and where they are to call. */
export interface WebhookInstallOptions extends WebhookEndpoint {
  /** Mutating/ValidatingWebhookConfiguration objects (other kinds are ignored). */
  configurations?: object[];
  /** YAML files holding such configurations (e.g. `config/webhook/manifests.yaml`). */
  paths?: string[];
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: { name?: string; clientConfig?: { url?: string; service?: { path?: string }; caBundle?: string } }[];
}

/**
 * A copy of `config` whose webhooks call `endpoint.url` + the path of their `service` (or of their URL), trusting
 * `endpoint.caCert`. Throws when a webhook names no path.
 */
export function pointWebhooksAt<T extends object>(config: T, endpoint: WebhookEndpoint): T {
  const copy = structuredClone(config) as WebhookConfiguration;
  const base = endpoint.url.replace(/\/+$/, '');
  const caBundle = Buffer.from(endpoint.caCert).toString('base64');
  for (const w of copy.webhooks ?? []) {
    const cc = w.clientConfig ?? {};
    const p = cc.service?.path ?? (cc.url !== undefined ? new URL(cc.url).pathname : undefined);
    if (!p) throw new Error(`webhook ${w.name ?? '(unnamed)'} in ${copy.metadata?.name ?? '(unnamed)'} has no path to call`);
    w.clientConfig = { url: `${base}${p}`, caBundle };
  }
  return copy as T;
}

function readConfigurations(opts: WebhookInstallOptions): WebhookConfiguration[] {
  const docs: unknown[] = [...(opts.configurations ?? [])];
  for (const p of opts.paths ?? []) docs.push(...loadAll(fs.readFileSync(p, 'utf8')));
  return docs.filter((d): d is WebhookConfiguration => {
    const k = (d as KubeObject | null)?.kind;
    return k === 'MutatingWebhookConfiguration' || k === 'ValidatingWebhookConfiguration';
  });
}

/**
 * Creates (or replaces) the webhook configurations pointed at `opts.url`. Returns a function that deletes them
 * again. Configurations are cluster-scoped: give them names unique to the test run.
 */
export async function installWebhooks(transport: Transport, opts: WebhookInstallOptions): Promise<() => Promise<void>> {
  const created: [ResourceClient<KubeObject>, string][] = [];
  for (const config of readConfigurations(opts)) {
    const info = config.kind === 'MutatingWebhookConfiguration' ? MUTATING_WEBHOOK_RESOURCE : VALIDATING_WEBHOOK_RESOURCE;
    const client = new ResourceClient<KubeObject>(transport, info);
    const obj = pointWebhooksAt(config, opts) as KubeObject;
    const name = obj.metadata?.name;
    if (!name) throw new Error(`a ${config.kind} without metadata.name`);
    await client.delete(name).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    await client.create({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } } as KubeObject).catch((err: unknown) => {
      throw explainNotServed(err, 'admission-webhooks', `${config.kind} (admissionregistration.k8s.io)`);
    });
    created.push([client, name]);
  }
  return async () => {
    for (const [client, name] of created) {
      await client.delete(name).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  };
}

/**
 * Points the conversion of CRD `crdName` at `endpoint.url + path` (`strategy: Webhook`, `conversionReviewVersions:
 * [v1]`, as controller-gen writes it) and waits until the CRD is Established again.
 */
export async function setConversionWebhook(transport: Transport, crdName: string, endpoint: WebhookEndpoint & { path: string }): Promise<void> {
  const crds = new ResourceClient<CrdObject>(transport, CRD_RESOURCE);
  const conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      // `service: null` removes the Service the CRD names in a cluster (a client config has a url or a service).
      clientConfig: { url: `${endpoint.url.replace(/\/+$/, '')}${endpoint.path}`, caBundle: Buffer.from(endpoint.caCert).toString('base64'), service: null },
    },
  };
  await crds.patch(crdName, { type: 'merge', patch: { spec: { conversion } } });
}

/**
 * Runs `trigger` (any request that should reach the webhook, e.g. a dry-run create) until the webhook server has
 * answered a request at `path`, or fails after `timeoutMs` (default 20 s). Errors from `trigger` are expected while
 * the apiserver has not picked the configuration up, and ignored.
 */
export async function waitForWebhook(server: WebhookServer, path: string, trigger: () => Promise<unknown>, timeoutMs = 20_000): Promise<void> {
  const before = server.served(path);
  const deadline = performance.now() + timeoutMs;
  while (server.served(path) === before) {
    if (performance.now() > deadline) throw new Error(`the apiserver did not call the webhook at ${path} within ${timeoutMs} ms`);
    await trigger().catch(() => undefined);
    if (server.served(path) === before) await new Promise((r) => setTimeout(r, 200));
  }
}
