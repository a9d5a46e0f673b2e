import { readFileSync } from 'node:fs';

/** The namespace of the pod this process runs in (its service account's), or undefined outside a cluster. */
export function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
