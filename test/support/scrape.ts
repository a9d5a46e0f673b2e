/** One GET of a metrics endpoint over HTTPS (or HTTP), optionally with a bearer token, without the global fetch's TLS rules. */
import http from 'node:http';
import https from 'node:https';

export interface ScrapeOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Trust this CA (and check the name `localhost`); without it the certificate is not verified (`curl -k`). */
  ca?: string;
  /** Default `https`. */
  scheme?: 'https' | 'http';
  path?: string;
  method?: string;
}

export interface Scraped {
  status: number;
  body: string;
  /** The serving certificate's subject common name (HTTPS only). */
  certificateCN?: string;
}

export function scrape(address: string, opts: ScrapeOptions = {}): Promise<Scraped> {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(colon + 1));
  const headers = opts.token !== undefined ? { Authorization: `Bearer ${opts.token}` } : {};
  const common = { host, port, path: opts.path ?? '/metrics', method: opts.method ?? 'GET', headers, agent: false as const };
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      const cert = 'getPeerCertificate' in res.socket ? (res.socket as import('node:tls').TLSSocket).getPeerCertificate() : undefined;
      const cn = cert?.subject?.CN;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ...(cn ? { certificateCN: Array.isArray(cn) ? cn[0]! : cn } : {}) });
      });
      res.on('error', reject);
    };
    const req = (opts.scheme ?? 'https') === 'http'
      ? http.request(common, onResponse)
      : https.request({ ...common, ...(opts.ca ? { ca: opts.ca, servername: 'localhost' } : { rejectUnauthorized: false }) }, onResponse);
    req.on('error', reject);
    req.end();
  });
}
