/**
 * HttpTransport's protocols and liveness, against local servers (a self-signed PKI from support/pki.ts) with a
 * freezing TCP proxy in front (support/tcp-proxy.ts):
 * - HTTPS servers that offer HTTP/2 get one multiplexed connection; HTTP/1.1-only servers, `http2: false` and
 *   DISABLE_HTTP2 get HTTP/1.1;
 * - a frozen HTTP/2 connection fails the PING health check: a request waiting on it fails with
 *   ConnectionStalledError and the next one goes over a new connection;
 * - a watch stopped as a stall moves new requests to a new connection at once;
 * - over HTTP/1.1, a request whose socket stays silent fails after readIdleTimeoutMs and its socket is not reused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConnectionStalledError } from '@kubegen/runtime/internal/client/errors.js';
import { HttpTransport, type TransportOptions } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadUndici } from '@kubegen/runtime/internal/client/undici-exchange.js';
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { makeTestPki, type TestPki } from '../support/pki.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const CM: ResourceInfo = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true };

let pki: TestPki;
let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-h2-'));
  pki = makeTestPki(path.join(tmp, 'pki'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** An HTTP/2 (and, with `allowHTTP1`, HTTP/1.1) server: GET → a ConfigMap; `?watch=true` → one event, then silence. */
async function apiServer(opts: { allowHTTP1?: boolean; hang?: () => boolean } = {}) {
  const seen = { sessions: 0, versions: [] as string[] };
  const server = http2.createSecureServer({ cert: pki.serverCert, key: pki.serverKey, allowHTTP1: opts.allowHTTP1 ?? false }, (req, res) => {
    seen.versions.push(req.httpVersion);
    if (opts.hang?.()) return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.includes('watch=true')) {
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' } } }) + '\n');
      return; // stays open, silent
    }
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }));
  });
  server.on('session', () => seen.sessions++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      setTimeout(resolve, 500).unref();
    });
  };
  return { port, seen, close };
}

/** A transport on the node-http2 engine whatever KUBEGEN_HTTP_ENGINE says: these tests are about HTTP/2. */
function transport(port: number, opts: TransportOptions = {}): HttpTransport {
  return new HttpTransport({ server: `https://127.0.0.1:${port}`, caData: pki.ca, tlsServerName: 'kube.test' }, { engine: 'node-http2', ...opts });
}

const get = (t: HttpTransport, signal?: AbortSignal) =>
  t.request<{ metadata: { name: string } }>({ verb: 'get', resource: CM, namespace: 'ns', name: 'a', ...(signal ? { signal } : {}) });

