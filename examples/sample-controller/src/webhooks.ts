/**
 * The sample controller's webhooks, served when it runs with `--webhook-port` (see README): a defaulting webhook
 * (`spec.replicas` defaults to 1), a validating webhook (`spec.deploymentName` a DNS-1123 label, `spec.replicas`
 * between 0 and 10, `spec.deploymentName` fixed once set) and the conversion between Foo `v1alpha1` (stored) and `v1`,
 * where the Deployment's name and replicas live under `spec.deployment`.
 */
import { isDNS1123Label } from '@kubegen/runtime/client';
import { conversionWebhook, defaultingWebhook, validatingWebhook } from '@kubegen/runtime/webhook';
import type { Defaulter, Validator, WebhookServer } from '@kubegen/runtime/webhook';
import type { Foo } from './generated/samplecontroller.k8s.io/v1alpha1/index.js';
import type { Foo as FooV1 } from './generated/samplecontroller.k8s.io/v1/index.js';

// +kubebuilder:webhook:path=/mutate-samplecontroller-k8s-io-v1alpha1-foo,mutating=true,failurePolicy=fail,sideEffects=None,groups=samplecontroller.k8s.io,resources=foos,verbs=create;update,versions=v1alpha1,name=mfoo-v1alpha1.samplecontroller.k8s.io,admissionReviewVersions=v1,matchPolicy=Equivalent
// +kubebuilder:webhook:path=/validate-samplecontroller-k8s-io-v1alpha1-foo,mutating=false,failurePolicy=fail,sideEffects=None,groups=samplecontroller.k8s.io,resources=foos,verbs=create;update,versions=v1alpha1,name=vfoo-v1alpha1.samplecontroller.k8s.io,admissionReviewVersions=v1,matchPolicy=Equivalent

export const MUTATE_PATH = '/mutate-samplecontroller-k8s-io-v1alpha1-foo';
export const VALIDATE_PATH = '/validate-samplecontroller-k8s-io-v1alpha1-foo';
export const CONVERT_PATH = '/convert';

/** `spec.replicas` defaults to 1 (the Go sample-controller reads a missing value as 1 too). */
export const fooDefaulter: Defaulter<Foo> = (foo) => {
  foo.spec ??= {};
  foo.spec.replicas ??= 1;
};

function validateSpec(foo: Foo): void {
  const name = foo.spec?.deploymentName ?? '';
  if (!isDNS1123Label(name)) throw new Error(`spec.deploymentName ${JSON.stringify(name)} must be a DNS-1123 label (lower-case letters, digits and '-', at most 63)`);
  const replicas = foo.spec?.replicas;
  if (replicas !== undefined && (replicas < 0 || replicas > 10)) throw new Error(`spec.replicas ${replicas} must be between 0 and 10`);
}

/** Valid names and replica counts; the Deployment a Foo names cannot change afterwards (it would be orphaned). */
export const fooValidator: Validator<Foo> = {
  validateCreate: (foo) => validateSpec(foo),
  validateUpdate: (old, foo) => {
    validateSpec(foo);
    if (old.spec?.deploymentName !== undefined && old.spec.deploymentName !== foo.spec?.deploymentName) {
      throw new Error(`spec.deploymentName may not change (from ${JSON.stringify(old.spec.deploymentName)})`);
    }
  },
};

/** v1 ↔ v1alpha1 (the hub): the same two fields, nested under `spec.deployment` in v1. Nothing is lost either way. */
export const fooConversion = conversionWebhook({
  hub: 'samplecontroller.k8s.io/v1alpha1',
  spokes: {
    'samplecontroller.k8s.io/v1': {
      convertTo(foo: FooV1): Foo {
        const { deployment, ...rest } = foo.spec ?? {};
        const spec: NonNullable<Foo['spec']> = { ...rest };
        if (deployment?.name !== undefined) spec.deploymentName = deployment.name;
        if (deployment?.replicas !== undefined) spec.replicas = deployment.replicas;
        return { ...(foo as unknown as Foo), spec };
      },
      convertFrom(hub: Foo): FooV1 {
        const { deploymentName, replicas, ...rest } = hub.spec ?? {};
        const deployment: NonNullable<NonNullable<FooV1['spec']>['deployment']> = {};
        if (deploymentName !== undefined) deployment.name = deploymentName;
        if (replicas !== undefined) deployment.replicas = replicas;
        return { ...(hub as unknown as FooV1), spec: { ...rest, ...(Object.keys(deployment).length > 0 ? { deployment } : {}) } };
      },
    },
  },
});

/** Registers the three webhooks. */
export function setupWebhooks(server: WebhookServer): void {
  server.register(MUTATE_PATH, defaultingWebhook(fooDefaulter));
  server.register(VALIDATE_PATH, validatingWebhook(fooValidator));
  server.register(CONVERT_PATH, fooConversion);
}
