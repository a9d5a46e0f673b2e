/**
 * Helpers for tests on the `cluster` envtest profile (hollow nodes, workloads): the Node resource, a plain
 * Deployment, and reads of what the cluster made of it.
 */
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject, ResourceInfo, Transport } from '@kubegen/runtime/internal/client/types.js';
import type { Deployment, Pod } from '@kubegen/runtime/internal/builtin/types.js';
import { KubeClientset } from '@kubegen/runtime/internal/builtin/clientset.js';

/** core/v1 nodes. */
export const NODES: ResourceInfo = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', listKind: 'NodeList', namespaced: false };

/** A Node as these tests read it. */
export interface NodeObject extends KubeObject {
  spec?: { taints?: { key: string; effect: string }[]; providerID?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/** The cluster's nodes. */
export async function listNodes(transport: Transport): Promise<NodeObject[]> {
  return (await new ResourceClient<NodeObject>(transport, NODES).list()).items;
}

/** Whether a node reports Ready=True. */
export const isReady = (n: NodeObject): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * A Deployment of `replicas` nginx Pods labelled `app: <name>`, with a 1 s termination grace period: the namespace
 * controller waits out the longest grace period of the Pods it deletes before it looks again (30 s by default).
 */
export function nginxDeployment(name: string, replicas: number): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'nginx', image: 'nginx:latest' }] } },
    },
  };
}

/** The Pods of `namespace` labelled `app: <app>`. */
export async function podsOf(transport: Transport, namespace: string, app: string): Promise<Pod[]> {
  return (await new KubeClientset(transport).coreV1.pods(namespace).list({ labelSelector: `app=${app}` })).items;
}
