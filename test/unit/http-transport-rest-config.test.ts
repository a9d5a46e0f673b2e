/**
 * HttpTransport built from a `RestConfig` (no client-node): the credentials a local server receives (bearer token,
 * basic auth, impersonation, a token file re-read after it changes, the static token as fallback, an HTTP proxy), TLS against a
 * local HTTPS server with our own CA, client certificate and server name (certificates made with `openssl`), and
 * `FileTokenSource` on a fake clock.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { after, before, beforeEach, describe, it } from 'node:test';
import { makeTestPki, type TestPki } from '../support/pki.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { HTTP_ENGINES, HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import type { RestConfig } from '@kubegen/runtime/internal/client/rest-config.js';
import { FileTokenSource } from '@kubegen/runtime/internal/client/token-file.js';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-rest-transport-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}
function close(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('HttpTransport with a RestConfig over HTTP', () => {
  let server: http.Server;
  let port: number;
  let seen: http.IncomingHttpHeaders[];
  const transports: HttpTransport[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
    port = await listen(server);
  });
  after(async () => {
    for (const t of transports) t.close();
    await close(server);
  });
  beforeEach(() => {
    seen = [];
  });

  function transport(config: Omit<RestConfig, 'server'>, checkMs?: number): HttpTransport {
    const t = new HttpTransport({ server: `http://127.0.0.1:${port}`, ...config }, checkMs === undefined ? {} : { tokenFileCheckIntervalMs: checkMs });
    transports.push(t);
    return t;
  }
  async function headersFor(t: HttpTransport): Promise<http.IncomingHttpHeaders> {
    const res = await t.raw('GET', '/version');
    assert.equal(res.statusCode, 200);
    return seen.at(-1)!;
  }

  it('sends a bearer token and reports the server', async () => {
    const t = transport({ token: 'tok-1' });
    assert.equal(t.server, `http://127.0.0.1:${port}`);
    assert.equal(t.kubeConfig, undefined);
    assert.equal((await headersFor(t)).authorization, 'Bearer tok-1');
  });

  it('sends basic auth and impersonation headers', async () => {
    const h = await headersFor(transport({ username: 'admin', password: 'pw', impersonate: { user: 'jane', uid: '42', groups: ['a', 'b'], extra: { scopes: ['x', 'y'] } } }));
    assert.equal(h.authorization, `Basic ${Buffer.from('admin:pw').toString('base64')}`);
    assert.equal(h['impersonate-user'], 'jane');
    assert.equal(h['impersonate-uid'], '42');
    assert.equal(h['impersonate-group'], 'a, b');
    assert.equal(h['impersonate-extra-scopes'], 'x, y');
  });

  it('sends no Authorization header without credentials', async () => {
    assert.equal((await headersFor(transport({}))).authorization, undefined);
  });

  it('reads the token file, prefers it to the static token, and picks up a rotated token', async () => {
    const file = path.join(tmp, 'rotating-token');
    fs.writeFileSync(file, 'first\n');
    const t = transport({ token: 'static', tokenFile: file }, 0);
    assert.equal((await headersFor(t)).authorization, 'Bearer first');
    // kubelet swaps the file; a new inode changes even when size and mtime granularity would not.
    fs.writeFileSync(`${file}.new`, 'second');
    fs.renameSync(`${file}.new`, file);
    assert.equal((await headersFor(t)).authorization, 'Bearer second');
  });

  it('tunnels through proxyUrl (HTTP CONNECT) with the same credentials', async () => {
    // The transport opens a CONNECT tunnel; this proxy records the target and tunnels to our server.
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
      tunnels.push(req.url!);
      const upstream = net.connect(port, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket).pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    try {
      // An http:// server through the proxy, with every engine (HTTP/2 is for https:// servers: HTTP/1.1 here).
      for (const engine of HTTP_ENGINES) {
        const t = new HttpTransport({ server: 'http://apiserver.invalid:6443', token: 'via-proxy', proxyUrl: `http://127.0.0.1:${proxyPort}` }, { engine });
        transports.push(t);
        assert.equal((await headersFor(t)).authorization, 'Bearer via-proxy', engine);
        t.close();
      }
      assert.deepEqual(tunnels, ['apiserver.invalid:6443', 'apiserver.invalid:6443', 'apiserver.invalid:6443']);
    } finally {
      await close(proxy);
    }
  });

  it('uses the static token while the token file cannot be read', async () => {
    const t = transport({ token: 'static', tokenFile: path.join(tmp, 'does-not-exist') }, 0);
    assert.equal((await headersFor(t)).authorization, 'Bearer static');
  });
});

describe('FileTokenSource', () => {
  it('checks the file at most once per interval and keeps the last token when the file goes away', async () => {
    const file = path.join(tmp, 'token-source');
    fs.writeFileSync(file, 'one');
    const clock = new FakeClock(1_000);
    const errors: string[] = [];
    const source = new FileTokenSource(file, { clock, checkIntervalMs: 5_000, logger: { error: (msg) => errors.push(msg) } });
    assert.equal(await source.token(), 'one');
    fs.writeFileSync(`${file}.new`, 'two');
    fs.renameSync(`${file}.new`, file);
    clock.step(4_999);
    assert.equal(await source.token(), 'one', 'not re-checked within the interval');
    clock.step(1);
    assert.equal(await source.token(), 'two');
    fs.rmSync(file);
    clock.step(5_000);
    assert.equal(await source.token(), 'two');
    assert.equal(errors.length, 1);
  });

  it('returns the fallback, else undefined, for a file that never existed', async () => {
    const source = new FileTokenSource(path.join(tmp, 'never'), { fallback: 'fb', logger: { error: () => undefined } });
    assert.equal(await source.token(), 'fb');
    const bare = new FileTokenSource(path.join(tmp, 'never'), { logger: { error: () => undefined } });
    assert.equal(await bare.token(), undefined);
  });
});

describe('HttpTransport with a RestConfig over HTTPS', () => {
  let pki: TestPki;
  let server: https.Server;
  let port: number;
  let clients: string[];
  const transports: HttpTransport[] = [];

  before(async () => {
    pki = makeTestPki(path.join(tmp, 'pki'));
    server = https.createServer({ ca: pki.ca, cert: pki.serverCert, key: pki.serverKey, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      clients.push((req.socket as TLSSocket).authorized ? String(peer.subject?.CN) : 'anonymous');
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    port = await listen(server);
  });
  after(async () => {
    for (const t of transports) t.close();
    await close(server);
  });
  beforeEach(() => {
    clients = [];
  });

  function transport(config: Omit<RestConfig, 'server'>): HttpTransport {
    const t = new HttpTransport({ server: `https://127.0.0.1:${port}`, ...config });
    transports.push(t);
    return t;
  }

  it('verifies the server with caData and tlsServerName and presents the client certificate', async () => {
    const res = await transport({ caData: pki.ca, tlsServerName: 'kube.test', certData: pki.clientCert, keyData: pki.clientKey }).raw('GET', '/version');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(clients, ['controller']);
  });

  it('rejects a server whose certificate does not match (no CA, or the wrong name)', async () => {
    await assert.rejects(transport({ tlsServerName: 'kube.test' }).raw('GET', '/version'), /self-signed|unable to verify|issuer/i);
    await assert.rejects(transport({ caData: pki.ca }).raw('GET', '/version'), /altnames|does not match|Hostname\/IP/i);
    assert.deepEqual(clients, []);
  });

  it('insecureSkipTLSVerify connects without a CA; no client certificate means an anonymous client', async () => {
    const res = await transport({ insecureSkipTLSVerify: true }).raw('GET', '/version');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(clients, ['anonymous']);
  });
});
