import { randomUUID } from 'node:crypto';
import os from 'node:os';

/** controller-runtime's default leader election identity: `<hostname>_<uuid>`, unique per process start. */
export function defaultLeaderElectionIdentity(): string {
  return `${os.hostname()}_${randomUUID()}`;
}
