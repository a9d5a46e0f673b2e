/**
 * `proxy-url` through real local proxies (test/support/proxy-servers.ts) to a local HTTPS server that speaks HTTP/2
 * and HTTP/1.1 (certificates for `kube.test` made with `openssl`): for every HTTP engine and every proxy kind (HTTP
 * CONNECT, HTTPS CONNECT, SOCKS5) the request reaches the server with TLS end to end (the server name is checked
 * and the client certificate presented inside the tunnel), the proxy is asked for the server's own host name, and
 * HTTP/2 runs inside the tunnel. Proxy credentials (Basic, SOCKS5 user/password), refusals and an unreachable proxy
 * give errors naming the proxy (without its password) and the target; `HTTPS_PROXY` is ignored when `proxy-url`
 * is set; an idle transport behind a proxy lets its process exit.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HTTP_ENGINES, HttpTransport, type HttpEngine } from '@kubegen/runtime/internal/client/http-transport.js';
import { parseProxyUrl } from '@kubegen/runtime/internal/client/proxy-url.js';
import type { RestConfig } from '@kubegen/runtime/internal/client/rest-config.js';
import { REPO_ROOT } from '../support/paths.js';
import { makeLeafCert, makeTestPki, type TestPki } from '../support/pki.js';
import { ConnectProxy, Socks5Proxy } from '../support/proxy-servers.js';

let tmp: string;
let pki: TestPki;
let server: http2.Http2SecureServer;
let serverPort: number;
let seen: string[];
let httpProxy: ConnectProxy;
let httpsProxy: ConnectProxy;
let socksProxy: Socks5Proxy;
const ports: Record<string, number> = {};

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-proxy-'));
  pki = makeTestPki(path.join(tmp, 'pki'));
  server = http2.createSecureServer({ allowHTTP1: true, ca: pki.ca, cert: pki.serverCert, key: pki.serverKey, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    seen.push(`${req.httpVersion} ${String((req.socket as TLSSocket).getPeerCertificate().subject?.CN)} ${req.headers.authorization ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverPort = (server.address() as AddressInfo).port;
  httpProxy = new ConnectProxy();
  // The HTTPS proxy's certificate (for 127.0.0.1) comes from the cluster's CA: the transport trusts that CA for both.
  httpsProxy = new ConnectProxy(makeLeafCert(path.join(tmp, 'pki'), 'proxy', 'IP:127.0.0.1'));
  socksProxy = new Socks5Proxy();
  ports['http'] = await httpProxy.listen();
  ports['https'] = await httpsProxy.listen();
  ports['socks5'] = await socksProxy.listen();
});
after(async () => {
  await Promise.all([httpProxy.close(), httpsProxy.close(), socksProxy.close()]);
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
  for (const p of [httpProxy, httpsProxy, socksProxy]) {
    p.records.length = 0;
    p.refuse = false;
  }
  httpProxy.requireAuth = undefined;
});

/** The server as the cluster knows it: a name only the proxy "resolves" (it connects to loopback). */
const config = (proxyUrl: string): RestConfig => ({
  server: `https://kube.test:${serverPort}`,
  caData: pki.ca,
  certData: pki.clientCert,
  keyData: pki.clientKey,
  token: 'through-the-tunnel',
  proxyUrl,
});

async function twoRequests(proxyUrl: string, engine: HttpEngine): Promise<void> {
  const t = new HttpTransport(config(proxyUrl), { engine });
  try {
    for (let i = 0; i < 2; i++) assert.equal((await t.raw('GET', '/version')).statusCode, 200);
  } finally {
    t.close();
  }
}

