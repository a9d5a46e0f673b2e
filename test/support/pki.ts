/**
 * A throwaway PKI for HTTPS tests, made with the `openssl` command: a CA, a server certificate for `kube.test` and
 * 127.0.0.1, and a client certificate (CN `controller`, O `system:masters`). PEM strings.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestPki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export function makeTestPki(dir: string): TestPki {
  fs.mkdirSync(dir, { recursive: true });
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=test-ca');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=kube.test');
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=DNS:kube.test\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=controller/O=system:masters');
  ssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2');
  const read = (f: string): string => fs.readFileSync(path.join(dir, f), 'utf8');
  return { ca: read('ca.crt'), serverCert: read('server.crt'), serverKey: read('server.key'), clientCert: read('client.crt'), clientKey: read('client.key') };
}

/**
 * Another certificate signed by the CA of the PKI in `dir` (made by `makeTestPki`), with common name `cn`: a client
 * certificate, or a server certificate when `subjectAltName` is given (e.g. `IP:127.0.0.1`).
 */
export function makeLeafCert(dir: string, cn: string, subjectAltName?: string): { cert: string; key: string } {
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${cn}.key`, '-out', `${cn}.csr`, '-subj', `/CN=${cn}`);
  const ext = subjectAltName ? ['-extfile', `${cn}.ext`] : [];
  if (subjectAltName) fs.writeFileSync(path.join(dir, `${cn}.ext`), `subjectAltName=${subjectAltName}\n`);
  ssl('x509', '-req', '-in', `${cn}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${cn}.crt`, '-days', '2', ...ext);
  return { cert: fs.readFileSync(path.join(dir, `${cn}.crt`), 'utf8'), key: fs.readFileSync(path.join(dir, `${cn}.key`), 'utf8') };
}
