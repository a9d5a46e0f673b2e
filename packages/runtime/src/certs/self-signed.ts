/**
 * A self-signed CA and a serving (or client) certificate it signs, made in process with `@peculiar/x509` (ECDSA P-256, SHA-256):
 * what a webhook server needs to run locally and in tests, where no cert-manager issues certificates (the role of
 * controller-runtime envtest's `WebhookInstallOptions` certificates). In a cluster, use cert-manager (the scaffold's
 * `config/certmanager`) instead.
 *
 * `@peculiar/x509` and `reflect-metadata` are optional peer dependencies of the runtime, loaded only when a
 * certificate is made: a controller that gets its certificates from files never loads them. Add both as dev
 * dependencies to use this (the scaffold does).
 */
import fs from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { webcrypto } from 'node:crypto';

/** PEM text of a CA certificate, a serving certificate it signed, and the serving certificate's private key. */
export interface ServingCertificate {
  caCert: string;
  cert: string;
  /** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). */
  key: string;
}

/** Options of `generateServingCertificate`: the hosts the certificate serves, its validity and common name. */
export interface ServingCertificateOptions {
  /** DNS names and IP addresses the certificate is valid for (default `localhost`, `127.0.0.1`, `::1`). */
  hosts?: string[];
  /** Validity from now, in days (default 365). */
  validityDays?: number;
  /** Subject common name of the serving certificate (default the first host). */
  commonName?: string;
}

type X509 = typeof import('@peculiar/x509');
let x509: Promise<X509> | undefined;

