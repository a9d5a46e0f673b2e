/**
 * Webhook emitter: the model's `+kubebuilder:webhook` markers as `manifests.yaml` (for `config/webhook`), laid out as
 * controller-gen writes it — one MutatingWebhookConfiguration `mutating-webhook-configuration` and one
 * ValidatingWebhookConfiguration `validating-webhook-configuration` (admissionregistration.k8s.io/v1), each holding
 * its webhooks sorted by name, each calling the Service `webhook-service` in namespace `system` at the marker's
 * path (kustomize's `config/default` renames both). A configuration with no webhooks is left out.
 */
import type { AdmissionWebhookSpec, ApiModel } from '../../model/index.js';
import { InputError } from '../../model/index.js';
import { toYaml, YAML_HEADER } from '../crd/index.js';

export const WEBHOOK_MANIFESTS_FILE = 'manifests.yaml';
/** The Service webhooks call in the manifests (kubebuilder's names; kustomize prefixes the name). */
export const WEBHOOK_SERVICE = { name: 'webhook-service', namespace: 'system' } as const;

/** The content of `manifests.yaml`, or undefined when the model has no webhooks. Throws on duplicate names. */
export function emitWebhookManifests(model: ApiModel): string | undefined {
  const hooks = model.webhooks ?? [];
  if (hooks.length === 0) return undefined;
  const seen = new Map<string, AdmissionWebhookSpec>();
  for (const h of hooks) {
    const first = seen.get(h.name);
    if (first) throw new InputError(h.source, `webhook name ${h.name} is also used at ${first.source.file}:${first.source.line}; names must be unique`);
    seen.set(h.name, h);
  }
  const docs: string[] = [];
  for (const mutating of [true, false]) {
    const mine = hooks.filter((h) => h.mutating === mutating).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (mine.length === 0) continue;
    const kind = mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
    const name = mutating ? 'mutating-webhook-configuration' : 'validating-webhook-configuration';
    docs.push(`---\n${toYaml({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: mine.map(webhook) })}`);
  }
  return `${YAML_HEADER}\n${docs.join('')}`;
}

function webhook(h: AdmissionWebhookSpec): Record<string, unknown> {
  // Keys in controller-gen's (alphabetical) order.
  const w: Record<string, unknown> = {
    admissionReviewVersions: h.admissionReviewVersions,
    clientConfig: h.url !== undefined ? { url: h.url } : { service: { ...WEBHOOK_SERVICE, path: h.path } },
    failurePolicy: h.failurePolicy,
  };
  if (h.matchPolicy) w['matchPolicy'] = h.matchPolicy;
  w['name'] = h.name;
  if (h.reinvocationPolicy) w['reinvocationPolicy'] = h.reinvocationPolicy;
  w['rules'] = [{ apiGroups: h.groups, apiVersions: h.versions, operations: h.operations, resources: h.resources }];
  w['sideEffects'] = h.sideEffects;
  if (h.timeoutSeconds !== undefined) w['timeoutSeconds'] = h.timeoutSeconds;
  return w;
}
