/**
 * The fleet controller of the multi-cluster integration test (and its replica process): hub ConfigMaps labelled
 * `mc-test=true` in one namespace are the desired state; in every member the controller keeps a `MemberConfig` of the
 * same namespace and name whose `spec.data` is the ConfigMap's data. Members are kubeconfig Secrets in that namespace
 * (`KubeconfigSecretProvider`); members run the CRD apiserver (crd-only), which serves no ConfigMaps, hence the CRD.
 */
import { Registry } from 'prom-client';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import type { KubeObject, ResourceInfo, Transport } from '@kubegen/runtime/internal/client/types.js';
import { enqueueForObject } from '@kubegen/runtime/internal/handler/handler.js';
import { getLogger, nullLogger } from '@kubegen/runtime/internal/log.js';
import { newMultiClusterControllerManagedBy } from '@kubegen/runtime/internal/multicluster/builder.js';
import type { ClusterShardingOptions } from '@kubegen/runtime/internal/multicluster/cluster-sharding.js';
import { MultiClusterManager } from '@kubegen/runtime/internal/multicluster/manager.js';
import { KubeconfigSecretProvider } from '@kubegen/runtime/internal/multicluster/providers/kubeconfig-secrets.js';
import { labelSelector } from '@kubegen/runtime/internal/predicate/predicate.js';
import { kindCrdObject, obj } from '../../support/crd-yaml.js';

export const MEMBER_CONFIG: ResourceInfo = {
  group: 'mc.kubegen.io', version: 'v1', resource: 'memberconfigs', kind: 'MemberConfig', listKind: 'MemberConfigList', namespaced: true,
};

export const MEMBER_CONFIG_CRD = kindCrdObject('mc.kubegen.io', 'MemberConfig', {
  spec: obj({ data: { type: 'object', additionalProperties: { type: 'string' } } }),
});

export interface MemberConfig extends KubeObject {
  spec?: { data?: Record<string, string> };
}

/** The hub ConfigMaps the controller follows carry this label. */
export const DESIRED_LABEL = 'mc-test';

/** A replica of the fleet controller: a multi-cluster manager over `hub`, its members the Secrets in `namespace`. */
export function fleetManager(opts: { hub: Transport; namespace: string; clusterSharding?: ClusterShardingOptions; debug?: boolean }): MultiClusterManager {
  const logger = opts.debug ? getLogger() : nullLogger;
  const mgr = new MultiClusterManager({
    transport: opts.hub,
    namespace: opts.namespace,
    metricsBindAddress: '0',
    registry: new Registry(),
    logger,
    gracefulShutdownTimeoutMs: 5_000,
    provider: new KubeconfigSecretProvider({ transport: opts.hub, namespace: opts.namespace, logger, transportOptions: { timeoutMs: 5_000 }, clusterOptions: { logger } }),
    ...(opts.clusterSharding ? { clusterSharding: opts.clusterSharding } : {}),
  });
  const cm = builtinResources.configMaps;
  newMultiClusterControllerManagedBy(mgr)
    .named('fleet')
    .for(cm, { clusters: 'hub', fanOut: true, predicates: [labelSelector(`${DESIRED_LABEL}=true`)] })
    .watches(MEMBER_CONFIG, enqueueForObject(), { clusters: 'members' })
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(async (req, ctx) => {
      let desired: KubeObject & { data?: Record<string, string> };
      try {
        desired = await mgr.hub.getClient().resource(cm, req.namespace).get(req.name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (desired.metadata?.labels?.[DESIRED_LABEL] !== 'true') return;
      const members = ctx.cluster.getClient().resource<MemberConfig>(MEMBER_CONFIG, req.namespace);
      const data = desired.data ?? {};
      let current: MemberConfig | undefined;
      try {
        current = await members.get(req.name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (!current) {
        await members.create({ apiVersion: 'mc.kubegen.io/v1', kind: 'MemberConfig', metadata: { name: req.name, namespace: req.namespace }, spec: { data } });
      } else if (JSON.stringify(current.spec?.data ?? {}) !== JSON.stringify(data)) {
        await members.update({ ...current, spec: { data } });
      }
    });
  return mgr;
}
