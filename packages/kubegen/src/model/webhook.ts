import type { SourceLocation } from './source-location.js';

/**
 * One admission webhook of a `+kubebuilder:webhook` marker, as the TypeScript front end read it (values already in
 * their manifest spelling: `Fail`, `CREATE`, …). The webhook emitter writes them into
 * `config/webhook/manifests.yaml` as controller-gen does.
 */
export interface AdmissionWebhookSpec {
  /** Webhook name, unique (e.g. `vfoo.kb.io`). */
  name: string;
  mutating: boolean;
  /** Path on the webhook service (`clientConfig.service.path`), or a full `url`. */
  path?: string;
  url?: string;
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  groups: string[];
  resources: string[];
  /** Operations: `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`. */
  operations: string[];
  versions: string[];
  admissionReviewVersions: string[];
  matchPolicy?: 'Exact' | 'Equivalent';
  timeoutSeconds?: number;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  source: SourceLocation;
}