describe('HttpTransport over HTTP/2', () => {
  it('multiplexes requests and watches over one HTTP/2 connection', async () => {
    const srv = await apiServer();
    const t = transport(srv.port);
    try {
      const results = await Promise.all([get(t), get(t), get(t)]);
      assert.deepEqual(results.map((r) => r.metadata.name), ['a', 'a', 'a']);
      const w = await t.watch({ verb: 'watch', resource: CM, namespace: 'ns', query: { watch: 'true' } });
      const first = await w[Symbol.asyncIterator]().next();
      assert.equal((first.value as { type: string }).type, 'ADDED');
      w.stop();
      assert.equal(srv.seen.sessions, 1, 'one connection');
      assert.deepEqual([...new Set(srv.seen.versions)], ['2.0']);
    } finally {
      t.close();
      await srv.close();
    }
  });

  it('uses HTTP/1.1 with a server that offers only HTTP/1.1, with http2: false, and with DISABLE_HTTP2', async () => {
    const srv = await apiServer({ allowHTTP1: true });
    const h1 = https.createServer({ cert: pki.serverCert, key: pki.serverKey }, (req, res) => res.writeHead(200).end(JSON.stringify({ metadata: { name: req.httpVersion } })));
    await new Promise<void>((resolve) => h1.listen(0, '127.0.0.1', resolve));
    const only1 = transport((h1.address() as AddressInfo).port);
    const off = transport(srv.port, { http2: false });
    process.env['DISABLE_HTTP2'] = '1';
    const env = transport(srv.port);
    try {
      assert.equal((await get(only1)).metadata.name, '1.1', 'ALPN chose HTTP/1.1');
      assert.equal((await get(only1)).metadata.name, '1.1');
      await get(off);
      await get(env);
      assert.deepEqual(srv.seen.versions, ['1.1', '1.1']);
    } finally {
      delete process.env['DISABLE_HTTP2'];
      for (const t of [only1, off, env]) t.close();
      h1.close();
      await srv.close();
    }
  });

  it('a stream the server closes without an answer (RST_STREAM NO_ERROR) fails the request instead of leaving it pending', async () => {
    const server = http2.createSecureServer({ cert: pki.serverCert, key: pki.serverKey });
    server.on('stream', (stream) => stream.close(http2.constants.NGHTTP2_NO_ERROR));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const t = transport((server.address() as AddressInfo).port);
    try {
      await assert.rejects(get(t), (err: Error & { code?: string }) => err.code === 'ECONNRESET' && /closed the HTTP\/2 stream before answering/.test(err.message));
    } finally {
      t.close();
      server.close();
    }
  });

  it('finds a frozen connection with a PING: the waiting request fails, the next one uses a new connection', async () => {
    let hang = false;
    const srv = await apiServer({ hang: () => hang });
    const proxy = new TcpProxy(srv.port);
    const port = await proxy.listen();
    const t = transport(port, { pingIntervalMs: 300, pingTimeoutMs: 300 });
    try {
      await get(t);
      assert.equal(proxy.connections, 1);
      hang = true;
      const waiting = get(t);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(proxy.freeze(), 1);
      const started = Date.now();
      await assert.rejects(waiting, (err: Error) => err instanceof ConnectionStalledError || /ping|stalled|cancel/i.test(`${err.message} ${String((err as { cause?: unknown }).cause)}`));
      assert.ok(Date.now() - started < 3000, `detected in ${Date.now() - started} ms`);
      hang = false;
      assert.equal((await get(t)).metadata.name, 'a', 'a new connection works');
      assert.equal(proxy.connections, 2);
    } finally {
      t.close();
      await proxy.close();
      await srv.close();
    }
  });

  it('a watch stopped as a stall moves new requests to a new connection at once; the old one closes once checked', async () => {
    const srv = await apiServer();
    const proxy = new TcpProxy(srv.port);
    const port = await proxy.listen();
    const t = transport(port, { pingIntervalMs: 60_000, pingTimeoutMs: 60_000 });
    try {
      const w = await t.watch({ verb: 'watch', resource: CM, namespace: 'ns', query: { watch: 'true' } });
      await w[Symbol.asyncIterator]().next();
      w.stop(new ConnectionStalledError('the watch delivered nothing'));
      await get(t);
      assert.equal(proxy.connections, 2, 'the request after the stall opened a new connection');
      for (let i = 0; i < 50 && proxy.live > 1; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(proxy.live, 1, 'the checked old connection was closed');
    } finally {
      t.close();
      await proxy.close();
      await srv.close();
    }
  });
});

describe('HttpTransport over HTTP/1.1', () => {
  for (const engine of ['node-http1', 'undici'] as const) {
    it(`${engine}: fails a request whose socket stays silent for readIdleTimeoutMs, and never reuses that socket`, async () => {
      let hang = true;
      const sockets = new Set<unknown>();
      const server = http.createServer((req, res) => {
        sockets.add(req.socket);
        if (hang) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"metadata":{"name":"a"}}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const t = new HttpTransport({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, { readIdleTimeoutMs: 200, engine });
      try {
        if (engine === 'undici') await loadUndici(); // loading the package is not part of the wait measured below
        const started = Date.now();
        await assert.rejects(get(t), /no data from the apiserver for 200 ms/);
        assert.ok(Date.now() - started < 2000);
        hang = false;
        assert.equal((await get(t)).metadata.name, 'a');
        assert.equal(sockets.size, 2, 'the silent socket was dropped, not reused');
      } finally {
        t.close();
        server.closeAllConnections();
        server.close();
      }
    });
  }
});