async function loadX509(): Promise<X509> {
  x509 ??= (async () => {
    try {
      await import('reflect-metadata');
      const mod = await import('@peculiar/x509');
      mod.cryptoProvider.set(webcrypto as never);
      return mod;
    } catch (err) {
      x509 = undefined;
      throw new Error(`making certificates needs the packages @peculiar/x509 and reflect-metadata: npm install --save-dev @peculiar/x509 reflect-metadata (${(err as Error).message})`);
    }
  })();
  return x509;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function serial(): string {
  // Positive, 16 random bytes: unique enough that a browser or Go never sees two certificates with one serial.
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = b[0]! & 0x7f;
  return Buffer.from(b).toString('hex');
}

/** Makes a CA and a serving certificate for `hosts`, signed by it. Takes about 10 ms once the library is loaded. */
export async function generateServingCertificate(opts: ServingCertificateOptions = {}): Promise<ServingCertificate> {
  const { caCert, certs } = await generateCertificateSet('kubegen-webhook-ca', { leaf: { server: opts } }, opts.validityDays);
  return { caCert, ...certs.leaf };
}

/** Options of `generateClientCertificate`: the user and groups the apiserver reads from it, and its validity. */
export interface ClientCertificateOptions {
  /** The user name (subject CN), e.g. `admin`. */
  commonName: string;
  /** Groups (subject O), e.g. `system:masters`. */
  organizations?: string[];
  /** Validity from now, in days (default 365). */
  validityDays?: number;
}

/**
 * Makes a CA and a client certificate it signed (extended key usage `clientAuth`). An apiserver started with
 * `--client-ca-file` set to `caCert` authenticates its holder as user `commonName` in groups `organizations`.
 */
export async function generateClientCertificate(opts: ClientCertificateOptions): Promise<ServingCertificate> {
  const { caCert, certs } = await generateCertificateSet('kubegen-client-ca', { leaf: { client: opts } }, opts.validityDays);
  return { caCert, ...certs.leaf };
}

/** Drops the characters that would need escaping in an X.500 distinguished name. */
function dnEscape(s: string): string {
  return s.replace(/[,=+<>#;\\"]/g, '');
}

/** A CA made by {@link makeCa}: its certificate and the key that signs leaves. */
interface Ca {
  cert: import('@peculiar/x509').X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

function validity(validityDays: number | undefined): { notBefore: Date; notAfter: Date } {
  // notBefore a minute back: tolerate a little clock skew.
  return { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + (validityDays ?? 365) * 86_400_000) };
}

async function makeCa(x: X509, caName: string, validityDays: number | undefined): Promise<Ca> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${caName}`,
    ...validity(validityDays),
    keys: keys as never,
    signingAlgorithm: ALG,
    extensions: [
      new x.BasicConstraintsExtension(true, 0, true),
      new x.KeyUsagesExtension(x.KeyUsageFlags.keyCertSign | x.KeyUsageFlags.cRLSign | x.KeyUsageFlags.digitalSignature, true),
      await x.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
    ],
  });
  return { cert, keys };
}

/** A leaf certificate with `subject` and `extensions`, signed by `ca`; PEM certificate and PKCS#8 PEM key. */
async function signLeaf(x: X509, ca: Ca, subject: string, validityDays: number | undefined, extensions: import('@peculiar/x509').Extension[]): Promise<{ cert: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: ca.cert.subject,
    ...validity(validityDays),
    publicKey: keys.publicKey as never,
    signingKey: ca.keys.privateKey as never,
    signingAlgorithm: ALG,
    extensions: [new x.BasicConstraintsExtension(false, undefined, true), ...extensions, await x.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey as never)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem') + '\n', key };
}

/** One certificate of {@link generateCertificateSet}: a client (user and groups) or a server (hosts). */
export type CertificateRequest = { client: ClientCertificateOptions } | { server: ServingCertificateOptions };

/** What {@link generateCertificateSet} made: the CA certificate and each requested certificate with its key, by name. */
export interface CertificateSet<K extends string> {
  caCert: string;
  certs: Record<K, { cert: string; key: string }>;
}

/**
 * Makes ONE CA named `caName` and every certificate in `requests`, all signed by it (the key of the CA is dropped):
 * what a small cluster needs, whose components trust one CA for clients (`--client-ca-file`) and for the apiserver.
 */
export async function generateCertificateSet<K extends string>(caName: string, requests: Record<K, CertificateRequest>, validityDays?: number): Promise<CertificateSet<K>> {
  const x = await loadX509();
  const ca = await makeCa(x, caName, validityDays);
  const certs = {} as Record<K, { cert: string; key: string }>;
  for (const [name, req] of Object.entries(requests) as [K, CertificateRequest][]) {
    if ('client' in req) {
      const subject = [...(req.client.organizations ?? []).map((o) => `O=${dnEscape(o)}`), `CN=${dnEscape(req.client.commonName)}`].join(', ');
      certs[name] = await signLeaf(x, ca, subject, validityDays, [
        new x.KeyUsagesExtension(x.KeyUsageFlags.digitalSignature, true),
        new x.ExtendedKeyUsageExtension([x.ExtendedKeyUsage.clientAuth]),
      ]);
    } else {
      const hosts = req.server.hosts && req.server.hosts.length > 0 ? req.server.hosts : ['localhost', '127.0.0.1', '::1'];
      certs[name] = await signLeaf(x, ca, `CN=${dnEscape(req.server.commonName ?? hosts[0]!)}`, validityDays, [
        new x.KeyUsagesExtension(x.KeyUsageFlags.digitalSignature | x.KeyUsageFlags.keyEncipherment, true),
        new x.ExtendedKeyUsageExtension([x.ExtendedKeyUsage.serverAuth]),
        new x.SubjectAlternativeNameExtension(hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }))),
      ]);
    }
  }
  return { caCert: ca.cert.toString('pem') + '\n', certs };
}

/** File names a webhook server reads from its certificate folder (controller-runtime's defaults). */
export interface CertificateFileNames {
  certName?: string;
  keyName?: string;
  caName?: string;
}

/**
 * Writes `cert` into `dir` as `tls.crt`, `tls.key` (mode 0600) and `ca.crt` (or the given names). Each file is written
 * to a temporary name and renamed into place, so a server watching the folder never reads half a file.
 */
export async function writeServingCertificate(dir: string, cert: ServingCertificate, names: CertificateFileNames = {}): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const files: [string, string, number][] = [
    [names.caName ?? 'ca.crt', cert.caCert, 0o644],
    [names.keyName ?? 'tls.key', cert.key, 0o600],
    [names.certName ?? 'tls.crt', cert.cert, 0o644],
  ];
  for (const [name, text, mode] of files) {
    const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
    await fs.writeFile(tmp, text, { mode });
    await fs.rename(tmp, path.join(dir, name));
  }
}