describe('proxy-url', () => {
  for (const scheme of ['http', 'https', 'socks5'] as const) {
    for (const engine of HTTP_ENGINES) {
      it(`${scheme} proxy, ${engine}: TLS to the server inside the tunnel, the proxy asked for the server's name`, async () => {
        await twoRequests(`${scheme}://127.0.0.1:${ports[scheme]}`, engine);
        const version = engine === 'node-http2' ? '2.0' : '1.1';
        assert.deepEqual(seen, [`${version} controller Bearer through-the-tunnel`, `${version} controller Bearer through-the-tunnel`]);
        const proxy = scheme === 'http' ? httpProxy : scheme === 'https' ? httpsProxy : socksProxy;
        // undici's pool still counts a connection busy in the turn its response ended: the second request opens another.
        assert.deepEqual(
          proxy.records.map((r) => r.target),
          Array<string>(engine === 'undici' ? 2 : 1).fill(`kube.test:${serverPort}`),
          'tunnels kept alive between requests',
        );
      });
    }
  }

  it('sends the URL user as Proxy-Authorization: Basic; a refusal names the proxy without its password', async () => {
    httpProxy.requireAuth = `Basic ${Buffer.from('ops:p@ss').toString('base64')}`;
    await twoRequests(`http://ops:p%40ss@127.0.0.1:${ports['http']}`, 'node-http1');
    assert.equal(httpProxy.records[0]!.auth, httpProxy.requireAuth);
    const t = new HttpTransport(config(`http://ops:wrong@127.0.0.1:${ports['http']}`), { engine: 'node-http1' });
    try {
      await assert.rejects(t.raw('GET', '/version'), (err: Error) => {
        assert.equal(err.message, `proxy http://ops:***@127.0.0.1:${ports['http']}/: cannot open a tunnel to kube.test:${serverPort}: the proxy answered CONNECT with 407 Proxy Authentication Required`);
        return true;
      });
    } finally {
      t.close();
    }
  });

  it('SOCKS5 with a user and password (RFC 1929), and its refusals in words', async () => {
    const guarded = new Socks5Proxy({ name: 'ops', password: 'secret' });
    const port = await guarded.listen();
    try {
      await twoRequests(`socks5://ops:secret@127.0.0.1:${port}`, 'node-http2');
      assert.deepEqual(guarded.records, [{ target: `kube.test:${serverPort}`, auth: 'ops:secret' }]);
      const wrong = new HttpTransport(config(`socks5://ops:nope@127.0.0.1:${port}`), { engine: 'node-http1' });
      await assert.rejects(wrong.raw('GET', '/version'), /^Error: proxy socks5:\/\/ops:\*\*\*@127\.0\.0\.1:\d+: cannot open a tunnel to kube\.test:\d+: the SOCKS5 proxy refused the user name and password$/);
      wrong.close();
      const anonymous = new HttpTransport(config(`socks5://127.0.0.1:${port}`), { engine: 'node-http1' });
      await assert.rejects(anonymous.raw('GET', '/version'), /the SOCKS5 proxy accepts none of the offered authentication methods \(none\)/);
      anonymous.close();
    } finally {
      await guarded.close();
    }
    socksProxy.refuse = true;
    const refused = new HttpTransport(config(`socks5://127.0.0.1:${ports['socks5']}`), { engine: 'undici' });
    await assert.rejects(refused.raw('GET', '/version'), /cannot open a tunnel to kube\.test:\d+: the SOCKS5 proxy answered: connection not allowed by ruleset/);
    refused.close();
  });

  it('a refused tunnel and an unreachable proxy fail every engine with the proxy named', async () => {
    httpsProxy.refuse = true;
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    for (const engine of HTTP_ENGINES) {
      const refused = new HttpTransport(config(`https://127.0.0.1:${ports['https']}`), { engine });
      await assert.rejects(refused.raw('GET', '/version'), new RegExp(`proxy https://127\\.0\\.0\\.1:${ports['https']}/: cannot open a tunnel to kube\\.test:${serverPort}: the proxy answered CONNECT with 403 Forbidden`), engine);
      refused.close();
      const dead = new HttpTransport(config(`http://127.0.0.1:${deadPort}`), { engine });
      await assert.rejects(dead.raw('GET', '/version'), new RegExp(`proxy http://127\\.0\\.0\\.1:${deadPort}/: cannot open a tunnel to kube\\.test:${serverPort}: .*ECONNREFUSED`), engine);
      dead.close();
    }
    assert.deepEqual(seen, []);
  });

  it('wins over HTTPS_PROXY, as in client-go', async () => {
    const saved = process.env['HTTPS_PROXY'];
    process.env['HTTPS_PROXY'] = 'http://127.0.0.1:1';
    try {
      await twoRequests(`http://127.0.0.1:${ports['http']}`, 'node-http2');
      assert.equal(httpProxy.records.length, 1);
    } finally {
      if (saved === undefined) delete process.env['HTTPS_PROXY'];
      else process.env['HTTPS_PROXY'] = saved;
    }
  });

  it('parseProxyUrl accepts http, https and socks5 only', () => {
    for (const ok of ['http://p:3128', 'https://p', 'socks5://u:pw@p:1080']) assert.equal(parseProxyUrl(ok).href.startsWith(ok.split(':')[0]!), true);
    assert.throws(() => parseProxyUrl('socks4://p:1080', 'cluster "prod"'), /^Error: cluster "prod": proxy-url "socks4:\/\/p:1080" has unsupported scheme "socks4", must be http, https, or socks5$/);
    assert.throws(() => parseProxyUrl('http://[p:3128', 'cluster "prod"'), /^Error: cluster "prod": proxy-url "http:\/\/\[p:3128" is not a URL$/);
  });

  it('an idle HTTP/2 transport behind a proxy lets its process exit', async () => {
    const script = path.join(tmp, 'idle.mjs');
    fs.writeFileSync(
      script,
      [
        `const { HttpTransport } = await import(${JSON.stringify(path.join(REPO_ROOT, 'packages/runtime/dist/index.js'))});`,
        `const t = new HttpTransport(${JSON.stringify(config(`http://127.0.0.1:${ports['http']}`))}, { engine: 'node-http2' });`,
        "const res = await t.raw('GET', '/version');",
        'console.log(res.statusCode);',
        '// no close(): the process must still end',
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(stdout.trim(), '200');
    assert.equal(seen.length, 1);
  });
});
