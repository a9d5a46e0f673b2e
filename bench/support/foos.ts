import type { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { forEachConcurrently } from './concurrently.js';
import { Clientset } from '../../examples/sample-controller/src/generated/clientset.js';

/**
 * Creates Foos `foo-0` … `foo-<n-1>` (each with a Deployment of the same name to make) in `ns`, `concurrency`
 * requests at a time (default 16).
 */
export async function createFoos(transport: HttpTransport, ns: string, n: number, concurrency = 16): Promise<void> {
  const foos = new Clientset(transport).samplecontrollerV1alpha1.foos(ns);
  await forEachConcurrently(n, concurrency, async (i) => {
    await foos.create({ metadata: { name: `foo-${i}` }, spec: { deploymentName: `foo-${i}`, replicas: 1 } });
  });
}
