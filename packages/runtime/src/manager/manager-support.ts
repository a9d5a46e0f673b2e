/** Small helpers of the `Manager`: the namespace it runs in, and starting its servers in turn. */
import { readFileSync } from 'node:fs';

/** The namespace of the pod this process runs in (its service account's), or undefined outside a cluster. */
export function inClusterNamespace(): string | undefined {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Starts `servers` one after the other until `signal` aborts; a failure is rethrown with the server's name first. */
export async function listenInTurn(signal: AbortSignal, servers: readonly [string, () => Promise<unknown>][]): Promise<void> {
  for (const [name, listen] of servers) {
    if (signal.aborted) return;
    try {
      await listen();
    } catch (err) {
      throw new Error(`${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
